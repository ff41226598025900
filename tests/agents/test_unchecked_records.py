"""What the offline distiller wrote is trusted less everywhere an agent or a person meets it: tagged
``harvest:offline`` with confidence 0.5, after the checked records in INDEX.md and in the session-start
block (so the budget drops it first), marked *unchecked* there and in recall, and `aida brain confirm`
takes the mark off once a person has read it."""

from __future__ import annotations

import json

from brain_core.agents.session_start import UNCHECKED, build
from brain_core.cli import main
from brain_core.harvest.run import sweep
from brain_core.lifecycle.common import value_of
from brain_core.lifecycle.tier_index import regenerate
from brain_core.marks import OFFLINE_CONFIDENCE, OFFLINE_TAG
from brain_core.recall.hybrid import RecallParams
from brain_core.records import Record
from tests.helpers.harvest_homes import make_homes
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)

T0 = 1_787_000_000.0
OFFLINE = "memories/claude/exponential-backoff-capped-six-attempts-total.json"


def _harvested(brain, tmp_path):
    """A brain holding one record the offline sweep lifted from a real-format Claude Code session, and
    two of the same project and type that a person wrote, one older and one newer than it."""
    sweep(brain, roots=make_homes(tmp_path / "agents", memory=False, mtime=T0), sources=("claude",),
          clock=lambda: T0 + 3600)
    brain.remember("Webhook handlers must be idempotent: deliveries repeat after a timeout.", type="decision",
                   key="idempotent-webhooks", profile="me", tags=["project:acme-billing"],
                   created="2026-01-01T10:00:00Z")
    brain.remember("Invoices are numbered per tenant, never globally.", type="decision", key="invoice-numbers",
                   profile="me", tags=["project:acme-billing"], created="2027-01-01T10:00:00Z")
    regenerate(brain)
    return json.loads((brain.root / OFFLINE).read_text())


def test_the_offline_record_is_marked_and_trusted_less(brain, tmp_path):
    rec = _harvested(brain, tmp_path)
    assert OFFLINE_TAG in rec["tags"] and "project:acme-billing" in rec["tags"]
    assert rec["confidence"] == OFFLINE_CONFIDENCE
    checked = Record.from_bytes((brain.root / "memories/me/idempotent-webhooks.json").read_bytes(), "x")
    assert checked.confidence == 1 and OFFLINE_TAG not in checked.tags
    # the nightly pass weighs confidence: the unchecked record is worth half a checked one of its age
    offline = Record.from_bytes((brain.root / OFFLINE).read_bytes(), OFFLINE)
    offline.created = checked.created
    now, params = T0 + 86400 * 30, RecallParams()
    assert abs(value_of(offline, None, now, params) - OFFLINE_CONFIDENCE * value_of(checked, None, now, params)) < 1e-9


def test_index_md_and_the_session_start_block_put_it_after_the_checked_ones(brain, tmp_path):
    _harvested(brain, tmp_path)
    index = (brain.root / "INDEX.md").read_text()
    # newest first among the decisions a person wrote, the offline one after both, whatever its date
    assert index.index("invoice-numbers") < index.index("idempotent-webhooks") < index.index(OFFLINE)

    block = build(brain.root, 6000, "acme-billing")
    ours = block.text[block.text.index("## This project: acme-billing"):]
    lines = [x for x in ours.splitlines() if x.startswith("- ")]
    assert len(lines) == 3 and OFFLINE in lines[-1] and lines[-1].endswith("*unchecked*")
    assert not any(x.endswith("*unchecked*") for x in lines[:-1])
    assert UNCHECKED.strip() in block.text  # the head says what the mark means

    # as the budget shrinks, the unchecked line is the first to go
    kept = {}
    for budget in range(block.chars, 200, -10):
        text = build(brain.root, budget, "acme-billing").text
        kept[budget] = (OFFLINE in text, "idempotent-webhooks" in text and "invoice-numbers" in text)
    assert all(both for offline, both in kept.values() if offline)
    assert any(both and not offline for offline, both in kept.values())


def test_a_brain_with_nothing_unchecked_has_no_legend(brain):
    brain.remember("Never force-push to main.", type="instruction", key="no-force-push", profile="me")
    regenerate(brain)
    block = build(brain.root, 6000, None)
    assert "no-force-push" in block.text and "unchecked" not in block.text


