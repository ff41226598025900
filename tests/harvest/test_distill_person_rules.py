"""The person's rules as people type them: in lower case, as a condition ("without my explicit
approval"), a boundary ("keep X out of here"), a restriction ("I only want ..."); a quoted phrase is a
name, not a rule; and one rule is one record, however many paths find it."""

from __future__ import annotations

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
