"""The reader's verdicts on the offline records (tests/fixtures/distill_judged.json, read by
benchmarks/bench_judged.py): each judges a sentence of a labelled blind6 or blind7 session, kept by
the distiller or drawn from the candidates it did not keep, as many of each per session."""

from __future__ import annotations

import json
from collections import Counter

from tests.helpers.distill_labelled import load
from tests.helpers.paths import FIXTURES


def test_the_verdicts_judge_sentences_of_the_labelled_blind_sessions():
    judged = json.loads((FIXTURES / "distill_judged.json").read_text(encoding="utf-8"))
    files = {c.file: c.split for split in ("blind6", "blind7") for c in load(split)}
    kinds: Counter = Counter()
    for item in judged["items"]:
        assert files.get(item["file"]) == item["split"], item["file"]
        assert item["kind"] in ("kept", "control") and isinstance(item["keep"], bool) and item["why"].strip()
        assert len(item["text"]) >= 12
        kinds[(item["file"], item["kind"])] += 1
    assert sum(kinds.values()) >= 300
    for file in {f for f, _ in kinds}:
        assert kinds[(file, "kept")] >= kinds[(file, "control")], file  # a control for each kept one where the session had enough
