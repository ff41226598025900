"""Write-time abstracts: kept in the record file, returned by recall --json and MCP by default."""

from __future__ import annotations

import json

import pytest

from brain_core.agents.mcp_server import BrainTools
from brain_core.errors import InvalidInput
from brain_core.records import Record
from brain_core.text.abstract import make_abstract, needs_abstract, tokens

LONG = (
    "We moved the billing service from the old cron box to a queue worker in March. "
    "The cron box missed runs whenever it rebooted, and invoices went out a day late twice. "
    "The queue worker reads jobs from SQS and retries a failed invoice three times with backoff. "
    "Each retry is logged with the customer id so support can answer questions without paging anyone. "
    "The old cron entries were removed from the box, and the box itself was switched off in April. "
    "Alerts now fire when the queue holds more than five hundred jobs for ten minutes. "
    "The runbook in ops/billing.md says how to drain the queue by hand if the worker is down. "
    "We chose SQS over Redis because it needs no operations work and survives a region restart. "
    "Costs went down by about forty dollars a month once the cron box was gone."
)


def test_short_bodies_carry_no_abstract_and_long_ones_a_short_faithful_one():
    assert make_abstract("The deploy script lives in ops/deploy.sh.") is None
    assert not needs_abstract("One. Two. Three.")
    a = make_abstract(LONG)
    assert a and a.startswith("We moved the billing service")
    assert len(a.split()) <= 76 and tokens(a) < tokens(LONG) / 2
    assert all(s.strip() in LONG for s in a.rstrip(" …").split(". ") if s.strip())  # extractive: sentences of the body


def test_the_abstract_is_written_into_the_record_file_and_older_readers_keep_it(brain):
    rec = brain.remember(LONG, key="billing-queue-move", type="decision")
    data = json.loads((brain.root / "memories/me/billing-queue-move.json").read_text())
    assert data["abstract"] == rec.abstract == make_abstract(LONG)
    assert Record.from_dict(data).abstract == data["abstract"]
    short = brain.remember("Invoices go out on the first of the month.", key="invoice-day")
    on_disk = json.loads((brain.root / "memories/me/invoice-day.json").read_text())
    assert short.abstract is None and "abstract" not in on_disk
    # a reader that does not know the field keeps it in extra and writes it back unchanged
    older = dict(data)
    older.pop("abstract")
    assert Record.from_dict(older).to_dict().get("abstract") is None


def test_a_bad_abstract_field_is_a_named_problem(brain):
    data = json.loads(brain.remember(LONG, key="billing-queue-move").to_json())
    data["abstract"] = 7
    from brain_core.errors import MalformedRecord

    with pytest.raises(MalformedRecord, match="abstract"):
        Record.from_dict(data, "memories/me/x.json")


def test_recall_json_gives_abstracts_by_default_and_full_bodies_on_request(brain, capsys):
    from brain_core.cli import main

    brain.remember(LONG, key="billing-queue-move", type="decision")
    brain.remember("Invoices go out on the first of the month.", key="invoice-day")
    assert main(["--brain", str(brain.root), "brain", "recall", "--json", "why did billing move to a queue"]) == 0
    hits = {h["key"]: h for h in json.loads(capsys.readouterr().out)}
    assert hits["billing-queue-move"]["body"] == make_abstract(LONG)
    assert hits["billing-queue-move"]["depth"] == "abstract"
    assert "invoice-day" not in hits  # unrelated to the question: never padding
    assert main(["--brain", str(brain.root), "brain", "recall", "--json", "when do invoices go out"]) == 0
    short = {h["key"]: h for h in json.loads(capsys.readouterr().out)}
    assert short["invoice-day"]["depth"] == "full"  # a short record is its own abstract
    assert short["invoice-day"]["body"] == "Invoices go out on the first of the month."
    assert main(["--brain", str(brain.root), "brain", "recall", "--json", "--depth", "full",
                 "why did billing move to a queue"]) == 0
    full = {h["key"]: h for h in json.loads(capsys.readouterr().out)}
    assert full["billing-queue-move"]["body"] == LONG and "depth" not in full["billing-queue-move"]


def test_an_older_long_record_without_an_abstract_gets_one_at_recall(brain):
    rec = brain.remember(LONG, key="billing-queue-move")
    path = brain.root / "memories/me/billing-queue-move.json"
    data = json.loads(path.read_text())
    data.pop("abstract")
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    hit = brain.recall("billing queue worker", k=1)[0]
    assert hit.record.id == rec.id and hit.to_json(depth="abstract")["body"] == make_abstract(LONG)


def test_mcp_tools_take_a_depth(brain):
    brain.remember(LONG, key="billing-queue-move", type="decision")
    tools = BrainTools(brain)
    assert tools.recall("billing queue", k=1)[0]["body"] == make_abstract(LONG)
    assert tools.recall("billing queue", k=1, depth="full")[0]["body"] == LONG
    assert tools.recent(k=1)[0]["depth"] == "abstract"
    with pytest.raises(InvalidInput, match="depth is 'abstract'"):
        tools.recall("billing queue", depth="summary")


def test_recall_reads_each_long_hits_own_abstract_from_its_file(brain):
    """The catalog holds no abstract: recall reads it from the record file, for every long hit (also
    after a short one), makes one for a file without it or that cannot be read, and leaves short
    records and curated pages as they are."""
    brain.remember("The billing queue worker restarts every night.", key="queue-restart")  # short, ranks first
    brain.remember(LONG, key="billing-queue-move")
    other = LONG.replace("billing service", "billing ledger").replace("SQS", "Kafka")
    brain.remember(other, key="billing-ledger-move")
    own = "Hand-written summary: billing left the cron box for an SQS queue worker."
    path = brain.root / "memories/me/billing-queue-move.json"
    data = json.loads(path.read_text())
    data["abstract"] = own
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    (brain.root / "memories/me/billing-ledger-move.json").write_text("{ damaged after indexing")
    hits = {h.record.key: h for h in brain.recall("billing queue worker restarts", k=5)}
    assert list(hits)[0] == "queue-restart" and hits["queue-restart"].record.abstract is None
    assert hits["billing-queue-move"].record.abstract == own  # the file's, not one made now
    assert hits["billing-queue-move"].to_json(depth="abstract")["body"] == own
    assert hits["billing-ledger-move"].record.abstract == make_abstract(other)  # unreadable file: made now
