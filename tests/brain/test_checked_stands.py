"""A checked record (a model's, a person's, or one a person confirmed) outranks a sentence the offline
distiller lifted: an offline write at its key leaves it as it is, an offline near-duplicate only links
to it, and a model's near-duplicate of an unchecked record checks it. Real brains, real writes."""

from __future__ import annotations

import subprocess

from brain_core.marks import OFFLINE_CONFIDENCE, OFFLINE_TAG
from tests.brain.test_dedupe import DATADOG

KEY = "billing-migrations"
REL = f"memories/claude/{KEY}.json"


def _commits(brain) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=brain.root, capture_output=True,
                              text=True).stdout)


def _item(body: str, *, offline: bool, profile: str = "claude", key: str = KEY, session: str = "s1") -> dict:
    return {"type": "decision", "key": key, "profile": profile, "body": body,
            "source": f"{profile}:session:{session}", "tags": ["project:acme"] + ([OFFLINE_TAG] if offline else []),
            **({"confidence": OFFLINE_CONFIDENCE} if offline else {})}


def test_an_offline_write_never_replaces_a_checked_record_at_its_key(brain):
    (checked,) = brain.remember_many([_item("Billing migrations run in one transaction: a half-applied one broke "
                                            "prod.", offline=False)])
    commits = _commits(brain)
    (kept,) = brain.remember_many([_item("Billing migrations, as I said, go in a transaction.", offline=True,
                                         session="s2")])
    assert kept.id == checked.id and kept.body.startswith("Billing migrations run in one transaction")
    on_disk = brain.get(REL)
    assert on_disk.id == checked.id and OFFLINE_TAG not in on_disk.tags and on_disk.confidence == 1
    assert _commits(brain) == commits  # nothing written, nothing committed


def test_a_checked_write_still_replaces_an_offline_record(brain):
    (lifted,) = brain.remember_many([_item("Billing migrations, as I said, go in a transaction.", offline=True)])
    (model,) = brain.remember_many([_item("Billing migrations run in one transaction: a half-applied one broke "
                                          "prod.", offline=False, session="s2")])
    on_disk = brain.get(REL)
    assert on_disk.id == model.id and on_disk.supersedes == lifted.id
    assert OFFLINE_TAG not in on_disk.tags and on_disk.confidence == 1


def test_an_offline_write_replaces_an_offline_record(brain):
    brain.remember_many([_item("Billing migrations, as I said, go in a transaction.", offline=True)])
    (newer,) = brain.remember_many([_item("Billing migrations go in a transaction, always.", offline=True,
                                          session="s2")])
    assert brain.get(REL).id == newer.id and OFFLINE_TAG in brain.get(REL).tags  # newest wins among unchecked


def test_a_model_writing_what_an_offline_record_says_checks_it(brain):
    (claude, lifted), (codex, model) = DATADOG[0], DATADOG[1]
    (first,) = brain.remember_many([_item(lifted, offline=True, profile=claude, key="datadog")])
    (linked,) = brain.remember_many([_item(model, offline=False, profile=codex, key="datadog-apm")])
    assert linked.id == first.id  # linked on write, not a second record
    rec = brain.get("memories/claude/datadog.json")
    assert OFFLINE_TAG not in rec.tags and rec.confidence == 1
    assert [s["profile"] for s in rec.extra["sources"]] == ["codex"]
    assert not (brain.root / "memories/codex/datadog-apm.json").exists()


def test_an_offline_near_duplicate_of_a_checked_record_leaves_it_checked(brain):
    (claude, model), (codex, lifted) = DATADOG[0], DATADOG[1]
    brain.remember_many([_item(model, offline=False, profile=claude, key="datadog")])
    brain.remember_many([_item(lifted, offline=True, profile=codex, key="datadog-apm")])
    rec = brain.get("memories/claude/datadog.json")
    assert OFFLINE_TAG not in rec.tags and rec.confidence == 1
    assert [s["profile"] for s in rec.extra["sources"]] == ["codex"]
