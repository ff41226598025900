"""A biased word enters only where it sounds like what was heard, and only in place of it.

Unit tests on the shapes tiny.en produced with a glossary (the issue's recordings and the
spoken set of tests/helpers/spoken_names.py), then real espeak-ng speech through the real model (slow)."""

from __future__ import annotations

import re

import pytest

from brain_core.voice.align import merge, sound_alike
from brain_core.voice.glossary import parse_glossary
from brain_core.voice.transcribe import Segment
from tests.helpers.spoken_names import GLOSSARIES, can_speak, score, sentences, speak

RELEASE = parse_glossary("terms:\n  - name: Siobhan\n  - name: Ngozi\n  - name: Kowalczyk\n")


def merged(plain: str, biased: str, glossary=RELEASE) -> tuple[str, tuple]:
    out, choices = merge((Segment(0.0, 3.0, plain),), (Segment(0.0, 3.0, biased),), glossary, 0.82)
    return " ".join(s.text for s in out), choices


def test_a_name_nothing_heard_sounds_like_is_not_put_in():
    text, choices = merged("the release bot pushes tags from the CI runer only",
                           "the release bot pushes tags from the Siobhan only")
    assert text == "the release bot pushes tags from the CI runer only" and choices == ()


def test_the_words_around_a_name_stay_as_heard():
    text, _ = merged("Carl Kasey, what about the export job?", "Kowalczyk worked about the export job?")
    assert "what about the export job?" in text and "worked" not in text
    text, choices = merged("Thanks Shivon, what about the export job?", "Thanks Siobhan worked about the export job?")
    assert text == "Thanks Siobhan, what about the export job?"  # the name, with the punctuation heard
    assert [(c.plain, c.names) for c in choices] == [("Shivon,", ("Siobhan",))]


def test_a_name_from_silence_or_said_twice_goes_in_at_most_once():
    g = parse_glossary("terms:\n  - name: Owen\n")
    text, choices = merged("We raise the cap.", "We raise the cap. Owen.", g)
    assert text == "We raise the cap." and choices == ()
    text, _ = merged("Action item. Oh, it owns the queue.", "Action item. Owen Owen is the queue.", g)
    assert text == "Action item. Owen, it owns the queue."  # "owns" stays: it is not where the name was


def test_sound_alike_keeps_consonants_and_rejects_extra_ones():
    assert sound_alike("Shivon", ["Siobhan"]) >= 0.7  # same consonant skeleton, S-V-N
    assert sound_alike("net letter Q", ["dead letter queue"]) >= 0.7
    assert sound_alike("Oh", ["Owen"]) >= 0.7  # an interjection for the name's first vowel
    for heard in ("CI runer", "runner", "the", "what"):
        assert sound_alike(heard, ["Siobhan", "Chevonne"]) < 0.55, heard
    assert sound_alike("Oh", ["Siobhan"]) < 0.55  # an interjection sounds only like a name of its vowel


def test_scoring_counts_invented_names_and_damaged_words():
    names = ["Siobhan", "Owen"]
    s = score("The release bot pushes tags from the CI runner only.", "The release part pushes tags from the CI runner only.",
              "The release part pushes tags from the Siobhan only.", names)
    assert s["invented_merged"] == 1 and s["damaged"] == 2 and s["changed_outside_names"] == 0
    s = score("Owen will add a queue.", "Oh, and we'll add a queue.", "Owen will add a queue.", names)
    assert s["right_merged"] == 1 and s["right_unbiased"] == 0 and s["changed_outside_names"] == 1  # "will"


def test_the_spoken_set_has_two_halves_and_several_glossaries():
    spoken = sentences()
    assert len(spoken) >= 40 and len(GLOSSARIES) >= 4
    for half in ("tune", "held"):
        mine = [s for s in spoken if s.half == half]
        assert len(mine) == len(spoken) // 2 and len({s.glossary for s in mine}) == len(GLOSSARIES)
        said = [s for s in mine if any(re.search(rf"\b{re.escape(n)}\b", s.text)
                                       for n in parse_glossary(GLOSSARIES[s.glossary]).names)]
        assert 0.3 * len(mine) <= len(said) <= 0.7 * len(mine)  # names said, and sentences without any
    assert len({(s.voice, s.speed) for s in spoken}) >= 4


# --- real speech through the real model (slow) --------------------------------------------------

PICKED = (0, 5, 6, 14, 18, 24, 33, 40)  # the CI runner, names that the bias gains, sentences with none


@pytest.mark.slow
def test_spoken_sentences_gain_names_and_invent_none(tmp_path):
    if not can_speak():
        pytest.skip("espeak-ng and sox are needed to speak the sentences")
    from brain_core.voice.hear import hear
    from brain_core.voice.transcribe import WhisperTranscriber

    t = WhisperTranscriber(device="cpu")
    totals: dict[str, int] = {}
    heard = []
    for s in (x for x in sentences() if x.n in PICKED):
        wav = tmp_path / f"{s.n}.wav"
        speak(s.text, wav, s.voice, s.speed)
        g = parse_glossary(GLOSSARIES[s.glossary])
        plain, both = hear(t, wav, g, hotwords=False), hear(t, wav, g)
        assert both.biasing == "aligned"
        heard.append((s.text, plain.text, both.text))
        for k, v in score(s.text, plain.text, both.text, g.names).items():
            totals[k] = totals.get(k, 0) + v
    assert totals["invented_merged"] == 0, heard
    assert totals["changed_outside_names"] == 0 and totals["damaged"] == 0, heard
    assert totals["right_merged"] >= totals["right_unbiased"], heard
