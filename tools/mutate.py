"""``make mutate``: mutation testing of the core modules where a silent bug costs users most.

Each module is mutated by mutmut in a work folder of its own (``.mutate/<module>/``, git-ignored)
whose settings name only that module's source file and only its relevant test files, so a mutant
in ``redact.py`` is judged by the redaction tests and nothing else. mutmut forks one worker per
mutant and runs only the tests that reach the mutated function, stopping at the first failure.

Results are cached per work folder: a second run tests only mutants whose function changed and
the ones not yet checked (``--rerun-survivors`` tests the survivors again, after new tests).

    python tools/mutate.py                   # every module, most important first, 45 min budget
    python tools/mutate.py redact router     # some modules
    MUTATE_BUDGET_S=1200 MUTATE_JOBS=2 python tools/mutate.py

The router's YAML patterns are not Python, so mutmut cannot mutate them; ``router-yaml`` mutates
them here (each ``\\b`` word boundary dropped, each pattern switched off) and runs the router's
table tests against each mutant.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".mutate"
# Where the sources and tests are copied from: this checkout, or a snapshot of another commit
# (``git archive <rev> | tar -x -C DIR``) to score that commit's tests.
SRC = Path(os.environ.get("MUTATE_SOURCE", ROOT))
PY = sys.executable

# (name, source file, relevant test files), most important first.
MODULES = [
    ("redact", "brain_core/redact/__init__.py", ["tests/redact/test_redact.py", "tests/redact/test_redact_boundaries.py"]),
    ("records", "brain_core/records.py", ["tests/records/test_records.py"]),
    ("fsutil", "brain_core/store/fsutil.py", ["tests/store/test_fsutil.py"]),
    ("router", "brain_core/answer/router.py", ["tests/answer/test_router.py"]),
    ("router-yaml", "brain_core/defaults/router.yaml", ["tests/answer/test_router.py"]),
    ("brain", "brain_core/brain/__init__.py", ["tests/brain/test_brain_writes.py", "tests/integration/test_bad_input.py", "tests/brain/test_brain_core.py",
                                      "tests/text/test_abstracts.py", "tests/recall/test_use_signal.py",
                                      "tests/redact/test_redact_doors.py", "tests/brain/test_brain_contract.py",
                                      "tests/catalog/test_catalog_backends.py"]),
    ("watermark", "brain_core/harvest/watermark.py", ["tests/harvest/test_harvest_watermark.py"]),
    ("glossary", "brain_core/voice/glossary.py", ["tests/voice/test_glossary.py", "tests/voice/test_glossary_rules.py"]),
    ("recall", "brain_core/recall/hybrid.py", ["tests/recall/test_recall_scoring.py", "tests/brain/test_brain_core.py",
                                        "tests/recall/test_recall_tuning.py", "tests/recall/test_recall_recent.py",
                                        "tests/recall/test_hit_json.py", "tests/catalog/test_vector_cache.py",
                                        "tests/recall/test_recall_parts.py", "tests/recall/test_recall_threads.py",
                                        "tests/recall/test_recall_math.py", "tests/recall/test_recall_edges.py",
                                        "tests/recall/test_places.py", "tests/recall/test_kinds.py"]),
    ("kinds", "brain_core/recall/kinds.py", ["tests/recall/test_kinds.py"]),
    ("places", "brain_core/recall/places.py", ["tests/recall/test_places.py", "tests/recall/test_recall_tuning.py",
                                        "tests/recall/test_recall_parts.py", "tests/recall/test_recall_math.py"]),
    ("index", "brain_core/catalog/sqlite/index.py", ["tests/catalog/test_index_catalog.py", "tests/brain/test_brain_core.py",
                                      "tests/catalog/test_vector_cache.py", "tests/brain/test_brain_writes.py",
                                      "tests/brain/test_brain_contract.py", "tests/integration/test_bad_input.py"]),
    ("scan", "brain_core/catalog/scan.py", ["tests/catalog/test_index_catalog.py", "tests/brain/test_brain_core.py",
                                     "tests/brain/test_brain_writes.py", "tests/integration/test_bad_input.py"]),
    ("recall-sqlite", "brain_core/recall/sqlite.py", ["tests/recall/test_recall_parts.py", "tests/catalog/test_vector_cache.py",
                                               "tests/recall/test_places.py", "tests/recall/test_recall_edges.py",
                                               "tests/recall/test_coverage.py", "tests/recall/test_recency_topic.py"]),
]
# Modules mutated in part: the functions named here (the issue scopes ``index`` to scan and apply:
# what a wrong catalog row costs users). The others are left for later rounds, not counted.
SCOPE = {
    "index": ["scan", "apply", "catch_up", "stale_dirs", "_note_dirs", "sync", "upsert_file", "remove_file",
              "rebuild", "_vectors_for", "_create_from_files", "recover"],
}


def in_scope(name: str, res: dict[str, str]) -> dict[str, str]:
    funcs = SCOPE.get(name)
    if not funcs:
        return res
    return {k: v for k, v in res.items() if re.sub(r"__mutmut_\d+$", "", k).rsplit("ǁ", 1)[-1] in funcs}


# Tests that take many seconds each and reach nearly every function: they would dominate the run
# without killing anything the quicker tests leave alive.
DESELECT = [
    "tests/brain/test_brain_core.py::test_a_corrupt_index_is_rebuilt_from_the_files_with_a_notice",
    "tests/brain/test_brain_core.py::test_background_rebuild_answers_from_the_old_index_meanwhile",
    "tests/brain/test_brain_core.py::test_many_changes_behind_its_back_start_a_background_rebuild",
    "tests/brain/test_brain_core.py::test_importing_the_core_loads_no_qt_and_no_whisper",
    # the command line in a subprocess: it sees the mutant but not which one is active (docs/MUTATION.md)
    "tests/integration/test_bad_input.py::test_cli_reports_bad_files_in_one_line_each_without_a_traceback",
    "tests/integration/test_bad_input.py::test_hostile_files_through_the_cli_and_the_mcp_recall_tool",
    "tests/integration/test_bad_input.py::test_recall_warns_once_about_bad_files_that_arrive_and_answers",
]
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout", None: "not checked"}


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def prepare(name: str, source: str, tests: list[str]) -> Path:
    """The module's work folder: a fresh copy of the sources and tests, and settings for mutmut."""
    work = WORK / name
    work.mkdir(parents=True, exist_ok=True)
    for part in ("brain_core", "tests"):
        shutil.copytree(SRC / part, work / part, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    tests = [t for t in tests if (SRC / t).exists()]
    args = ["-p", "no:cacheprovider", "-p", "no:randomly", "--timeout=300", "-W", "ignore"]
    args += [f"--deselect={d}" for d in DESELECT]
    (work / "pyproject.toml").write_text(
        "[tool.mutmut]\n"
        'source_paths = ["brain_core"]\n'
        f"only_mutate = {_toml_list([source])}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
        f"pytest_add_cli_args = {_toml_list(args)}\n"
        'on_dependency_change = "ignore"\n'
        "\n[tool.pytest.ini_options]\n"
        'testpaths = ["tests"]\n'
        'markers = ["slow: slow", "gui: needs Qt"]\n', encoding="utf-8")
    if os.environ.get("MUTATE_RERUN_SURVIVORS") == "1":
        _keep_verdicts(work, tests)
    return work


def _keep_verdicts(work: Path, tests: list[str]) -> None:
    """Tests were added since the last run: mutmut would take the longer list of test files for a
    new setup and test every mutant again. A killed mutant stays killed when tests are added, so
    the stored fingerprint of the test selection is brought up to date; mutmut then collects the
    new tests' coverage and the survivors are tested again by name."""
    import hashlib

    stats = work / "mutants" / "mutmut-stats.json"
    if not stats.exists():
        return
    data = json.loads(stats.read_text(encoding="utf-8"))
    fp = data.get("config_fingerprint") or {}
    fp["test_selection"] = hashlib.sha256(repr(tuple(tests)).encode()).hexdigest()[:12]
    data["config_fingerprint"] = fp
    stats.write_text(json.dumps(data), encoding="utf-8")


def run_mutmut(work: Path, deadline: float, jobs: int, names: list[str] | None = None) -> int:
    # made before Python starts: a PYTHONPATH entry missing at start-up is cached as absent, and
    # the tests would then import the unmutated package from wherever else it is installed
    (work / "mutants").mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(work / "mutants"), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [PY, "-m", "mutmut", "run", "--max-children", str(jobs), *(names or [])]
    left = deadline - time.monotonic()
    if left < 30:
        return 124
    proc = subprocess.Popen(cmd, cwd=work, env=env, start_new_session=True,
                            stdout=open(work / "mutmut.log", "ab"), stderr=subprocess.STDOUT)
    try:
        return proc.wait(timeout=left)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)  # mutmut saves what it has on an interrupt
        try:
            return proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            return proc.wait()


