"""Transcription + glossary: the path every front door takes (question, ``aida transcribe``, meeting).

The glossary works at both ends: its names bias decoding (faster-whisper ``hotwords``), and the
correction pass fixes what is still misheard afterwards. Biasing is not free of risk: it can pull
an ordinary word towards a name ("Is it going to rain" heard as "Is it going terrain") or make
Whisper skip speech (with tiny.en, ``initial_prompt`` once dropped half of a meeting). So when the
glossary has names, the audio is decoded twice, with and without them, and the two are merged
word by word (:mod:`.align`): the unbiased words are kept everywhere except where the biased ones
bring in a glossary name. ``Heard.choices`` lists each such place and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from brain_core.voice.transcribe import Audio, Progress, Segment, Transcriber, Transcript, load_audio

if TYPE_CHECKING:
    from brain_core.voice.align import Choice
    from brain_core.voice.glossary import Glossary, Replacement

_WORDS = re.compile(r"\w+(?:'\w+)?")


@dataclass(frozen=True)
class Heard:
    """A transcript after the glossary's correction pass; ``transcript`` keeps what was decoded."""

    transcript: Transcript
    text: str
    segments: tuple[Segment, ...]
    replacements: tuple["Replacement", ...]
    biasing: str = "off"  # "off" (no names to bias towards) | "aligned" (both decodes merged)
    decode_seconds: float = 0.0  # all decoding passes together
    choices: tuple["Choice", ...] = ()  # where the biased decode's words were taken, and why

    def to_dict(self) -> dict[str, Any]:
        out = self.transcript.to_dict()
        out.update(
            text=self.text,
            raw_text=self.transcript.text,
            segments=[s.to_dict() for s in self.segments],
            replacements=[r.to_dict() for r in self.replacements],
            biasing=self.biasing,
            biased_words=[c.to_dict() for c in self.choices],
            decode_seconds=round(self.decode_seconds, 3),
        )
        return out


def word_count(text: str) -> int:
    return len(_WORDS.findall(text))


def hear(transcriber: Transcriber, audio: Audio, glossary: "Glossary | None" = None, *,
         vad: bool | None = None, progress: Progress | None = None, threshold: float | None = None,
         hotwords: bool = True) -> Heard:
    """Transcribe (twice when the glossary has names: unbiased and biased, merged), then run the
    correction pass.

    ``hotwords=False`` decodes once, unbiased, and relies on the correction pass alone. The pass
    runs on the whole text (segments joined by one space), so a name split across two segments
    ("net letter | queue") is still found; replacement offsets are in that raw text.
    """
    from brain_core.voice.glossary import DEFAULT_THRESHOLD, Glossary, correct

    glossary = glossary or Glossary()
    threshold = DEFAULT_THRESHOLD if threshold is None else threshold
    bias = glossary.hotwords() if hotwords else None
    choices: tuple = ()
    if not bias:
        transcript = transcriber.transcribe(audio, hotwords=None, vad=vad, progress=progress)
        biasing, seconds = "off", transcript.transcribe_seconds
    else:
        transcript, choices, seconds = _aligned(transcriber, audio, bias, glossary, threshold, vad, progress)
        biasing = "aligned"
    c = correct(transcript.text, glossary, threshold)
    segments = _corrected_segments(transcript.segments, c.replacements)
    return Heard(transcript, c.text, segments, c.replacements, biasing, seconds, choices)


def recorrected(heard: Heard, glossary: "Glossary", threshold: float | None = None) -> Heard:
    """``heard`` with the correction pass run again with another glossary (a meeting's attendees)."""
    from dataclasses import replace

    from brain_core.voice.glossary import DEFAULT_THRESHOLD, correct

    c = correct(heard.transcript.text, glossary, DEFAULT_THRESHOLD if threshold is None else threshold)
    return replace(heard, text=c.text, segments=_corrected_segments(heard.transcript.segments, c.replacements),
                   replacements=c.replacements)


def _aligned(transcriber: Transcriber, audio: Audio, bias: str, glossary: "Glossary", threshold: float,
             vad: bool | None, progress: Progress | None) -> tuple[Transcript, tuple, float]:
    from dataclasses import replace

    from brain_core.voice.align import merge

    if not hasattr(audio, "dtype"):
        audio = load_audio(audio)  # decode the file once for both passes
    plain = transcriber.transcribe(audio, hotwords=None, vad=vad, progress=_scaled(progress, 0.0, 0.5))
    biased = transcriber.transcribe(audio, hotwords=bias, vad=vad, progress=_scaled(progress, 0.5, 1.0))
    segments, choices = merge(plain.segments, biased.segments, glossary, threshold)
    merged = replace(plain, text=" ".join(s.text for s in segments), segments=segments,
                     transcribe_seconds=plain.transcribe_seconds + biased.transcribe_seconds)
    return merged, choices, merged.transcribe_seconds


def _scaled(progress: Progress | None, lo: float, hi: float) -> Progress | None:
    if progress is None:
        return None
    return lambda fraction: progress(lo + (hi - lo) * fraction)


def _corrected_segments(segments: Sequence[Segment], replacements: Sequence["Replacement"]) -> tuple[Segment, ...]:
    """Apply replacements made on the joined text to the segments: a replacement that spans a
    boundary lands whole in the segment where it starts."""
    out: list[Segment] = []
    reps = sorted(replacements, key=lambda r: r.start)
    offset = 0
    skip_to = 0  # raw offset up to which text was consumed by a replacement
    for seg in segments:
        a, b = offset, offset + len(seg.text)
        pieces: list[str] = []
        pos = max(a, skip_to)
        for r in reps:
            if a <= r.start < b:
                pieces.append(seg.text[pos - a:r.start - a])
                pieces.append(r.name)
                pos = r.start + len(r.heard)
        pieces.append(seg.text[min(pos, b) - a:])
        skip_to = max(skip_to, pos)
        text = "".join(pieces).strip()
        if text:
            out.append(Segment(seg.start, seg.end, text))
        offset = b + 1
    return tuple(out)
