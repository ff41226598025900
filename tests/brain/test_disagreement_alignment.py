"""Link only when sure: two statements are one fact only when every informative word of each is on
the other side (brain_core/brain/disagreement.py ``unaligned``). A changed owner, a schedule on one
side only, a relation verb for its converse, a placement turned round, a second owner folded into the first,
a placeholder template turned round, names said twice and exchanged: kept apart, in the predicate and
in a real brain, while rewordings in the same words still fold."""

from __future__ import annotations

import json

import pytest

from brain_core.brain.alignment import unaligned
from brain_core.brain.conflicts import find_conflicts
from brain_core.brain.dedupe import compare
from brain_core.brain.disagreement import substitution
from brain_core.cli import main

# (kind, a, b): the two share a subject and most words, and do not say the same thing
APART = [
    ("changed owner (a modifier noun)", "The billing service is owned by the payments team.",
     "The billing service is owned by the platform team."),
    ("a schedule on one side only", "Backups are copied from the primary region to the backup region.",
     "Backups are copied from the primary region to the backup region every night."),
    ("another schedule", "The importer runs every night.", "The importer runs every 6 hours."),
    ("a converse relation verb", "Owen reports to Siobhan on the data team.", "Owen manages Siobhan on the data team."),
    ("another placement", "The proxy sits in front of the web servers.", "The proxy sits behind the web servers."),
    ("a unit on one side only", "The upload limit is 10 per user.", "The upload limit is 10 GB per user."),
    ("a word added", "Tomasz reviews the billing changes.", "Tomasz reviews the urgent billing changes."),
    ("another team, one stem apart", "The product team owns the roadmap.", "The production team owns the roadmap."),
    ("a habit that ended", "We used to deploy on Fridays.", "We deploy on Fridays."),
    ("a plan, not yet a fact", "We will migrate the queue to Kafka.", "We migrated the queue to Kafka."),
    ("a limit turned round", "The cron job runs at least once a day.", "The cron job runs at most once a day."),
    ("a quantifier on one side only", "Only admins can delete projects.", "Admins can delete projects."),
    ("once so, now so", "Owen was the release manager.", "Owen is the release manager."),
    ("a role that ended", "Siobhan used to be the release manager.", "Siobhan is the release manager."),
    ("a choice, not both", "Store sessions in Redis or Memcached.", "Store sessions in Redis and Memcached."),
    ("a second owner folded into the first", "The web team owns the checkout page and the mobile team owns the "
     "checkout API.", "The web team owns the checkout page and the checkout API."),
    ("a placeholder template turned round", "Image tags follow <service>.<env>.<version>.",
     "Image tags follow <env>.<service>.<version>."),
    ("a template's separators changed", "Image tags follow <service>.<version>.", "Image tags follow <service>-<version>."),
    ("steps in another order", "Deploy order: build -> test -> push -> deploy.",
     "Deploy order: build -> push -> test -> deploy."),
    ("steps in another order, in words", "Release: tag, then build, then publish.", "Release: build, then tag, then publish."),
    ("a rule and a recommendation", "PRs must have a linked ticket.", "PRs should have a linked ticket."),
    ("a contrast with its preposition turned round", "Snapshots are kept in eu-west-1, not in us-east-1.",
     "Snapshots are kept in us-east-1, not in eu-west-1."),
    ("a contrast after 'by' turned round", "Jobs are sharded by tenant, not by region.",
     "Jobs are sharded by region, not by tenant."),
    ("the two parties swapped in one wording", "We send the vendor the invoice file at 01:00 and the vendor sends "
     "back a receipt by 05:00.", "The vendor sends us the invoice file at 01:00 and we send back a receipt by 05:00."),
    ("on and off swapped in one wording", "New toggles default to off in dev and on in production.",
     "New toggles default to on in dev and off in production."),
    ("a comparison written without spaces", "Scale out when queue>200 for 3m.", "Scale out when queue<200 for 3m."),
    ("another case besides", "Owen also reviews the docs.", "Owen reviews the docs."),
    ("what is done and what should be", "Reviewers reply to a pull request within a day.",
     "Reviewers should reply to a pull request within a day."),
    ("another role for the same team", "The backend team reviews API changes with the frontend team.",
     "The backend team reviews API changes for the frontend team."),
    ("two teams and one", "Both teams review the API changes.", "The API changes are reviewed by the team."),
    ("a listed order changed", "Deploy stages: lint, test, package, ship.", "Deploy stages: test, lint, ship, package."),
    ("a comparison turned round", "Block the login if failed attempts > 5 in an hour.",
     "Block the login if failed attempts < 5 in an hour."),
    ("names said twice, exchanged", "The EU cluster serves EU customers and the US cluster serves US customers.",
     "The EU cluster serves US customers and the US cluster serves EU customers."),
]
# (a, b): the same fact in other words; every informative word of each is on the other side
SAME = [
    ("Use Redis for the session cache, not Memcached.", "Session caching: Redis, not Memcached."),
    ("Prefer pytest over unittest for new tests.", "New tests should use pytest, not unittest."),
    ("Siobhan mentors Owen on the payments code.", "Owen is mentored by Siobhan on the payments code."),
    ("The backup job runs every night at 2am.", "The backup job runs nightly at 02:00."),
    ("The API allows 100 requests a minute.", "The API allows 100 requests per minute."),
    ("We are migrating the orders database from MySQL to PostgreSQL.",
     "We are migrating the orders database to PostgreSQL from MySQL."),
    ("The Lisbon team is led by Siobhan.", "Siobhan leads the Lisbon team."),
    ("We build, then test, then deploy.", "Build first, then test, then deploy."),  # the same steps, one order
    ("Request flow: CDN -> web tier -> API; the admin UI never calls the API directly.",
     "Request flow: CDN -> web tier -> API. The admin UI never calls the API directly."),  # one wording, punctuation edited
    ("The US cluster serves US customers and the EU cluster serves EU customers.",
     "The EU cluster serves EU customers and the US cluster serves US customers."),  # two clauses trade places
]


