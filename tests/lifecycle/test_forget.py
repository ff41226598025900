"""Forget, restore and correct: a wrong memory leaves recall, INDEX.md and consolidation, and comes back."""

from __future__ import annotations

import json

import pytest

from brain_core.cli import main
from brain_core.errors import InvalidInput
from brain_core.lifecycle.forget import forget, recall_archived, restore


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _keys(hits):
    return [h.record.key for h in hits]


@pytest.fixture
def deploy(brain):
    brain.remember("We deploy the billing service with blue-green switches on Fridays.", type="decision",
                   key="billing-deploy", profile="me", tags=["project:billing"])
    brain.remember("Webhook retries are capped at six attempts.", type="fact", key="webhook-retry-policy",
                   profile="codex")
    return brain


def test_forget_archives_in_one_commit_with_reason_date_and_who(deploy):
    before = deploy.head()
    moved = forget(deploy, "billing-deploy", reason="we stopped deploying on Fridays", by="cli")
    assert (moved.src, moved.dst) == ("memories/me/billing-deploy.json", "archive/memories/me/billing-deploy.json")
    assert not (deploy.root / moved.src).exists()
    data = json.loads((deploy.root / moved.dst).read_text())
    assert data["body"].startswith("We deploy the billing service")  # nothing lost
    mark = data["forgotten"]
    assert mark["reason"] == "we stopped deploying on Fridays" and mark["by"] == "cli"
    assert mark["path"] == moved.src and mark["at"].endswith("Z")
    log = deploy.git.run("log", "--format=%s", f"{before}..HEAD").stdout.splitlines()
    assert log == ["forget: memories/me/billing-deploy.json (we stopped deploying on Fridays)"]
    changed = deploy.git.run("show", "--name-status", "--format=", "HEAD").stdout.split()
    assert changed[0].startswith("R") and changed[1:] == [moved.src, moved.dst]  # a rename: history follows it
    assert deploy.git.uncommitted(["memories", "archive"]) == []

    # nothing recalls it; --archived does
    assert "billing-deploy" not in _keys(deploy.recall("how do we deploy billing", k=5))
    found = recall_archived(deploy, "how do we deploy billing")
    assert found and found[0].record.key == "billing-deploy" and found[0].path == moved.dst


def test_restore_undoes_forget(deploy):
    forget(deploy, "billing-deploy", reason="wrong")
    back = restore(deploy, "billing-deploy")
    assert back.dst == "memories/me/billing-deploy.json"
    data = json.loads((deploy.root / back.dst).read_text())
    assert "forgotten" not in data
    assert not (deploy.root / "archive/memories/me/billing-deploy.json").exists()
    assert _keys(deploy.recall("how do we deploy billing", k=3))[0] == "billing-deploy"
    assert deploy.git.run("log", "-1", "--format=%s").stdout.strip() == "restore: memories/me/billing-deploy.json"
    with pytest.raises(InvalidInput, match="Nothing archived"):
        restore(deploy, "billing-deploy")


def test_remember_over_a_forgotten_key_is_a_correction(deploy):
    moved = forget(deploy, "billing-deploy", reason="stale")
    rec = deploy.remember("We deploy the billing service with a canary on Tuesdays.", type="decision",
                          key="billing-deploy", profile="me", tags=["project:billing"])
    assert rec.supersedes == moved.record.id  # the history: what it corrects
    assert (deploy.root / moved.dst).exists()  # the forgotten version stays in the archive
    top = deploy.recall("how do we deploy billing", k=3)[0]
    assert top.record.key == "billing-deploy" and "canary" in top.record.body
    with pytest.raises(InvalidInput, match="newer record"):
        restore(deploy, "billing-deploy")  # never over the correction


def test_forgotten_stays_out_of_index_md_and_consolidation(deploy):
    from brain_core.lifecycle.consolidate import propose
    from brain_core.lifecycle.tier_index import regenerate

    for body in ("The nightly export job failed because the disk was full.",
                 "The nightly export job failed again: the disk was full.",
                 "Once more the nightly export job failed because its disk was full."):
        deploy.remember(body, type="event", profile="claude", key="export-failed")
    assert "billing-deploy" in regenerate(deploy).index_text
    forget(deploy, "billing-deploy")
    text = (deploy.root / "INDEX.md").read_text()  # forget itself regenerated it, in its one commit
    assert "billing-deploy" not in text and "webhook-retry-policy" in text
    assert "INDEX.md" in deploy.git.run("show", "--name-only", "--format=", "HEAD").stdout
    assert regenerate(deploy).written == ()

    proposals, _ = propose(deploy)
    before = {o.path for p in proposals for o in p.originals}
    assert len([p for p in before if p.startswith("events/")]) == 3
    gone = forget(deploy, sorted(before)[0])
    proposals, _ = propose(deploy)
    after = {o.path for p in proposals for o in p.originals}
    assert gone.src not in after and len(after) == 2


def test_errors_are_one_sentence_and_lose_nothing(deploy):
    deploy.remember("Other profile, same key.", key="billing-deploy", profile="claude")
    with pytest.raises(InvalidInput, match="--profile"):
        forget(deploy, "billing-deploy")
    with pytest.raises(InvalidInput, match="No record has the key"):
        forget(deploy, "no-such-key")
    with pytest.raises(InvalidInput, match="neither"):
        forget(deploy, "Not A Key!")
    with pytest.raises(InvalidInput, match="no record at"):
        forget(deploy, "../outside.json")
    assert (deploy.root / "memories/me/billing-deploy.json").exists()
    moved = forget(deploy, "memories/claude/billing-deploy.json", reason="token sk_live_51HxFAKEq2w3e4r5t6y7u8i9o0pFAKEFAKE00")
    assert moved.record.profile == "claude"
    assert "sk_live_51Hx" not in (deploy.root / moved.dst).read_text()
    assert "sk_live_51Hx" not in deploy.git.run("log", "-1", "--format=%B").stdout


def test_cli_forget_restore_round_trip(deploy, capsys):
    b = str(deploy.root)
    deploy.close()
    rc, out, _ = run(capsys, "--brain", b, "brain", "forget", "billing-deploy", "--reason", "moved to canaries")
    assert rc == 0 and "Forgot memories/me/billing-deploy.json" in out and "aida brain restore billing-deploy" in out
    rc, out, _ = run(capsys, "--brain", b, "brain", "recall", "--json", "how do we deploy billing")
    assert "billing-deploy" not in [h["key"] for h in json.loads(out)]
    rc, out, _ = run(capsys, "--brain", b, "brain", "recall", "--json", "--archived", "how do we deploy billing")
    arch = [h for h in json.loads(out) if h["key"] == "billing-deploy"]
    assert arch and arch[0]["path"].startswith("archive/")
    rc, out, err = run(capsys, "--brain", b, "brain", "restore", "billing-deploy")
    assert rc == 0 and "Restored memories/me/billing-deploy.json" in out
    rc, out, err = run(capsys, "--brain", b, "brain", "forget", "nothing-like-it")
    assert rc == 2 and err.startswith("aida: No record") and len(err.strip().splitlines()) == 1
