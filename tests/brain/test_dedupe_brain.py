"""One fact in a whole brain: lint reports copies, consolidate merges them with their provenance,
and a real harvest of three agents' sessions keeps one record."""

from __future__ import annotations

import json
import subprocess

from brain_core.brain.dedupe import collapse_hits
from brain_core.cli import main
from brain_core.lifecycle.lint import lint
from tests.brain.test_dedupe import DATADOG, GRAFANA
from tests.helpers.harvest_homes import CLAUDE_ID, CODEX_ID, GEMINI_ID, make_homes

T0 = 1_787_000_000.0


def _copies(brain):
    """A brain from before the write-time link: three agents wrote the same decision, plus a different one."""
    brain.config.set("dedupe.link_on_write", False)
    for i, (profile, body) in enumerate(DATADOG):
        brain.remember(body, type="decision", profile=profile, source=f"{profile}:session:s{i}",
                       created=f"2026-08-2{i}T10:00:00Z", tags=[f"agent:{profile}"])
    brain.remember(GRAFANA, type="decision", profile="me", source="cli")
    brain.config.set("dedupe.link_on_write", True)


def _commits(brain) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=brain.root, capture_output=True,
                              text=True).stdout)


def _memories(brain) -> list[str]:
    return sorted(p.relative_to(brain.root).as_posix() for p in (brain.root / "memories").rglob("*.json"))


def test_lint_lists_near_duplicates_as_notes_and_fails_on_exact_copies(brain, capsys):
    _copies(brain)
    notices: list = []
    assert lint(brain, notices) == []
    assert len(notices) == 3  # three pairs among the three agents' copies; the Grafana decision is apart
    assert all("grafana" not in n.path and "near-duplicate" in n.message for n in notices)
    assert main(["--brain", str(brain.root), "brain", "lint"]) == 0
    out = capsys.readouterr().out
    assert "No problems. 3 near-duplicate(s), not counted as problems." in out
    assert out.count("note: says what memories/") == 3

    brain.config.set("dedupe.link_on_write", False)
    brain.remember(GRAFANA, type="decision", profile="codex", source="codex:session:s9")
    (problem,) = lint(brain)
    assert problem.path.startswith("memories/me/") and "grafana" in problem.path
    assert "word for word" in problem.message and "memories/codex/" in problem.message
    assert main(["--brain", str(brain.root), "brain", "lint", "--json"]) == 1
    entries = json.loads(capsys.readouterr().out)
    assert sum(1 for e in entries if "problem" in e) == 1 and sum(1 for e in entries if "notice" in e) == 3


def test_consolidate_merges_near_duplicates_into_one_record_with_provenance(brain, capsys):
    _copies(brain)
    before = _commits(brain)
    old = {p: brain.get(p) for p in _memories(brain)}
    assert main(["--brain", str(brain.root), "brain", "consolidate", "--dry-run"]) == 0
    assert "[near-duplicates]" in capsys.readouterr().out and _commits(brain) == before

    assert main(["--brain", str(brain.root), "brain", "consolidate", "--json"]) == 0
    (merge,) = json.loads(capsys.readouterr().out)["duplicates"]
    assert _commits(brain) == before + 1  # one commit for the whole merge
    left = _memories(brain)
    assert len(left) == 2 and merge["keep"] in left and any("grafana" in p for p in left)
    rec = brain.get(merge["keep"])
    kept_before = old[merge["keep"]]
    assert rec.body == kept_before.body and rec.supersedes == kept_before.id and rec.id != kept_before.id
    assert set(rec.provenance) == {r.id for p, r in old.items() if "grafana" not in p}
    assert {s["source"] for s in rec.extra["sources"]} | {rec.source} == {
        "claude:session:s0", "codex:session:s1", "gemini:session:s2"}
    assert all(s["body"] in [b for _, b in DATADOG] for s in rec.extra["sources"])
    assert {"agent:claude", "agent:codex", "agent:gemini"} <= set(rec.tags)
    for moved in merge["archived"]:
        assert (brain.root / moved["to"]).is_file() and not (brain.root / moved["from"]).exists()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=brain.root, capture_output=True,
                          text=True).stdout.strip() == ""
    # the catalog follows, lint is clean, a second run finds nothing
    hits = brain.recall("which monitoring tool did we choose", k=5, touch=False)
    assert [h.path for h in hits if "Datadog" in h.record.body] == [merge["keep"]]
    notices: list = []
    assert lint(brain, notices) == [] and notices == []
    assert main(["--brain", str(brain.root), "brain", "consolidate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["duplicates"] == []


def test_harvest_of_three_agents_keeps_one_record_with_the_three_sessions(brain, tmp_path):
    """The fixture sessions of Claude Code, Codex and Gemini CLI each decide the same retry policy;
    through the real parsers and the offline distiller it becomes one record."""
    from brain_core.harvest.run import sweep

    roots = make_homes(tmp_path / "home", memory=False, mtime=T0)
    result = sweep(brain, roots=roots, clock=lambda: T0 + 3600)
    assert {o.tool for o in result.outcomes} >= {"claude", "codex", "gemini"}
    retry = [p for p in _memories(brain) if "backoff" in p]
    assert len(retry) == 1
    data = json.loads((brain.root / retry[0]).read_text())
    sessions = {data["source"]} | {s["source"] for s in data["sources"]}
    assert sessions == {f"claude:session:{CLAUDE_ID}", f"codex:session:{CODEX_ID}", f"gemini:session:{GEMINI_ID}"}
    # an answer shows it once, naming the other two sessions
    hits = brain.recall("how many times do outbound webhooks retry", k=5, touch=False)
    folded = collapse_hits(hits, brain.index)
    top = [h for h in folded if h.path == retry[0]]
    assert len(top) == 1 and len([h for h in folded if "six attempts" in h.record.body]) == 1
    assert {a["source"] for a in top[0].also} == sessions - {data["source"]}
