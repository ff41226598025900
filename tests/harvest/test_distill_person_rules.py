"""The person's rules as people type them: in lower case, with curly apostrophes, as a condition ("without my explicit
approval"), a boundary ("keep X out of here"), a restriction ("I only want ..."); a quoted phrase is a
name, not a rule; and one rule is one record, however many paths find it."""

from __future__ import annotations

from brain_core.harvest.distill import extractive
from tests.helpers.said import kept_after as bodies


def test_a_rule_typed_in_lower_case_is_its_own_sentence():
    kept = bodies("review the analysis work. we have a lot of bugs across repos. do not create any pr or issue "
                  "without my explicit approval. help me work through them one at a time.")
    assert any("without my explicit approval" in b for b in kept), kept
    assert not any("review the analysis work" in b for b in kept), kept


def test_conditions_boundaries_and_restrictions_are_rules():
    assert any("american english" in b for b in bodies("I only want american english dictionary"))
    assert any("out of here" in b for b in bodies("no, let's keep confirmed safe out of here."))
    assert any("lose my data" in b for b in bodies("make sure you do not lose my data in the database"))
    assert any("progress" in b for b in bodies("please be careful to not lose my progress in the database"))


def test_a_quoted_phrase_is_no_rule():
    assert not bodies('there are some items, all "profiling never enabled in pebble layer" on several charms, '
                      "that fail to get marked as reviewed.")


def test_one_rule_found_twice_is_one_record():
    kept = bodies("bug 7 in the report is wrong. this was identified as a false positive already. "
                  "modern ops always sets relation.app.")
    assert sum("relation.app" in b for b in kept) == 1, kept


def test_requests_doubts_and_reports_are_no_rules():
    assert not bodies("can we add that we also invert the existing warning and keep it so that it would always warn at the start")
    assert not bodies("There are going to be several such connectors so i thought maybe they should be grouped together "
                      "but i want you to use your judgement.")
    assert not bodies("I only want to keep the MSIX package as of now, so we need an analysis of what must be removed.")
    assert not bodies("Jobs seem to work when increasing. but when they finish, it seems that the counter is not "
                      "decremented. That works perfectly otherwise.")
    # The same person, stating a rule, is heard.
    assert any("MSIX" in b for b in bodies("We only ship the MSIX package, never the MSI."))


def test_a_rule_typed_with_curly_apostrophes_is_heard_as_with_straight_ones():
    # Codex and pasted text write "don’t" and "I’d"; the cue words are spelled "don't" and "I'd".
    for said, name in (("We don’t use mocks for the database in tests, we use the real one.", "mocks"),
                       ("I’d rather keep the config in TOML, not YAML.", "TOML"),
                       ("Don’t ever run migrations against the shared database.", "migrations")):
        assert any(name in b for b in bodies(said)), said
    # and the agent announcing its next step is narration however it is typed
    text = ("[user] The migration breaks on my laptop, can you look into it?\n\n"
            "[assistant] I’ll look at `alembic/env.py` first and then I’ll rerun the whole suite against the fixture database.\n\n"
            "[user] ok\n\n[assistant] The migration fails because `ALTER TABLE ... MODIFY` isn’t supported by SQLite, "
            "so `alembic/env.py` must render batch operations with `render_as_batch=True`.\n\n[user] thanks")
    kept = [r["body"] for r in extractive(text, profile="codex", source="codex:session:x")]
    assert any("render_as_batch" in b for b in kept) and not any("I'll look" in b or "I’ll look" in b for b in kept), kept


def test_what_the_person_saw_go_wrong_is_no_rule_though_it_says_never():
    assert not bodies("The sidebar never loads after the first click, it just spins.")
    assert not bodies("The export never shows the footer, even on the last page.")
    # the same words as an order are a rule
    assert any("production bucket" in b for b in bodies("Never load the fixtures from the production bucket."))