@pytest.mark.parametrize("kind,a,b", APART, ids=[k for k, _, _ in APART])
def test_an_informative_word_on_one_side_keeps_the_two_apart(kind, a, b):
    for x, y in ((a, b), (b, a)):
        ev = compare(x, y, 0.95)  # as close in meaning as the model can say
        assert not ev.duplicate(), kind
        assert ev.conflict or ev.unsure


@pytest.mark.parametrize("a,b", SAME)
def test_the_same_words_in_another_frame_still_fold(a, b):
    assert unaligned(a, b) is None and unaligned(b, a) is None
    assert compare(a, b, 0.95).duplicate() and compare(b, a, 0.95).duplicate()


def test_a_placement_or_a_relation_turned_round_is_a_conflict_even_with_words_said_twice():
    a = "The cache sits in front of the database, so reads hit the cache first."
    b = "The database sits in front of the cache, so reads hit the database first."
    assert "another order" in compare(a, b, 0.96).conflict
    a, b = "Search depends on indexing: the search team relies on the indexing team.", \
        "The indexing team depends on the search team."
    assert compare(a, b, 0.86).conflict
    # owners swapped across two sentences whose head word ("team") is said in both
    a, b = "The payments team is on call this week; the platform team next week.", \
        "The platform team is on call this week; the payments team next week."
    assert "goes with" in compare(a, b, 0.97).conflict
    # a sentence split in two is no swap
    assert compare("Owen is on call this week and Siobhan is on call next week.",
                   "This week Owen is on call; next week it is Siobhan.", 0.9).conflict is None


def test_a_value_put_in_place_of_another_is_a_disagreement_and_a_new_verb_only_a_doubt():
    assert substitution("The billing service is owned by the payments team.",
                        "The billing service is owned by the platform team.") == "payments in one, platform in the other"
    assert "6" in substitution("The importer runs every night.", "The importer runs every 6 hours.")
    # another verb for the same thing may be a rewording: not sure, so two records, but no conflict shown
    ev = compare("The nightly job runs at 02:00 UTC.", "Every night the job starts at 02:00 UTC.", 0.93)
    assert not ev.duplicate() and ev.conflict is None and ev.unsure


