"""The correction pass's rules, one table each: where a name's words may be joined, the guards
of the fuzzy match and its threshold, which candidate wins a word, the case of what is written,
and what each replacement reports (``aida hear --json`` shows it)."""

from __future__ import annotations

import pytest

from brain_core.voice.glossary import Glossary, Term, correct, load_glossary
from tests.helpers import paths as test_paths

FIXTURES = test_paths.FIXTURES / "audio"


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return load_glossary(FIXTURES / "glossary.yaml")


# --- a name's words are joined by spaces and hyphens only, in the fuzzy pass too -------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("the damadge control budget", "the damage-control budget"),
        ("Damadge control starts now", "Damage-control starts now"),  # the text's first words
        ("Stop. Damadge control starts now", "Stop. Damage-control starts now"),  # right after a full stop
        ("We met. Then damadge control", "We met. Then damage-control"),  # the text's last words
        ("the ded letter queue filled", "the dead letter queue filled"),  # three words
        ("Stop. Ded letter queue. Go", "Stop. Dead letter queue. Go"),
        # the bug, with a misspelling so that only the fuzzy pass could join them
        ("Damadge. Control the budget", None),
        ("the damadge. Control the budget", None),
        ("the damadge, control the budget", None),
        ("We met. The damadge; control it", None),
        ("the ded. Letter queue", None),
        ("the ded letter. Queue", None),
        ("ded letter, queue", None),
    ],
)
def test_a_misheard_name_is_joined_only_across_spaces_and_hyphens(glossary, text, expected):
    c = correct(text, glossary)
    assert c.text == (text if expected is None else expected)
    assert bool(c.replacements) == (expected is not None)


# --- fuzzy matching: its guards and its threshold ------------------------------------------------------

CIARA = Glossary((Term("Ciara"),))
TOMASZ = Glossary((Term("Tomasz"),))


@pytest.mark.parametrize(
    "glossary_, text, threshold, expected",
    [
        # "names of at least five letters": a five-letter name is matched, and a word one letter short
        (CIARA, "Ciarra rang", 0.82, "Ciara rang"),
        (CIARA, "Cira rang", 0.82, "Ciara rang"),
        # ...but a word of three letters never is, however low the threshold
        (CIARA, "Cia rang", 0.7, "Cia rang"),
        (CIARA, "Ciarra rang", 0.7, "Ciara rang"),
        # the threshold is inclusive: 4 letters of 6, in order, score exactly 0.8
        (TOMASZ, "ask Tomz", 0.8, "ask Tomasz"),
        (TOMASZ, "ask Tomz", 0.81, "ask Tomz"),
        (TOMASZ, "ask Tomz", 0.82, "ask Tomz"),
        # the shortest and longest words that can reach 0.82 against six letters
        (TOMASZ, "ask Tomaz", 0.82, "ask Tomasz"),
        (TOMASZ, "ask Thomaasz", 0.82, "ask Tomasz"),
        # a name's letters in another order are not the name, even where their count alone would do
        (TOMASZ, "The moat was dry", 0.8, "The moat was dry"),
        # a short name (Owen) is never matched fuzzily, not even through a longer alias (Owens)
        (None, "The Bowens came too.", 0.82, "The Bowens came too."),
        # 1 switches fuzzy matching off: a known mishearing said in two pieces stays
        (None, "Then Shi von restored it.", 1.0, "Then Shi von restored it."),
        (None, "Then Shi von restored it.", 0.82, "Then Siobhan restored it."),
    ],
)
def test_fuzzy_guards_and_threshold(glossary, glossary_, text, threshold, expected):
    assert correct(text, glossary_ or glossary, threshold).text == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Because Siobahn said so", "Because Siobhan said so"),  # after a common word of the same length
        ("Sharing Siobahn's notes", "Sharing Siobhan's notes"),  # after an unrelated word of that length
        ("Siobhan emailed; Siobahn replied", "Siobhan emailed; Siobhan replied"),  # after the name itself
    ],
)
def test_every_misspelling_is_found_whatever_comes_before_it(text, expected):
    assert correct(text, Glossary((Term("Siobhan"),))).text == expected


