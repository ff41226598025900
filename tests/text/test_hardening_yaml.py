"""YAML alias bombs are refused wherever the brain's YAML is read: a knowledge page's front matter
(index, lint), glossary.yaml, router.yaml and the settings file, each with the line of the alias."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from brain_core.text import yamlsafe
from tests.helpers.paths import REPO


def bomb(levels: int = 9) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def aida(*args, brain=None, env=None):
    full = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    if brain is not None:
        full["AIDA_BRAIN"] = str(brain)
    return subprocess.run([sys.executable, "-m", "brain_core", *args], capture_output=True, text=True, env=full)


def test_the_loader_refuses_aliases_and_merge_keys_and_names_the_line():
    with pytest.raises(yaml.YAMLError) as e:
        yamlsafe.load(bomb())
    assert "line 2" in yamlsafe.where(e.value) and "alias *l0" in yamlsafe.where(e.value)
    with pytest.raises(yaml.YAMLError):
        yamlsafe.load("base: &b {x: 1}\nother:\n  <<: *b\n")
    assert yamlsafe.load("plain: [1, 2]\ntext: 'a & b * c'\n") == {"plain": [1, 2], "text": "a & b * c"}


def test_a_bomb_in_front_matter_is_one_warning_on_index_and_one_problem_in_lint(brain):
    brain.remember("The kite festival is in April.", key="kites")
    page = brain.root / "knowledge" / "bomb.md"
    page.write_text("---\ntitle: Bomb\n" + bomb() + "---\nA page whose front matter explodes.\n")
    root = brain.root
    brain.close()
    idx = aida("brain", "index", brain=root)
    assert idx.returncode == 0 and "Traceback" not in idx.stderr
    warnings = [line for line in idx.stderr.splitlines() if "bomb.md" in line]
    assert len(warnings) == 1 and "alias" in warnings[0] and "line" in warnings[0]
    lint = aida("brain", "lint", brain=root)
    assert "bomb.md" in lint.stdout + lint.stderr and "alias" in lint.stdout + lint.stderr
    rec = aida("brain", "recall", "kite festival", brain=root)
    assert rec.returncode == 0 and "kites" in rec.stdout


def test_a_bomb_in_glossary_router_or_settings_is_refused_with_its_line(brain, tmp_path):
    root = brain.root
    brain.close()
    (root / "glossary.yaml").write_text("terms: []\n" + bomb())
    gl = aida("glossary", "list", brain=root)
    assert gl.returncode != 0 and "Traceback" not in gl.stderr and "alias" in gl.stderr
    (root / "glossary.yaml").write_text("terms: []\n")
    (root / "router.yaml").write_text(bomb())
    rt = aida("route", "why did we pick kafka", brain=root)
    assert rt.returncode == 0 and "alias" in rt.stderr and "line 2" in rt.stderr
    cfg = tmp_path / "bomb-config.yaml"
    cfg.write_text("recall:\n  fusion: score\n" + bomb())
    st = aida("brain", "status", brain=root, env={"AIDA_CONFIG": str(cfg)})
    assert st.returncode != 0 and "Traceback" not in st.stderr
    assert "line 4" in st.stderr and "alias" in st.stderr
