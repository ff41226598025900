"""Plant known bugs, one at a time, in a copy of ``brain_core`` and check that the tests named for
each one fail against it (and pass against the real code). The checkout is never modified.

    python tools/plant_bugs.py            # every bug
    python tools/plant_bugs.py tag-redaction glossary-join
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name: (file, original text, planted text, tests that must catch it)
BUGS = {
    "tag-redaction": ("brain_core/brain/__init__.py",
                      "tags = [redact(t).text for t in clean_tags(item.get(\"tags\"))]",
                      "tags = clean_tags(item.get(\"tags\"))",
                      ["tests/brain/test_brain_writes.py::test_a_secret_in_a_tag_never_reaches_the_file_the_catalog_or_git"]),
    "router-recency-boundary": ("brain_core/defaults/router.yaml",
                                r"newest: '\b(last|latest|newest|recent|recently)\b'",
                                r"newest: '(last|latest|newest|recent|recently)'",
                                ["tests/answer/test_router.py::test_table"]),
    "glossary-join": ("brain_core/voice/glossary.py",
                      '_JOINER = re.compile(r"[ \\t-]+")',
                      '_JOINER = re.compile(r"[\\W_]+")',
                      ["tests/voice/test_glossary.py::test_a_name_is_never_joined_across_punctuation"]),
    "decay-ignores-uses": ("brain_core/recall/hybrid.py",
                           "    fresh = 1 - (1 - fresh) * (0.5 ** min(uses, 20))\n",
                           "",
                           ["tests/recall/test_recall_scoring.py::test_each_use_halves_what_decay_takes_away",
                            "tests/recall/test_recall_scoring.py::test_old_records_used_long_ago_rank_above_old_unused_ones"]),
    "supersede-drops-extra": ("brain_core/brain/__init__.py",
                              "rec.extra = {**old.extra, **rec.extra}",
                              "rec.extra = dict(rec.extra)",
                              ["tests/brain/test_brain_writes.py::test_superseding_keeps_the_old_records_extra_fields"]),
    "flat-vector-scores-zero": ("brain_core/recall/hybrid.py",
                                "(hi - lo) if hi > lo else 1.0)",
                                "(hi - lo) if hi > lo else 0.0)",
                                ["tests/recall/test_recall_scoring.py::test_a_lone_vector_match_gets_the_full_vector_weight"]),
    "brain-setting-stringified": ("brain_core/config/__init__.py",
                                  "                if not isinstance(candidate, (str, os.PathLike)):\n",
                                  "                candidate = str(candidate)\n"
                                  "                if not isinstance(candidate, (str, os.PathLike)):\n",
                                  ["tests/brain/test_brain_writes.py::test_a_brain_setting_that_is_not_a_path_is_refused_by_name"]),
}


def run_tests(pythonpath: Path, tests: list[str]) -> int:
    # run from the copy: `python -m` puts the working folder first on sys.path
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           f"--rootdir={ROOT}", *[str(ROOT / t) for t in tests]],
                          cwd=pythonpath, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def main(names: list[str]) -> int:
    bad = 0
    for name, (rel, original, planted, tests) in BUGS.items():
        if names and name not in names:
            continue
        with tempfile.TemporaryDirectory(prefix="aida-planted-") as tmp:
            copy = Path(tmp)
            shutil.copytree(ROOT / "brain_core", copy / "brain_core", ignore=shutil.ignore_patterns("__pycache__"))
            text = (copy / rel).read_text(encoding="utf-8")
            if text.count(original) != 1:
                print(f"{name}: the original text is not in {rel} exactly once; update this script")
                bad += 1
                continue
            clean = run_tests(copy, tests)
            (copy / rel).write_text(text.replace(original, planted), encoding="utf-8")
            caught = run_tests(copy, tests)
        ok = clean == 0 and caught != 0
        bad += not ok
        print(f"{name}: {'caught' if ok else 'NOT caught'} (tests pass on the real code: {clean == 0}, "
              f"fail with the bug: {caught != 0}) by {', '.join(t.split('::')[-1] for t in tests)}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