def test_the_name_plus_an_english_ending_is_left_alone_even_next_to_an_alias():
    g = Glossary((Term("Alexandra", ("Alexandria",)),))
    assert correct("Alexandras notes", g).text == "Alexandras notes"  # close to the alias, still her notes
    assert correct("Alexandria said", g).text == "Alexandra said"
    assert correct("Alexandrea said", g).text == "Alexandra said"


def test_a_misspelt_word_that_ends_like_an_english_ending_is_still_a_mishearing():
    g = Glossary((Term("dead letter queue"),))
    assert correct("the dead lettors queue", g).text == "the dead letter queue"
    assert correct("the dead letters queue", g).text == "the dead letters queue"


# --- which candidate wins a word ------------------------------------------------------------------------


def test_the_closest_name_wins():
    g = Glossary((Term("Katarina"), Term("Katrina")))
    c = correct("Katrinna said", g)
    assert (c.text, c.replacements[0].score) == ("Katrina said", pytest.approx(14 / 15))


def test_the_longest_known_mishearing_wins():
    g = Glossary((Term("dead letter queue", ("dead letter Q",)), Term("Kew", ("Q",))))
    assert correct("the dead letter Q filled up", g).text == "the dead letter queue filled up"
    assert correct("the Q gardens", g).text == "the Kew gardens"


def test_a_name_spelled_right_claims_its_words_however_short():
    # the module's rule: a name already right is never rewritten as part of another term
    g = Glossary((Term("Kew"), Term("dead letter queue", ("dead letter Kew",))))
    assert correct("the dead letter Kew", g).replacements == ()
    assert correct("the dead letter Q", Glossary((Term("dead letter queue", ("dead letter Q",)),))).text == (
        "the dead letter queue")


def test_a_name_claims_its_own_words_only(glossary):
    assert correct("Siobhan told Thomas", glossary).text == "Siobhan told Tomasz"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("St. Clair called", "St. Clair called"),  # the name at the very start
        ("Ask St. Clair", "Ask St. Clair"),
        ("Clair called", "St. Clair called"),
        ("St. Clair called; Clair will call back", "St. Clair called; St. Clair will call back"),
    ],
)
def test_an_alias_inside_a_name_with_a_full_stop_is_not_doubled(text, expected):
    g = Glossary((Term("St. Clair", ("Clair",)),))
    assert correct(text, g).text == expected


# --- case --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("the cef pool", "the ceph pool"),
        ("Cef is down", "Ceph is down"),
        ("the CEF pool", "the CEPH pool"),
        ("the CF pool", "the CEPH pool"),  # two capitals: written in capitals
        ("the Q is full", "the Queue is full"),  # one capital is not an acronym: capitalised only
        ("the q is full", "the queue is full"),
    ],
)
def test_a_lower_case_term_follows_the_case_it_was_heard_in(text, expected):
    g = Glossary((Term("ceph", ("Cef", "CF")), Term("queue", ("Q",))))
    assert correct(text, g).text == expected


# --- what is reported -------------------------------------------------------------------------------------


def test_replacements_as_shown_by_json_output():
    g = Glossary((Term("Siobhan", ("Shivon",)),))
    c = correct("Siobahn and Shivon", g)
    assert [r.to_dict() for r in c.replacements] == [
        {"from": "Siobahn", "to": "Siobhan", "start": 0, "kind": "fuzzy", "score": 0.857},  # 12/14, 3 places
        {"from": "Shivon", "to": "Siobhan", "start": 12, "kind": "alias", "score": 1.0},
    ]


@pytest.mark.parametrize("text", ["", " "])
def test_empty_text_or_glossary_changes_nothing(glossary, text):
    assert correct(text, glossary).text == text
    assert correct(text, glossary).replacements == ()
    assert correct("Shivon said", Glossary()).text == "Shivon said"
    assert correct("Shivon said", Glossary()).replacements == ()
