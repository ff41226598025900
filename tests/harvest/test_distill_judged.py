"""The readers' verdicts: on the offline records of the blind sessions (tests/fixtures/distill_judged.json,
read by benchmarks/bench_judged.py), each a sentence of a labelled blind6, blind7 or blind8 session, kept by the
distiller or drawn from the candidates it did not keep; and on the chooser's candidates of the training
sessions (tests/fixtures/distill_reader_labels.json, the labels benchmarks/train_selector.py fits on)."""

from __future__ import annotations

import json
from collections import Counter

from tests.helpers.distill_labelled import load
from tests.helpers.paths import FIXTURES


def test_the_verdicts_judge_sentences_of_the_labelled_blind_sessions():
    judged = json.loads((FIXTURES / "distill_judged.json").read_text(encoding="utf-8"))
    files = {c.file: c.split for split in ("blind6", "blind7", "blind8") for c in load(split)}
    kinds: Counter = Counter()
    rounds: Counter = Counter()
    for item in judged["items"]:
        assert files.get(item["file"]) == item["split"], item["file"]
        assert item["kind"] in ("kept", "control") and isinstance(item["keep"], bool) and item["why"].strip()
        assert len(item["text"]) >= 12
        rounds[(item["round"], item["kind"])] += 1
        if item["round"] == 1:
            kinds[(item["file"], item["kind"])] += 1
    assert sum(kinds.values()) >= 300
    for file in {f for f, _ in kinds}:
        assert kinds[(file, "kept")] >= kinds[(file, "control")], file  # a control for each kept one where the session had enough
    for r in {r for r, _ in rounds} - {1}:  # a later round: the records new since, beside as many controls
        assert rounds[(r, "control")] >= rounds[(r, "kept")] > 0, r
    assert len({(i["file"], i["text"]) for i in judged["items"]}) == len(judged["items"])  # each judged once


def test_the_training_verdicts_judge_candidates_of_the_training_sessions_only():
    labels = json.loads((FIXTURES / "distill_reader_labels.json").read_text(encoding="utf-8"))
    train = ("tune", "held_out", "fresh", "unseen", "blind2", "blind3", "blind4", "blind5")
    files = {c.file: c.split for split in train for c in load(split)}
    blind = {c.file for split in ("blind6", "blind7", "blind8") for c in load(split)}
    for item in labels["items"]:
        assert files.get(item["file"]) == item["split"] and item["file"] not in blind, item["file"]
        assert isinstance(item["keep"], bool) and item["why"].strip() and item["round"] in (1, 2, 3, 4)
        assert (item["round"] >= 3) == (item.get("kind") == "person"), item  # rounds 3 and 4: the person's records
    assert len({(i["file"], i["text"]) for i in labels["items"]}) == len(labels["items"]) >= 1500
    kept = sum(i["keep"] for i in labels["items"])
    assert 0.1 < kept / len(labels["items"]) < 0.4  # a reader who kept nearly all, or nothing, judged nothing


def test_the_second_reader_judged_texts_the_first_verdicts_hold():
    judged = json.loads((FIXTURES / "distill_judged.json").read_text(encoding="utf-8"))
    first = {(i["file"], i["text"]): i for i in judged["items"]}
    second = json.loads((FIXTURES / "distill_second_verdicts.json").read_text(encoding="utf-8"))["items"]
    assert len(second) >= 100 and len({(i["file"], i["text"]) for i in second}) == len(second)
    for item in second:
        had = first[(item["file"], item["text"])]  # a text the first verdicts judged, in the same split
        assert had["split"] == item["split"] and isinstance(item["keep"], bool) and item["why"].strip()
    assert {i["split"] for i in second} == {"blind6", "blind7", "blind8"}
