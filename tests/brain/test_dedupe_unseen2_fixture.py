"""The shape of tests/fixtures/dedupe_unseen2.jsonl, the second pair set, written after the "link only when sure"
predicate was tuned on the older sets and scored once.

Only the file is checked here (fields, labels, groups, consistency); the predicate is not run on it here
(see tests/fixtures/dedupe_unseen2.md).
"""

import json
import re
from collections import Counter, defaultdict

import pytest

from tests.helpers.paths import FIXTURES

FIELDS = ["group", "split", "dup", "kind", "a", "b"]
OLDER = ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl")
# kinds whose pairs say the same thing; every other kind is a hard negative
SAME_KINDS = {"rewording", "reorder"}
# kinds written on purpose with both labels: a converse verb with its arguments turned round keeps the
# meaning ("the ingest service sends raw events to the stream processor" / "the stream processor receives
# raw events from the ingest service"), the converse verb alone reverses it
BOTH_KINDS = {"converse"}
PERSON_NAMES = {"Siobhan", "Tomasz", "Owen"}
# every capitalised word that never occurs in lower case in the set: tools, products, places, days,
# acronyms and words that only start a sentence. A new one must not be a person's name.
PROPER_WORDS = PERSON_NAMES | {
    "ADRs", "API", "APIs", "Airflow", "Audit", "Backend", "Biome", "Brevo", "CDN", "CI", "CTO", "CVE",
    "CVEs", "Contractor", "Conventional", "CronJobs", "DB", "Dependabot", "Dublin", "Force", "Frankfurt",
    "Friday", "Fridays", "GCS", "HTML", "ID", "IP", "Incoming", "Interns", "JDK", "Java", "KB", "Kafka",
    "Kubernetes", "Locally", "Logs", "MB", "Mailchimp", "Mondays", "Nx", "Ohio", "Owners", "PITR", "PR",
    "PRs", "Postgres", "Postmark", "Prettier", "RC", "RabbitMQ", "Renovate", "S3", "SHA", "SLA", "SRE",
    "SSH", "SSO", "Saturdays", "SendGrid", "Sun", "Sunday", "Sundays", "TTLs", "Tailscale", "Terraform",
    "Terragrunt", "Thursday", "Turborepo", "UTC", "VM", "VPN", "Vault", "WAL", "Wednesday", "Wednesdays",
    "WireGuard", "Yarn", "You",
}


def _load(name):
    return [json.loads(line) for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def pairs():
    return _load("dedupe_unseen2.jsonl")


def test_every_line_has_the_fields_of_the_older_sets_in_their_order(pairs):
    assert list(_load("dedupe_roles.jsonl")[0]) == FIELDS
    for p in pairs:
        assert list(p) == FIELDS, p
        assert isinstance(p["group"], int) and p["group"] >= 2000, p
        assert p["split"] == "unseen2", p
        assert isinstance(p["dup"], bool), p
        assert isinstance(p["kind"], str) and re.fullmatch(r"[a-z]+(-[a-z]+)*", p["kind"]), p
        for side in ("a", "b"):
            assert isinstance(p[side], str) and p[side] == p[side].strip() and len(p[side]) >= 10, p
        assert p["a"] != p["b"], p


def test_size_and_balance(pairs):
    groups = {p["group"] for p in pairs}
    assert len(groups) >= 50
    assert len(pairs) >= 500
    assert sum(not p["dup"] for p in pairs) / len(pairs) >= 0.45
    assert sum(p["dup"] for p in pairs) >= 150
    # groups are numbered apart from the older sets (from 0 and from 1000)
    older = {p["group"] for name in OLDER for p in _load(name)}
    assert not groups & older


def test_labels_follow_the_kinds(pairs):
    labels = defaultdict(set)
    for p in pairs:
        labels[p["kind"]].add(p["dup"])
    for kind, seen in labels.items():
        if kind in BOTH_KINDS:
            assert seen == {True, False}, kind
        elif kind in SAME_KINDS:
            assert seen == {True}, kind
        else:
            assert seen == {False}, kind
    for kind in ("rewording", "contrast", "negation", "no-longer", "swap-roles", "swap-numbers",
                 "reverse-direction", "swap-order", "swap-places", "swap-owners", "changed-number",
                 "changed-owner", "changed-modifier", "frequency", "added-detail", "related-fact"):
        assert kind in labels, kind


def test_no_pair_is_listed_twice(pairs):
    seen = Counter(frozenset((p["a"], p["b"])) for p in pairs)
    assert [sorted(k) for k, n in seen.items() if n > 1] == []


def test_each_group_has_both_labels_and_keeps_to_itself(pairs):
    by_group = defaultdict(list)
    owner = {}
    for p in pairs:
        by_group[p["group"]].append(p)
        for side in ("a", "b"):
            assert owner.setdefault(p[side], p["group"]) == p["group"], f"{p[side]!r} is in two groups"
    for group, rows in by_group.items():
        assert {p["dup"] for p in rows} == {True, False}, group


def test_labels_agree_with_each_other(pairs):
    """Sentences linked by "same" form one fact; no "different" pair may join two sentences of one fact."""
    parent = {}

    def root(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in pairs:
        if p["dup"]:
            parent[root(p["a"])] = root(p["b"])
    clashes = [(p["a"], p["b"]) for p in pairs if not p["dup"] and root(p["a"]) == root(p["b"])]
    assert clashes == []


def test_no_sentence_from_the_three_older_sets(pairs):
    older = {p[side] for name in OLDER for p in _load(name)
             for side in ("a", "b")}
    mine = {p[side] for p in pairs for side in ("a", "b")}
    assert not mine & older


def test_no_person_names_beyond_the_projects_own(pairs):
    texts = {p[side] for p in pairs for side in ("a", "b")}
    words = {w for t in texts for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", t)}
    lower = {w for w in words if w[0].islower()}
    capitalised = {w for w in words if w[0].isupper() and w.lower() not in lower}
    assert capitalised - PROPER_WORDS == set(), "a new capitalised word: add it to PROPER_WORDS if it is no person's name"
