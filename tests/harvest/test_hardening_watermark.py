"""One malformed value in harvest/<tool>.json no longer stops every later harvest: it is reported,
treated as absent for that tool, and rebuilt from the records' sources, so nothing is harvested twice
(through the real CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers.harvest_homes import CLAUDE_ID, make_homes
from tests.helpers.paths import REPO


def aida(*args, brain):
    env = dict(os.environ, PYTHONPATH=str(REPO), AIDA_BRAIN=str(brain))
    return subprocess.run([sys.executable, "-m", "brain_core", *args], capture_output=True, text=True, env=env)


def shelf_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / "memories").rglob("*.json"))


@pytest.mark.parametrize("damage", [
    lambda wm: wm["sessions"][CLAUDE_ID].update(size="big"),
    lambda wm: wm["sessions"].update({CLAUDE_ID: ["not", "a", "mapping"]}),
    lambda wm: wm.update(through=17),
    lambda wm: wm["sessions"][CLAUDE_ID].update(records="memories/x.json"),
    None,  # not JSON at all
])
def test_a_malformed_watermark_is_reported_rebuilt_and_nothing_is_harvested_twice(brain, tmp_path, damage):
    roots = make_homes(tmp_path / "home", memory=False)
    cfg = Path(os.environ["AIDA_CONFIG"])
    cfg.write_text(yaml.safe_dump({"harvest": {"roots": {k: str(v) for k, v in roots.items()}}}))
    root = brain.root
    brain.close()
    first = aida("brain", "harvest", "--now", "--source", "claude", brain=root)
    assert first.returncode == 0, first.stderr
    files = shelf_files(root)
    assert files, first.stdout
    log = lambda: subprocess.run(["git", "-C", str(root), "log", "--format=%s"], capture_output=True,  # noqa: E731
                                 text=True).stdout.splitlines()
    commits = len(log())
    path = root / "harvest" / "claude.json"
    if damage is None:
        path.write_text("{\"sessions\": {")
    else:
        wm = json.loads(path.read_text())
        damage(wm)
        path.write_text(json.dumps(wm))
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "damage"],
                   check=True)
    again = aida("brain", "harvest", "--now", "--source", "claude", brain=root)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    notes = [line for line in again.stderr.splitlines() if "harvest/claude.json was damaged" in line]
    assert len(notes) == 1 and "rebuilt from the records" in notes[0]
    assert shelf_files(root) == files  # nothing harvested twice
    assert not any(s.startswith("remember") for s in log()[: len(log()) - commits])
    repaired = json.loads(path.read_text())
    assert repaired["sessions"][CLAUDE_ID]["size"] > 0 and "rebuilt" not in repaired["sessions"][CLAUDE_ID]
    quiet = aida("brain", "harvest", "--now", "--source", "claude", brain=root)
    assert quiet.returncode == 0 and "damaged" not in quiet.stderr and shelf_files(root) == files
