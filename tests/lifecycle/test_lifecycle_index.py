"""INDEX.md: a projection of the files within a character budget, and `aida brain budget`'s exit codes."""

from __future__ import annotations

import subprocess

from brain_core.cli import main
from brain_core.lifecycle.tier_index import INDEX, SHELF, check_budget, plan, regenerate, trigger_for
from brain_core.records import Record


def _rec(body, type="fact", key=None, extra=None):
    from brain_core.text.slug import slugify

    return Record(id="20260101-000000000-abcdef", type=type, key=key or slugify(body), profile="me", body=body,
                  extra=extra or {})


def test_triggers_are_written_as_the_symptom():
    assert trigger_for(_rec("Never force-push to main. It rewrites history.", "instruction")) == \
        "About to force-push to main"
    assert trigger_for(_rec("Always run the migrations with --dry-run first.", "instruction")) == \
        "Forgetting to run the migrations with --dry-run first"
    assert trigger_for(_rec("We use Postgres, not MySQL.", "decision", key="database-choice")) == \
        "Reopening the decision on database choice"
    assert trigger_for(_rec("Retries are capped at six.", "fact", key="webhook-retry-policy")) == \
        "Unsure about webhook retry policy"
    # a key made of the body's own first content words (the offline distiller's) reads as a word list:
    # the first sentence says more
    body = "Two side notes: cache misses see the full tree walk. The rest is cached."
    assert trigger_for(_rec(body, "fact", key="two-side-notes-cache-misses-see")) == \
        "Unsure about Two side notes: cache misses see the full tree walk"
    assert trigger_for(_rec("x", "fact", extra={"trigger": "About to hard-code a retry count"})) == \
        "About to hard-code a retry count"
    long = trigger_for(_rec("Never " + "really " * 40 + "do it.", "instruction"))
    assert len(long) <= 100 and long.endswith("…")


def test_regenerated_from_the_files_with_links(brain):
    brain.remember("Never force-push to main.", type="instruction", key="no-force-push")
    brain.remember("Retries are capped at six.", key="webhook-retry-policy", profile="codex")
    brain.remember("A passing thought.", type="event")
    (brain.root / "knowledge" / "runbook.md").write_text("---\ntitle: Incident runbook\n---\n\nRestart first.\n")
    p = regenerate(brain)
    assert set(p.written) == {INDEX, SHELF}
    text = (brain.root / INDEX).read_text()
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert lines == [
        "- About to force-push to main → [no-force-push](memories/me/no-force-push.json)",
        "- Working on Incident runbook → [Incident runbook](knowledge/runbook.md)",
        "- Unsure about webhook retry policy → [webhook-retry-policy](memories/codex/webhook-retry-policy.json)",
    ]
    log = subprocess.run(["git", "log", "-1", "--format=%s", "--", INDEX], cwd=brain.root, capture_output=True,
                         text=True).stdout
    assert log.strip() == "index: regenerate INDEX.md"
    head = brain.head()
    assert regenerate(brain).written == () and brain.head() == head  # unchanged: no commit
    assert check_budget(brain).code == 0


def test_budget_counts_characters_not_bytes(brain):
    for i, body in enumerate(["Überprüfe immer die Logs, bevor du den Dienst neu startest. " * 2,
                              "デプロイの前に必ずステージングで確認すること。" * 3,
                              "Ne jamais redémarrer la base de données pendant les heures ouvrées."]):
        brain.remember(body, type="instruction", key=f"regel-{i}")
    p = regenerate(brain)
    text = (brain.root / INDEX).read_text(encoding="utf-8")
    chars, size = len(text), len(text.encode("utf-8"))
    assert size > chars + 40 and p.loaded == 3
    brain.config.set("tier_index.budget_chars", chars)       # exactly full in characters (over in bytes)
    brain.config.set("tier_index.truncate_chars", chars + 50)
    assert check_budget(brain).code == 0
    (brain.root / INDEX).write_text(text + "ü" * 10, encoding="utf-8")
    c = check_budget(brain)
    assert (c.code, c.chars) == (1, chars + 10) and "over the budget" in c.message
    (brain.root / INDEX).write_text(text + "日" * 60, encoding="utf-8")
    assert check_budget(brain).code == 2
    (brain.root / INDEX).unlink()
    assert check_budget(brain).code == 3


def test_entries_that_do_not_fit_go_to_the_shelf(brain):
    for i in range(30):
        brain.remember(f"Fact number {i} about the billing system and its many quirks.", key=f"billing-fact-{i:02d}",
                       created=f"2026-01-{i + 1:02d}T00:00:00Z")
    brain.remember("Never deploy billing on Fridays.", type="instruction", key="billing-friday",
                   created="2025-01-01T00:00:00Z")
    brain.config.set("tier_index.budget_chars", 1200)
    p = regenerate(brain)
    index = (brain.root / INDEX).read_text()
    shelf = (brain.root / SHELF).read_text()
    assert len(index) <= 1200 and p.loaded + p.shelved == 31 and p.shelved > 0
    assert f"{p.shelved} more on the shelf: {SHELF}" in index
    loaded = [line for line in index.splitlines() if line.startswith("- ")]
    assert loaded[0].startswith("- About to deploy billing on Fridays")   # instructions first, even if old
    assert "billing-fact-29" in loaded[1]                                 # then the newest facts
    shelved = [line for line in shelf.splitlines() if line.startswith("- ")]
    assert len(shelved) == p.shelved and "billing-fact-00" in shelved[-1]
    assert not set(loaded) & set(shelved)


def test_budget_cli_exit_codes(brain, monkeypatch, capsys):
    monkeypatch.setenv("AIDA_BRAIN", str(brain.root))
    assert main(["brain", "budget"]) == 3
    assert "no INDEX.md" in capsys.readouterr().out
    brain.remember("Schreibe Commit-Nachrichten auf Englisch.", type="instruction", key="commit-sprache")
    regenerate(brain)
    assert main(["brain", "budget"]) == 0
    text = (brain.root / INDEX).read_text()
    (brain.root / INDEX).write_text(text + "ä" * (6000 - len(text) + 1))
    assert main(["brain", "budget"]) == 1
    (brain.root / INDEX).write_text(text + "ä" * (10000 - len(text) + 1))
    assert main(["brain", "budget", "--json"]) == 2
    assert '"code": 2' in capsys.readouterr().out
    assert plan(brain).chars == len(text)  # the plan is the files' projection, not the edited file
