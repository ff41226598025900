"""Near-duplicates: one fact written by several agents folds into one answer; different decisions
about the same topic stay apart."""

from __future__ import annotations

from brain_core.dedupe import collapse_hits, compare

DATADOG = [
    ("claude", "We chose Datadog for monitoring because its APM tracing is better than the alternatives."),
    ("codex", "Decided: monitoring goes to Datadog, chosen for its better APM tracing."),
    ("gemini", "The team chose Datadog for monitoring; its APM tracing was better."),
]
GRAFANA = "We chose Grafana for monitoring the analytics cluster because it is cheaper."


def _three_agents(brain):
    for profile, body in DATADOG:
        brain.remember(body, type="decision", profile=profile, source=f"{profile}:session:s-{profile}",
                       created="2026-08-20T10:00:00Z")
    brain.remember(GRAFANA, type="decision", profile="me", source="cli")


def test_three_agents_fold_into_one_hit_listing_the_others(brain):
    _three_agents(brain)
    hits = brain.recall("which monitoring tool did we choose", k=6, touch=False)
    assert len(hits) == 4
    folded = collapse_hits(hits, brain.index)
    assert len(folded) == 2
    datadog = next(h for h in folded if "Datadog" in h.record.body)
    grafana = next(h for h in folded if "Grafana" in h.record.body)
    assert grafana.also == []
    others = {a["profile"] for a in datadog.also}
    assert others | {datadog.record.profile} == {"claude", "codex", "gemini"}
    assert all(a["path"].startswith("memories/") and a["source"].endswith(a["profile"]) for a in datadog.also)
    # the best-ranked member leads, and the order of the groups is the order of their leaders
    first = [h.path for h in hits]
    assert [h.path for h in folded] == sorted((h.path for h in folded), key=first.index)
    assert datadog.to_json()["also"] == datadog.also
    assert "also" not in grafana.to_json()


def test_collapse_leaves_the_input_alone_and_keeps_distinct_hits(brain):
    _three_agents(brain)
    hits = brain.recall("monitoring", k=6, touch=False)
    before = [(h.path, list(h.also)) for h in hits]
    collapse_hits(hits, brain.index)
    assert [(h.path, list(h.also)) for h in hits] == before
    assert collapse_hits([], brain.index) == []


def test_without_an_index_only_nearly_identical_wording_folds(brain):
    brain.remember("Staging deploys happen every Tuesday at 10:00.", profile="claude", source="claude:session:a")
    brain.remember("Staging deploys happen every Tuesday at 10:00!", profile="codex", source="codex:session:b")
    brain.remember(DATADOG[0][1], profile="claude")
    brain.remember(DATADOG[1][1], profile="codex")
    hits = brain.recall("staging deploys datadog monitoring", k=6, touch=False)
    assert len(hits) == 4
    assert len(collapse_hits(hits)) == 3  # the two Datadog paraphrases need the vectors


def test_the_predicate_keeps_different_decisions_apart():
    assert compare(DATADOG[0][1], DATADOG[1][1], 0.9).duplicate()
    ev = compare(DATADOG[0][1], GRAFANA, 0.9)
    assert not ev.duplicate() and "datadog" in ev.conflict and "grafana" in ev.conflict
    assert "numbers" in compare("Production deploys need 2 approvals.", "Production deploys need 3 approvals.",
                                0.97).conflict
    assert compare("We use Jenkins for CI.", "We no longer use Jenkins for CI.", 0.9).conflict == "one is negated"
    assert compare("Use pytest, not unittest, for all tests.", "Write every test with pytest rather than unittest.",
                   0.9).duplicate()


def test_labelled_pairs_held_out(embedder):
    """The shipped thresholds on the half of the pair set they were not chosen on."""
    import json
    from pathlib import Path

    import numpy as np

    pairs = [json.loads(x) for x in (Path(__file__).parent / "fixtures" / "dedupe_pairs.jsonl").read_text().splitlines()]
    held = [p for p in pairs if p["split"] == "held"]
    texts = sorted({p["a"] for p in held} | {p["b"] for p in held})
    vecs = dict(zip(texts, embedder.embed(texts)))
    said = [(p, compare(p["a"], p["b"], float(np.dot(vecs[p["a"]], vecs[p["b"]]))).duplicate()) for p in held]
    tp = sum(1 for p, d in said if d and p["dup"])
    fp = sum(1 for p, d in said if d and not p["dup"])
    assert tp / (tp + fp) >= 0.95
    assert tp / sum(p["dup"] for p in held) >= 0.8
    # another name or the opposite is never the same fact
    assert not any(d for p, d in said if p["kind"] in ("name", "negation"))
