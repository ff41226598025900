"""One finding, one record: when the agent states the same cause twice in a session, naming the
same two things, the offline distiller keeps one record that says both (or drops a rewording that
says nothing more); two findings that share only one name stay two records."""

from __future__ import annotations

from brain_core.harvest.distill import extractive


def bodies(*replies: str) -> list[str]:
    turns = ["[user] The deploy job broke again, can you look?"]
    for reply in replies:
        turns += [f"[assistant] {reply}", "[user] ok, go on"]
    text = "\n\n".join(turns)
    return [r["body"] for r in extractive(text, profile="claude", source="claude:session:x")]


CAUSE = "Rockcraft by default tries to build inside an LXD container, but the CI runners don't have LXD configured."
FIX = "Rockcraft is failing because it requires LXD permissions in CI. The workaround is `--destructive-mode`, which builds on the host."


def test_two_statements_of_one_finding_become_one_record_saying_both():
    alone = bodies(CAUSE)
    assert len(alone) == 1, alone
    kept = bodies(CAUSE, FIX)
    assert len(kept) == 1, kept
    assert "LXD container" in kept[0] and "--destructive-mode" in kept[0], kept


def test_a_rewording_that_says_nothing_more_is_dropped():
    first = "SunGather can't find `registers-sungrow.yaml` because it runs from the wrong working directory."
    again = "The service is running, but SunGather can't find the `registers-sungrow.yaml` file."
    kept = bodies(first, again)
    assert kept == [first], kept


def test_findings_that_share_one_name_stay_apart():
    one = "The `list-indexes` query breaks because `pg_stat_user_indexes` doesn't have a `tablename` column."
    other = "The charmed-postgresql charm uses a snap, so `sudo -u postgres psql` doesn't work."
    kept = bodies(one, other)
    assert len(kept) == 2, kept
