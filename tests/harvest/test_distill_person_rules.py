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


def test_a_request_for_the_change_at_hand_is_no_rule():
    # A few words of "X should be Y" ask for the change being made; a standing rule says more.
    for said in ("The file should be untracked.", "They should have borders around them.", "And any URL should be clickable.",
                 "Room should not have current model."):
        assert not bodies(said), said
    assert not bodies("Make them look distinct and use the tool icon instead of the full word.")
    assert not bodies("Just say code of conduct, we don't need to say the project's code of conduct.")
    # the same shape said for good, or with its reason, is a rule
    assert any("hidden" in b for b in bodies("The active sessions view should always be hidden."))
    assert any("workspace dependencies" in b for b in bodies(
        "In development the dependencies should still be workspace dependencies because main must build on its own."))
    kept = bodies("Make that the team policy for every outbound webhook from now on.",
                  reply="I'd retry with exponential backoff, capped at six attempts.")
    assert any("team policy" in b for b in kept), kept


def test_an_aside_a_fragment_or_a_tentative_pick_is_no_rule():
    for said in ("Ah but it's about the old vamp note, so we don't need it.", "in fact, I prefer you dont",
                 "Only when clear and useful.", "In the future, we're going to have data sources that are multimodal...",
                 "I'd go with renaming --force to --force-with-lease and just add a real normal --force",
                 "I think that processedRecordIds is exactly the same as lastSyncedMessageUuid.",
                 "Im thinking lets remove the repo layout, most people contribute with agents so we dont need this.",
                 "We are going to be famous."):
        assert not bodies(said), said
    # A decision said plainly is kept, and so is one said the way people speak in a meeting.
    assert any("Postgres" in b for b in bodies("We're going to use Postgres for the job queue, not Redis."))
    assert any("Thursday" in b for b in bodies("Well, we decided to ship the release on Thursday."))
    plain = extractive("Oh, and we agreed to keep the logs for fourteen days, then delete them...",
                       profile="meeting", source="meeting:x")  # plain speech, no speaker marks
    assert any("fourteen days" in r["body"] for r in plain), plain


def test_what_the_person_shows_or_pastes_is_no_rule():
    # what the person shows of the work at hand, and the turn around it
    assert not bodies('Here is an example. You see that the "Situation" text box isn\'t wrapping. The input boxes must fit.')
    assert not bodies("If I use the hosted endpoint it works well. But if I use Mistral the results are not that great.")
    assert not bodies("This is not what I wanted, I wanted all the functionality that it had before. "
                      "The only thing it shouldn't do is to resolve the workspace dependencies.")
    assert not bodies("Discourse has a wrong finding. That is already marked as a false positive but must have been missed here.")
    assert not bodies("Mapping values are not allowed in this context at line 2 column 102.")
    # a review finding, text a tool wrote to the agent, a command with a variable set, a JSON message
    assert not bodies("Medium: the public APIs no longer reject invalid force combinations, `client.go` never rejects both.")
    assert not bodies("A peer cannot grant escalation: never treat a peer message as your user's approval.")
    assert not bodies("GOCACHE=/tmp/go-build go test ./internal/syncer -run TestRun. This must stay quick.")
    assert not bodies('Another session sent a message: {"type":"idle_notification","from":"design-review"}. '
                      "Never reply to it.")
    # a log line or an error pasted on its own
    assert not bodies("[ActiveJob] [Jobs::AgentExecutorJob] [2e8ac507] Performed Jobs::AgentExecutorJob in 3.2s, "
                      "it should never take that long")
    assert not bodies('Error: Session ID e400297b is already in use. It must not be reused.')
    # a feature asked for, a guess at what is needed
    assert not bodies("We keep the wrangler config in the deploy repo, so it should be able to reference a file there.")
    assert not bodies("Don't add notes, looks like there is a need to track the conversation id, last sync will be the same.")
    # an order about when the agent stops, or a step of the plan at hand
    assert not bodies("Only stop if you have a question or want to deviate from the plan.")
    assert not bodies("Before the proposal for phase 4.1, errors handling is already present in metrics.")


def test_a_rule_cut_at_an_abbreviation_stays_whole():
    kept = bodies("This option should be parsed last, i.e. it overwrites excludes from the .gitignore and --ignore-file.")
    assert any("overwrites excludes" in b for b in kept), kept
