"""The LoCoMo benchmark's offline replay (``--steps``, ``--tune``) must rank as ``Brain.recall`` does:
its settings are chosen on the replay and reported through the real path. A small conversation in
the data set's format (made up here, two sessions), written through the benchmark's own write path
into a real brain, asked through both."""

from __future__ import annotations

import importlib.util

import pytest

from brain_core.recall.hybrid import RecallParams
from tests.helpers.paths import REPO

ROOT = REPO


@pytest.fixture(scope="module")
def locomo():
    spec = importlib.util.spec_from_file_location("locomo_bench", ROOT / "benchmarks" / "locomo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def turns(session: int, lines: list[tuple[str, str]]) -> list[dict]:
    return [{"speaker": who, "dia_id": f"D{session}:{i}", "text": text} for i, (who, text) in enumerate(lines, 1)]


CONV = {
    "sample_id": "made-up",
    "conversation": {
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": turns(1, [
            ("Host", "Wow, what a lovely wedding photo! How long have you been married?"),
            ("Guest", "Five years already! Time flies."),
            ("Host", "That is wonderful. We planted tomatoes in the garden this weekend."),
            ("Guest", "Tomatoes need a lot of sun, keep them by the south wall."),
            ("Host", "What are you researching these days?"),
            ("Guest", "Adoption agencies, mostly. I want to give a child a home."),
        ]),
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": turns(2, [
            ("Guest", "The bakery on the corner closed last week."),
            ("Host", "Sad! Their rye bread was the best in town."),
            ("Guest", "I started a pottery class on Tuesdays."),
            ("Host", "Pottery sounds relaxing. Do you make bowls?"),
            ("Guest", "Mostly mugs so far, the bowls keep cracking."),
        ]),
    },
    "qa": [
        {"question": "How long has the guest been married?", "evidence": ["D1:2"], "category": 4},
        {"question": "What is the guest researching?", "evidence": ["D1:6"], "category": 4},
        {"question": "Where should the tomatoes go?", "evidence": ["D1:4"], "category": 4},
        {"question": "What does the guest make in the pottery class?", "evidence": ["D2:5"], "category": 4},
        {"question": "Which shop closed in June 2023?", "evidence": ["D2:1", "D2:2"], "category": 1},
    ],
}


def test_the_offline_replay_ranks_as_recall_does(locomo, tmp_path, embedder):
    cfg = locomo.make_config(tmp_path, {})
    tb, turn_of, _, _, _ = locomo.build_brains(CONV, tmp_path, cfg, embedder, False, with_sessions=False)
    try:
        items = locomo.collect(CONV, tb, turn_of, date_parse=True)
        for mode, settings in locomo.MODES.items():
            tb.config.data["recall"] = dict(settings)
            live = [[turn_of[h.record.id] for h in tb.recall(q["q"], k=50)] for q in locomo.questions(CONV)]
            replayed: list = []
            locomo.offline_recall(items, RecallParams(**settings), replayed)
            assert replayed == live, mode
            assert sorted(live[0]) == sorted(t["dia_id"] for s in (1, 2) for t in CONV["conversation"][f"session_{s}"]) \
                or mode != "hybrid"  # the vector stage brings every turn of so small a brain
    finally:
        tb.close()
