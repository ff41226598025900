"""Files and folders that lead outside the brain: a hard link on a shelf is refused with a warning
(never indexed, recalled or committed), a symlinked ``.aida`` is refused before anything lands
outside, and a clean/smudge filter in the brain's git config never runs on Aida's commits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import REPO

RECORD = {"id": "20260101-000000000-abcdef", "type": "fact", "key": "outside", "profile": "me",
          "body": "The vault combination lives outside the brain.", "tags": []}


def aida(*args, brain):
    env = dict(os.environ, PYTHONPATH=str(REPO), AIDA_BRAIN=str(brain))
    return subprocess.run([sys.executable, "-m", "brain_core", *args], capture_output=True, text=True, env=env)


def tracked(root: Path) -> list[str]:
    return subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True).stdout.split()


def test_a_hard_link_on_a_shelf_is_refused_with_a_warning(brain, tmp_path):
    brain.remember("The kite festival is in April.", key="kites")
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(RECORD))
    os.link(outside, brain.root / "memories" / "me" / "outside.json")
    root = brain.root
    brain.close()
    idx = aida("brain", "index", brain=root)
    assert idx.returncode == 0 and "Traceback" not in idx.stderr
    warnings = [line for line in idx.stderr.splitlines() if "outside.json" in line]
    assert len(warnings) == 1 and "hard link" in warnings[0]
    rec = aida("brain", "recall", "--json", "--all", "vault combination", brain=root)
    assert rec.returncode == 0 and all(h["key"] != "outside" for h in json.loads(rec.stdout))
    assert "memories/me/outside.json" not in tracked(root)
    lint = aida("brain", "lint", brain=root)
    assert "outside.json" in lint.stdout and "hard link" in lint.stdout
    assert outside.read_text() == json.dumps(RECORD)  # the file outside is untouched


def test_a_symlinked_state_folder_is_refused_before_anything_lands_outside(brain, tmp_path):
    root = brain.root
    brain.close()
    import shutil

    shutil.rmtree(root / ".aida")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, root / ".aida")
    for args in (("brain", "recall", "anything"), ("brain", "remember", "A new fact.", "--key", "new"),
                 ("brain", "index")):
        run = aida(*args, brain=root)
        assert run.returncode == 1 and "Traceback" not in run.stderr
        lines = [line for line in run.stderr.splitlines() if line.startswith("aida:")]
        assert len(lines) == 1 and ".aida is a symlink" in lines[0]
    assert list(elsewhere.iterdir()) == []
    assert not (root / "memories" / "me" / "new.json").exists()


def test_a_clean_filter_in_the_brains_git_config_never_runs_on_aidas_commits(brain, tmp_path):
    marker = tmp_path / "filter-ran"
    root = brain.root
    brain.close()
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nsed 's/April/never/'\n")
    script.chmod(0o755)
    subprocess.run(["git", "-C", str(root), "config", "filter.evil.clean", str(script)], check=True)
    subprocess.run(["git", "-C", str(root), "config", "filter.evil.smudge", str(script)], check=True)
    (root / ".gitattributes").write_text("* filter=evil\n")
    run = aida("brain", "remember", "The kite festival is in April.", "--key", "kites", brain=root)
    assert run.returncode == 0, run.stderr
    assert not marker.exists()
    shown = subprocess.run(["git", "-C", str(root), "show", "HEAD:memories/me/kites.json"], capture_output=True,
                           text=True, env=dict(os.environ, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="filter.evil.smudge",
                                               GIT_CONFIG_VALUE_0="")).stdout
    assert "April" in shown and "never" not in shown
