"""Link only when sure, name a conflict only when sure (brain_core/brain/disagreement.py).

A disagreement of order ("X reviews Y" / "Y reviews X") is named only when the two texts are one wording
but for the swap, or two words exchanged their partners; a rewording that also moves words (a clause
put first, a terse "label: value" note against a sentence, a list of pairs, a converse) is a doubt: two
records, no claim. Every pair here was written for these tests, none is from the benchmark's sets."""

from __future__ import annotations

import pytest

from brain_core.brain.dedupe import compare
from brain_core.brain.disagreement import _one_swap, literal_turned, named_disagreement

# contradictions: never folded, and the disagreement named
SWAPPED = [
    ("a name and a common word around a verb", "Kafka feeds the warehouse.", "The warehouse feeds Kafka."),
    ("a service and a name", "The cron job calls Stripe every hour.", "Stripe calls the cron job every hour."),
    ("two names", "Owen mentors Siobhan.", "Siobhan mentors Owen."),
    ("two teams", "The mobile team depends on the API team.", "The API team depends on the mobile team."),
    ("two times", "Backups run at 1am and reports at 3am.", "Backups run at 3am and reports at 1am."),
    ("a direction", "We moved from Travis to CircleCI.", "We moved from CircleCI to Travis."),
    ("a contrast", "Use Poetry, not pipenv.", "Use pipenv, not Poetry."),
    ("two destinations", "Logs go to S3 and metrics go to Datadog.", "Logs go to Datadog and metrics go to S3."),
    ("two numbers", "The timeout is 30 seconds for reads and 10 for writes.",
     "The timeout is 10 seconds for reads and 30 for writes."),
    ("a path's parts", "Config lives in config/prod.yaml.", "Config lives in prod/config.yaml."),
    ("a branch pattern", "Branch names use team/ticket.", "Branch names use ticket/team."),
    ("an owner", "Siobhan is Owen's manager.", "Owen is Siobhan's manager."),
    ("a converse whose places stayed", "The primary in Frankfurt replicates to the replica in Dublin.",
     "The replica in Frankfurt replicates from the primary in Dublin."),
    ("an order", "Alerts page the on-call engineer, then the team lead.",
     "Alerts page the team lead, then the on-call engineer."),
    ("a contrast with 'but not'", "User data is encrypted at rest but not in transit.",
     "User data is encrypted in transit but not at rest."),
    ("a 'not' on one side", "Write tests for new code and old code.", "Write tests for new code, not old code."),
]

# true rewordings: never called a disagreement (folded or kept as two records, but no claim)
REWORDED = [
    ("a clause put first", "The worker flushes its buffer for 5 seconds before the process exits.",
     "Before the process exits, the worker spends 5 seconds flushing its buffer."),
    ("a list of pairs with dashes", "Owners: billing service - Siobhan, search service - Owen.",
     "Siobhan owns the billing service and Owen owns the search service."),
    ("a list of pairs against a passive", "Owners: billing service - Siobhan, search service - Owen.",
     "The billing service is owned by Siobhan; the search service by Owen."),
    ("a converse", "The CDN sits in front of the web servers.", "The web servers sit behind the CDN."),
    ("a converse with another verb", "The data team sends reports to the finance team.",
     "The finance team gets its reports from the data team."),
    ("a unit glued to its number", "Sessions: expire 30m after the last request.",
     "Sessions expire 30 minutes after the last request."),
    ("an abbreviation and a unit", "Review apps: removed 24h after the PR is merged.",
     "Review apps are removed 24 hours after their pull request is merged."),
    ("a word and its inflection", "Lint the SQL files before each commit.",
     "Linting the SQL files comes before each commit."),
    ("a choice written without its verb", "Prefer small commits over large ones in this repo.",
     "Repo rule: small commits over large ones."),
    ("a label against a sentence", "Accent color in our style guide: #FF5722.",
     "We use #FF5722 as the style guide accent color."),
    ("adjectives in another order", "API responses use camelCase JSON keys.",
     "Write the JSON keys of API responses in camelCase."),
]


@pytest.mark.parametrize("kind,a,b", SWAPPED, ids=[k for k, _, _ in SWAPPED])
def test_a_swap_is_never_folded_and_is_named(kind, a, b):
    for x, y in ((a, b), (b, a)):
        ev = compare(x, y, 0.95)
        assert not ev.duplicate(), kind
        assert ev.conflict, (kind, ev)


@pytest.mark.parametrize("kind,a,b", REWORDED, ids=[k for k, _, _ in REWORDED])
def test_a_rewording_that_moves_words_is_no_named_disagreement(kind, a, b):
    for x, y in ((a, b), (b, a)):
        assert compare(x, y, 0.95).conflict is None, kind


def test_a_doubt_of_one_check_lets_a_later_check_name_an_exchange():
    # the reversal alone is unsure (the two are worded differently), the exchange of partners is not
    a = "The EU region keeps logs for 7 days and the US region for 30."
    b = "Logs are kept for 30 days in the EU region and for 7 in the US region."
    check, why, sure = named_disagreement(a, b)
    assert sure and check == "attached" and compare(a, b, 0.9).conflict
    a, b = "The importer reads CSV files from the inbox and writes Parquet to the lake.", \
        "CSV files come from the inbox; the importer writes Parquet to the lake."
    assert compare(a, b, 0.9).conflict is None  # "the importer" serves both clauses: no exchange


def test_one_swap_is_two_runs_exchanged_and_nothing_else():
    assert _one_swap("siobhan review tomasz pull request".split(), "tomasz review siobhan pull request".split())
    assert _one_swap("api gateway sit auth service".split(), "auth service sit api gateway".split())
    assert _one_swap("cache sit database read cache".split(), "database sit cache read database".split())
    assert not _one_swap("a b c d".split(), "a b c d".split())
    assert not _one_swap("load drain connection 60 before pod".split(), "before pod load 60 drain connection".split())
    assert not _one_swap("a b c".split(), "a b d".split())


def test_a_literal_with_its_parts_turned_round():
    assert literal_turned("Images are pushed to registry/team/app.", "Images are pushed to registry/app/team.")
    assert literal_turned("Tables use snake_case.", "Tables use snake_case.") is None
    ev = compare("Images are pushed to registry/team/app.", "Images are pushed to registry/app/team.", 0.97)
    assert ev.conflict and not ev.duplicate()
    # a literal on one side, its words apart on the other: not sure, never folded
    ev = compare("Images are pushed to registry/team.", "Images are pushed to the team registry.", 0.97)
    assert not ev.duplicate()


def test_a_focus_word_on_another_word_is_never_folded():
    from brain_core.brain.alignment import unaligned

    a, b = "Only maintainers can merge to main.", "Maintainers can only merge to main."
    assert "only" in unaligned(a, b)
    assert not compare(a, b, 0.97).duplicate() and not compare(b, a, 0.97).duplicate()
    # "only" on the same word, the sentence turned round: no doubt from the focus word
    assert unaligned("Only maintainers merge to main.", "To main, only maintainers merge.") is None


def test_a_glued_unit_and_a_word_the_model_knows_in_another_form_are_no_names():
    a, b = "The cache expires after 10 minutes.", "Cache TTL: 10m."
    assert compare(a, b, 0.9).conflict is None and compare(b, a, 0.9).conflict is None
    # a tool written in lower case is still a name
    assert compare("Deploy charts with kubectl.", "Deploy charts with kustomize.", 0.9).conflict