def test_a_changed_owner_from_another_agent_is_its_own_record_and_a_conflict(brain, capsys):
    root = str(brain.root)
    assert main(["--brain", root, "brain", "remember", "--key", "billing-owner", "--profile", "claude",
                 "The billing service is owned by the payments team."]) == 0
    assert main(["--brain", root, "brain", "remember", "--key", "billing-owner", "--profile", "codex",
                 "The billing service is owned by the platform team."]) == 0
    out = capsys.readouterr().out
    assert "Remembered codex/billing-owner" in out and "Already known" not in out
    assert (brain.root / "memories/claude/billing-owner.json").exists()
    assert (brain.root / "memories/codex/billing-owner.json").exists()
    (conflict,) = find_conflicts(brain)
    assert {s.record.profile for s in conflict.sides} == {"claude", "codex"}
    assert "payments" in conflict.why and "platform" in conflict.why
    assert main(["--brain", root, "ask", "who owns the billing service?"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Two of your records disagree"))
    assert line.startswith("Two of your records disagree: Codex (")  # the newer first
    assert ": platform; Claude (" in line and line.endswith(": payments.")


def test_a_schedule_said_by_one_agent_only_is_not_folded_into_the_other(brain):
    brain.remember("Backups are copied from the primary region to the backup region.", key="backups",
                   profile="claude")
    rec = brain.remember("Backups are copied from the primary region to the backup region every night.",
                         key="backups", profile="gemini")
    assert rec.profile == "gemini" and (brain.root / "memories/gemini/backups.json").exists()


@pytest.mark.parametrize("first,second", [
    ("The web team owns the checkout page and the mobile team owns the checkout API.",
     "The web team owns the checkout page and the checkout API."),
    ("Image tags follow <service>.<env>.<version>.", "Image tags follow <env>.<service>.<version>."),
    ("The EU cluster serves EU customers and the US cluster serves US customers.",
     "The EU cluster serves US customers and the US cluster serves EU customers."),
], ids=["second owner dropped", "template turned round", "names exchanged"])
def test_two_agents_whose_words_bind_otherwise_keep_two_records(brain, first, second):
    brain.remember(first, key="fact", profile="claude")
    rec = brain.remember(second, key="fact", profile="codex")
    assert rec.profile == "codex" and rec.key == "fact"
    for profile, text in (("claude", first), ("codex", second)):
        on_disk = json.loads((brain.root / f"memories/{profile}/fact.json").read_text(encoding="utf-8"))
        assert on_disk["body"] == text and not on_disk.get("sources")


def test_a_no_said_in_one_word_is_a_doubt_and_a_plain_not_still_a_conflict():
    for plain, negated in (("The build server blocks pushes to main.", "The build server does not allow pushes to main."),
                           ("Guests are only let in after they sign the NDA.", "Guests are not let in until they sign the NDA.")):
        for x, y in ((plain, negated), (negated, plain)):
            ev = compare(x, y, 0.93)
            assert not ev.duplicate() and ev.conflict is None and "in a word" in ev.unsure
    ev = compare("Staging supports IPv6 traffic.", "Staging does not support IPv6 traffic.", 0.95)
    assert ev.conflict == "one is negated"
    ev = compare("Pushes to main are blocked.", "Pushes to main are not blocked.", 0.95)  # both say "blocked"
    assert ev.conflict == "one is negated"


def test_one_wording_edited_beyond_its_framing_is_two_records_and_no_claim():
    """The cost of being sure: a true rewording close to a copy of the other, with a word moved ("deploy
    staging" / "staging deploys"), is two records, and no disagreement is claimed between them."""
    a, b = "Deploy staging at 2pm and production at 4pm.", "Staging deploys at 2pm, production deploys at 4pm."
    for x, y in ((a, b), (b, a)):
        ev = compare(x, y, 0.95)
        assert not ev.duplicate() and ev.conflict is None and ev.unsure


@pytest.mark.parametrize("a,b", [
    ("Keep audit logs for fourteen days.", "Keep audit logs for 14 days."),          # a number in words
    ("Dashboards are materialised nightly.", "Dashboards are materialized nightly."),  # two spellings
    ("Request IDs go in the log line and not in labels.", "Request IDs go in the log line, not in labels."),
    ("We use Lucide for icons; Font Awesome was dropped.", "Lucide is used for icons; Font Awesome is no longer used."),
])
def test_one_thing_written_two_ways_is_never_called_a_disagreement(a, b):
    for x, y in ((a, b), (b, a)):
        assert compare(x, y, 0.95).conflict is None