def test_recall_marks_it_and_confirm_takes_the_mark_off(brain, tmp_path, capsys):
    _harvested(brain, tmp_path)
    before = json.loads((brain.root / OFFLINE).read_text())
    args = ["--brain", str(brain.root), "brain"]
    assert main(args + ["recall", "exponential backoff retries"]) == 0
    out = capsys.readouterr().out
    heads = [x for x in out.splitlines() if x[:1].isdigit()]  # "1. [decision] key  (profile, date) ..."
    assert any("exponential-backoff" in x and x.endswith("[unchecked: read offline]") for x in heads)
    assert all("[unchecked" not in x for x in heads if "exponential-backoff" not in x)

    commits = brain.git.repo.git.rev_list("--count", "HEAD")
    assert main(args + ["confirm", "exponential-backoff-capped-six-attempts-total", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done == {"path": OFFLINE, "key": before["key"], "profile": "claude", "id": before["id"], "changed": True}
    after = json.loads((brain.root / OFFLINE).read_text())
    assert after["id"] == before["id"] and after["confidence"] == 1 and after["body"] == before["body"]
    assert after["tags"] == [t for t in before["tags"] if t != OFFLINE_TAG]
    assert int(brain.git.repo.git.rev_list("--count", "HEAD")) == int(commits) + 1  # one commit, INDEX.md in it
    index = (brain.root / "INDEX.md").read_text()
    assert index.index(OFFLINE) < index.index("idempotent-webhooks")  # now ordered as any record of its date
    block = build(brain.root, 6000, "acme-billing")
    assert "unchecked" not in block.text

    assert main(args + ["recall", "exponential backoff retries"]) == 0
    assert "[unchecked" not in capsys.readouterr().out
    assert main(args + ["confirm", OFFLINE]) == 0  # by path; already confirmed: nothing to do, nothing written
    assert "was not marked unchecked" in capsys.readouterr().out
    assert brain.git.repo.git.rev_list("--count", "HEAD") == str(int(commits) + 1)


def test_confirm_names_what_it_cannot_find(brain, capsys):
    assert main(["--brain", str(brain.root), "brain", "confirm", "no-such-record"]) != 0
    err = capsys.readouterr().err
    assert "No record has the key 'no-such-record'" in err and len(err.strip().splitlines()) == 1


def test_the_overview_counts_what_is_unchecked(brain, tmp_path, capsys):
    from brain_core.lifecycle.overview import overview

    _harvested(brain, tmp_path)
    o = overview(brain)
    assert o["records"] == 3 and o["unchecked"] == 1
    assert [r["unchecked"] for r in o["newest"] if r["path"] == OFFLINE] == [True]
    assert not any(r["unchecked"] for r in o["newest"] if r["path"] != OFFLINE)
    assert main(["--brain", str(brain.root), "brain", "overview"]) == 0
    out = capsys.readouterr().out
    assert "1 of them read offline and unchecked" in out and "aida brain review" in out
    assert next(x for x in out.splitlines() if "exponential-backoff" in x).endswith("; unchecked)")


def test_an_answer_resting_on_an_unchecked_record_says_so(brain, tmp_path, memory_keyring):
    """Offline, the cited line names it unchecked; with a model, the prompt marks it and asks the model
    to say so (what a local OpenAI-compatible server receives)."""
    from brain_core.answer.ask import ask
    from tests.helpers.fake_llm_server import FakeLLMServer

    _harvested(brain, tmp_path)
    question = "What did we decide about the webhook retry backoff?"
    offline = ask(brain, question, llm=None)
    line = next(x for x in offline.text.splitlines() if "exponential-backoff" in x)
    assert "unchecked: read offline" in line
    person = ask(brain, "How are invoices numbered per tenant?", llm=None)
    assert "invoice-numbers" in person.text and "unchecked" not in person.text

    with FakeLLMServer("Retries back off exponentially, capped at six; that record is unchecked.") as server:
        brain.config.set("llm.provider", "openai-compatible")
        brain.config.set("llm.base_url", server.url + "/v1")
        brain.config.set("llm.model", "test-model")
        answered = ask(brain, question)
        sent = [r for r in server.requests if r["method"] == "POST"][-1]["body"]["messages"]
    assert answered.provider == "openai-compatible" and "unchecked" in answered.text
    system, user = sent[0]["content"], sent[-1]["content"]
    assert "say it is unchecked" in system
    head = next(x for x in user.splitlines() if "exponential-backoff-capped-six-attempts-total (" in x)
    assert "unchecked: lifted from a session with no model" in head
