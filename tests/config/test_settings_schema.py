"""The settings schema is the one declaration: the code, DEFAULTS, the README and docs/DESIGN.md agree with it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from brain_core.config import DEFAULTS, Config, schema
from brain_core.errors import BrainError
from tests.helpers.paths import REPO

ROOT = REPO


def _reads(root: Path):
    """(file, line, key, default node or None) for every ``*.get("dotted.key", default)`` and
    ``setting(config, "key", default)`` in the code."""
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            args = node.args
            if name == "setting" and len(args) >= 2:
                args = args[1:]
            elif name != "get":
                continue
            receiver = ast.unparse(func.value) if isinstance(func, ast.Attribute) else "setting"
            if name == "get" and not re.search(r"(config|cfg)$", receiver):
                continue
            first = args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield path.relative_to(ROOT), node.lineno, first.value, args[1] if len(args) > 1 else None


READS = [r for top in ("brain_core", "app") for r in _reads(ROOT / top)]


def test_the_code_reads_settings_at_all():
    keys = {k for _, _, k, _ in READS}
    assert {"llm.provider", "recall", "voice.model", "tray.sweep_minutes", "live.weather.units"} <= keys


@pytest.mark.parametrize("where,line,key,default", READS, ids=[f"{p}:{n}:{k}" for p, n, k, _ in READS])
def test_every_setting_the_code_reads_is_declared(where, line, key, default):
    if key in schema.sections():
        return  # a whole section, e.g. config.get("recall")
    assert key in schema.BY_KEY or schema.owner(key), f"{where}:{line} reads {key!r}, which settings_schema lacks"
    s = schema.BY_KEY.get(key)
    if s is not None and isinstance(default, ast.Constant) and default.value is not None and s.default is not None:
        assert default.value == s.default, f"{where}:{line} defaults {key} to {default.value!r}, the schema to {s.default!r}"


def _leaves(d, prefix=""):
    for k, v in d.items():
        if isinstance(v, dict) and f"{prefix}{k}" not in schema.BY_KEY:
            yield from _leaves(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


@pytest.mark.parametrize("key,value", list(_leaves(DEFAULTS)))
def test_defaults_agree_with_the_schema(key, value):
    assert key in schema.BY_KEY, f"DEFAULTS has {key}, which the schema lacks"
    assert schema.BY_KEY[key].default == value


def test_every_default_passes_its_own_check():
    for s in schema.SETTINGS:
        assert schema.check(s.key, s.default) == s.default, s.key
        assert s.help and s.help[0].islower() is not None and not s.help.endswith(".")


@pytest.mark.parametrize("key,value,word", [
    ("recall.half_life_days", "banana", "not a number"),
    ("recall.half_life_days", -5, "allowed range"),
    ("recall.decay_floor", 1.5, "0 to 1"),
    ("llm.provider", "bogus", "not one of none, auto"),
    ("llm.provider", "opnai", "did you mean openai"),
    ("recall.rrf_k", 2.5, "whole number"),
    ("ask.cache", "maybe", "not true or false"),
    ("maintain.keep_types", ["decision", "memo"], "not a record type"),
    ("brain", 5, "not a folder path"),
    ("harvest.roots", "x", "not a mapping"),
    ("recall.bm25_weight", float("nan"), "finite"),
])
def test_bad_values_are_refused_naming_the_key(key, value, word):
    with pytest.raises(schema.BadSetting) as e:
        schema.check(key, value)
    msg = str(e.value)
    assert key in msg and word in msg and "\n" not in msg and e.value.exit_code == 2


@pytest.mark.parametrize("key,raw,value", [
    ("recall.half_life_days", "90", 90.0), ("recall.rrf_k", 40.0, 40), ("ask.cache", "off", False),
    ("llm.provider", "OpenAI", "openai"), ("llm.provider", "claude", "claude"), ("identity.name", 42, "42"),
    ("maintain.keep_types", "decision, fact", ["decision", "fact"]), ("voice.input_device", 2, 2),
    ("harvest.roots.claude", "/x", "/x"), ("llm.model", None, None),
])
def test_good_values_come_back_in_their_type(key, raw, value):
    assert schema.check(key, raw) == value


def test_unknown_names_get_the_nearest_ones():
    with pytest.raises(schema.BadSetting, match="did you mean recall.half_life_days"):
        schema.find("recal.half_life_days")
    with pytest.raises(schema.BadSetting, match="is a section"):
        schema.find("recall")
    with pytest.raises(schema.BadSetting, match="aida config list"):
        schema.find("zzz.qqq")


def test_a_hand_edited_file_with_a_bad_value_stops_at_load_with_one_line(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"recall": {"half_life_days": "banana"}, "llm": {"provider": "bogus"}}))
    with pytest.raises(BrainError) as e:
        Config.load(path)
    msg = str(e.value)
    assert str(path) in msg and "llm.provider is 'bogus'" in msg and "1 more" in msg and "\n" not in msg
    cfg = Config.load(path, check=False)  # `aida config` and `aida doctor` can still read it to fix it
    assert cfg.data["llm"]["provider"] == "bogus"


def test_unknown_keys_do_not_stop_the_load(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("recal:\n  half_life_days: 5\nrecall:\n  half_life_days: 30\n")
    assert Config.load(path).get("recall.half_life_days") == 30
    errors, unknown = schema.problems(Config.load(path).data)
    assert errors == [] and unknown and "did you mean recall.half_life_days" in unknown[0]


def test_a_section_written_as_a_value_is_an_error():
    errors, _ = schema.problems({"identity": "me"})
    assert errors and errors[0].startswith("identity is a section")


@pytest.mark.parametrize("doc,keys", [("README.md", schema.COMMON), ("docs/DESIGN.md", None)])
def test_the_settings_tables_are_the_schema(doc, keys):
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert schema.fill_table(text, keys) == text, (
        f"{doc}'s settings table differs from brain_core/config/schema.py; run `python -m brain_core.config.schema`")