def results(work: Path, source: str) -> dict[str, str]:
    meta = work / "mutants" / (source + ".meta")
    if not meta.exists():
        return {}
    data = json.loads(meta.read_text(encoding="utf-8"))
    return {k: STATUS.get(v, "suspicious") for k, v in data.get("exit_code_by_key", {}).items()}


def summarise(name: str, res: dict[str, str], equivalent: set[str]) -> dict:
    counts: dict[str, int] = {}
    for status in res.values():
        counts[status] = counts.get(status, 0) + 1
    survived = [k for k, s in res.items() if s == "survived"]
    eq = [k for k in survived if k in equivalent]
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    judged = killed + len(survived) - len(eq)
    return {"module": name, "mutants": len(res), "killed": killed, "survived": len(survived),
            "equivalent": len(eq), "no_tests": counts.get("no tests", 0),
            "not_checked": counts.get("not checked", 0),
            "score": round(100 * killed / judged, 1) if judged else None,
            "survivors": sorted(set(survived) - set(eq))}


# -- the router's YAML patterns ------------------------------------------------------------------------


def yaml_patterns(text: str) -> dict[str, str]:
    """Each pattern's name and text, as ``yaml_mutants`` reads them."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^  ([\w:-]+): '(.*)'$", text, re.M)}


def yaml_mutants(text: str) -> list[tuple[str, str]]:
    """(label, mutated YAML): each pattern switched off, and each of its ``\\b`` dropped."""
    out = []
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = re.match(r"^(  )([\w:-]+): '(.*)'\n?$", line)
        if not m:
            continue
        name, pattern = m.group(2), m.group(3)
        off = lines[:i] + [f"  {name}: null\n"] + lines[i + 1:]
        out.append((f"{name}:off", "".join(off)))
        for j in [k.start() for k in re.finditer(r"\\b", pattern)]:
            mutated = pattern[:j] + pattern[j + 2:]
            out.append((f"{name}:drop-\\b@{j}", "".join(lines[:i] + [f"  {name}: '{mutated}'\n"] + lines[i + 1:])))
    return out


def run_yaml(work: Path, source: str, tests: list[str], deadline: float, equivalent: set[str]) -> dict[str, str]:
    """Each YAML mutant is judged by the router tests in one pytest process per mutant."""
    cache = work / "yaml-results.json"
    res = json.loads(cache.read_text()) if cache.exists() else {}
    target = work / source
    original = (SRC / source).read_text(encoding="utf-8")
    # a verdict holds for the pattern it was reached on: a changed pattern is judged again
    judged = work / "yaml-patterns.json"
    before = json.loads(judged.read_text()) if judged.exists() else {}
    now = yaml_patterns(original)
    changed = {n for n, p in now.items() if before.get(n, p) != p}
    res = {label: v for label, v in res.items() if label.rsplit(":", 1)[0] not in changed}
    judged.write_text(json.dumps(now, indent=1))
    rerun = os.environ.get("MUTATE_RERUN_SURVIVORS") == "1"
    try:
        for label, text in yaml_mutants(original):
            if label in res and not (rerun and res[label] == "survived"):
                continue
            if time.monotonic() > deadline:
                res.setdefault(label, "not checked")
                continue
            target.write_text(text, encoding="utf-8")
            env = {**os.environ, "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
            rc = subprocess.run([PY, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                                cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            res[label] = "survived" if rc == 0 else "killed"
            cache.write_text(json.dumps(res, indent=1))
    finally:
        target.write_text(original, encoding="utf-8")
    return res


def main(argv: list[str]) -> int:
    rerun = "--rerun-survivors" in argv
    if rerun:
        os.environ["MUTATE_RERUN_SURVIVORS"] = "1"
    wanted = [a for a in argv if not a.startswith("-")]
    budget = float(os.environ.get("MUTATE_BUDGET_S", 45 * 60))
    jobs = int(os.environ.get("MUTATE_JOBS", 1))
    deadline = time.monotonic() + budget
    equivalent = set(json.loads((ROOT / "tools" / "mutate_equivalent.json").read_text()).keys()) \
        if (ROOT / "tools" / "mutate_equivalent.json").exists() else set()
    report = []
    for name, source, tests in MODULES:
        if wanted and name not in wanted:
            continue
        if time.monotonic() > deadline:
            print(f"{name}: not run (the time budget is spent)", flush=True)
            continue
        work = prepare(name, source, tests)
        tests = [t for t in tests if (SRC / t).exists()]
        started = time.monotonic()
        if source.endswith(".yaml"):
            res = run_yaml(work, source, tests, deadline, equivalent)
        else:
            names = None
            before = in_scope(name, results(work, source))
            if name in SCOPE:  # the scoped functions' mutants (by pattern on a first run)
                names = sorted(before) or [p for f in SCOPE[name] for p in (f"*ǁ{f}__mutmut_*", f"*.x_{f}__mutmut_*")]
            if rerun and before:
                names = [k for k, s in before.items() if s in ("survived", "not checked", "no tests")]
                if not names:
                    report.append({**summarise(name, before, equivalent), "minutes": 0.0})
                    continue
            run_mutmut(work, deadline, jobs, names)
            res = in_scope(name, results(work, source))
        row = {**summarise(name, res, equivalent), "minutes": round((time.monotonic() - started) / 60, 1)}
        report.append(row)
        print(f"{name}: {row['mutants']} mutants, {row['killed']} killed, {row['survived']} survived "
              f"({row['equivalent']} equivalent), {row['no_tests']} without tests, {row['not_checked']} not checked; "
              f"score {row['score']}% in {row['minutes']} min", flush=True)
    WORK.mkdir(exist_ok=True)
    (WORK / "report.json").write_text(json.dumps(report, indent=1))
    print(f"report: {WORK / 'report.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
