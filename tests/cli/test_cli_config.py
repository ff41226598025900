"""``aida config get | list | set`` through the schema: defaults shown and marked, bad values and
unknown names refused with exit 2, and a bad hand-edited file named at start-up."""

from __future__ import annotations

import json

import pytest
import yaml

from brain_core.cli import main


@pytest.fixture
def cfg_path(tmp_path, monkeypatch):
    path = tmp_path / "config.yaml"
    monkeypatch.setenv("AIDA_CONFIG", str(path))
    return path


def test_get_shows_a_default_marked_as_default(cfg_path, capsys):
    assert main(["config", "get", "llm.provider"]) == 0
    out = capsys.readouterr()
    assert out.out.strip() == "none" and "default" in out.err
    assert main(["config", "get", "recall.half_life_days"]) == 0
    assert capsys.readouterr().out.strip() == "180"
    assert main(["config", "get", "recall"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "recall.half_life_days: 180  # default" in lines and "recall.fusion: score  # default" in lines


def test_set_then_get_and_list(cfg_path, capsys):
    assert main(["config", "set", "recall.half_life_days", "90"]) == 0
    assert yaml.safe_load(cfg_path.read_text()) == {"recall": {"half_life_days": 90}}
    capsys.readouterr()
    assert main(["config", "get", "recall.half_life_days"]) == 0
    out = capsys.readouterr()
    assert out.out.strip() == "90" and "default" not in out.err
    assert main(["config", "list"]) == 0
    listing = capsys.readouterr().out
    row = next(line for line in listing.splitlines() if line.startswith("recall.half_life_days"))
    assert row.split()[1] == "90" and "(default)" not in row
    assert any(line.startswith("llm.provider") and line.endswith("(default)") for line in listing.splitlines())
    assert main(["config", "list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["key"]: r for r in data["settings"]}
    assert rows["recall.half_life_days"]["value"] == 90 and not rows["recall.half_life_days"]["is_default"]
    assert rows["llm.provider"]["is_default"] and rows["llm.provider"]["allowed"].startswith("none | auto | claude-code")
    assert main(["config", "set", "recall.half_life_days", "null"]) == 0  # back to the default
    assert yaml.safe_load(cfg_path.read_text()) == {}


@pytest.mark.parametrize("key,value,says", [
    ("recall.half_life_days", "banana", "not a number"),
    ("recall.half_life_days", "-5", "allowed range"),
    ("llm.provider", "bogus", "not one of none, auto"),
    ("recal.half_life_days", "5", "did you mean recall.half_life_days"),
    ("voice.devcie", "cpu", "did you mean voice.device"),
    ("recall", "5", "is a section"),
])
def test_set_refuses_bad_values_and_unknown_keys(cfg_path, capsys, key, value, says):
    assert main(["config", "set", key, value]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and err.count("\n") == 0 and "Traceback" not in err
    assert not cfg_path.exists()  # nothing was written


def test_get_an_unknown_key_suggests_the_nearest(cfg_path, capsys):
    assert main(["config", "get", "llm.provder"]) == 2
    assert "did you mean llm.provider" in capsys.readouterr().err


def test_a_bad_hand_edited_file_stops_other_commands_with_one_line(cfg_path, tmp_path, capsys):
    cfg_path.write_text("recall:\n  half_life_days: banana\n")
    assert main(["--brain", str(tmp_path / "b"), "brain", "status"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "recall.half_life_days" in err and str(cfg_path) in err
    assert "aida config set recall.half_life_days" in err
    # config itself still reads and repairs the file
    assert main(["config", "get", "recall.half_life_days"]) == 2
    out = capsys.readouterr()
    assert out.out.strip() == "banana" and "not a number" in out.err
    assert main(["config", "set", "recall.half_life_days", "30"]) == 0
    assert main(["--brain", str(tmp_path / "b"), "brain", "init"]) == 0
