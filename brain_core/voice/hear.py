"""Transcription + glossary: the path every front door takes (question, ``aida transcribe``, meeting).

The glossary works at both ends: its names bias decoding (faster-whisper ``hotwords``), and the
correction pass fixes what is still misheard afterwards. Biasing is not free of risk: a prompt
can make Whisper skip speech it takes for already written. With tiny.en and the fixture meeting,
the same five names dropped the first half of the meeting in some spellings of the hotword
string and not in others (``initial_prompt`` did it too). So biased output is checked:

- always (free): if the biased transcript has fewer than ``MIN_RATE`` words per second of
  speech the voice filter found, it is decoded again without bias;
- with ``verify=True`` (files: meetings and ``aida transcribe``; costs a second decoding): it is
  always decoded again without bias and compared.

When the unbiased transcript holds clearly more words (the biased one has under ``MIN_KEPT`` of
them) the unbiased one is used, and the correction pass alone fixes the names. ``Heard.biasing``
says which happened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from .transcribe import Audio, Progress, Segment, Transcriber, Transcript, load_audio

if TYPE_CHECKING:
    from .glossary import Glossary, Replacement

MIN_KEPT = 0.85  # biased words / unbiased words below this = the bias lost speech
MIN_RATE = 1.0  # words per second of detected speech below this = suspicious (people say 2-3)
_WORDS = re.compile(r"\w+(?:'\w+)?")


@dataclass(frozen=True)
class Heard:
    """A transcript after the glossary's correction pass; ``transcript`` keeps what was decoded."""

    transcript: Transcript
    text: str
    segments: tuple[Segment, ...]
    replacements: tuple["Replacement", ...]
    biasing: str = "off"  # "hotwords" | "off" | "dropped: ..." (why the unbiased decoding won)
    decode_seconds: float = 0.0  # all decoding passes together

    def to_dict(self) -> dict[str, Any]:
        out = self.transcript.to_dict()
        out.update(
            text=self.text,
            raw_text=self.transcript.text,
            segments=[s.to_dict() for s in self.segments],
            replacements=[r.to_dict() for r in self.replacements],
            biasing=self.biasing,
            decode_seconds=round(self.decode_seconds, 3),
        )
        return out


def word_count(text: str) -> int:
    return len(_WORDS.findall(text))


def hear(transcriber: Transcriber, audio: Audio, glossary: "Glossary | None" = None, *,
         vad: bool | None = None, progress: Progress | None = None, threshold: float | None = None,
         hotwords: bool = True, verify: bool = False) -> Heard:
    """Transcribe (biased towards the glossary's names, checked), then run the correction pass.

    ``hotwords=False`` leaves decoding unbiased and relies on the correction pass alone (biasing
    can also pull an ordinary word towards a name: "going to rain" heard as "going terrain").
    The pass runs on the whole text (segments joined by one space), so a name split across two
    segments ("net letter | queue") is still found; replacement offsets are in that raw text.
    """
    from .glossary import DEFAULT_THRESHOLD, Glossary, correct

    glossary = glossary or Glossary()
    bias = glossary.hotwords() if hotwords else None
    if not bias:
        transcript = transcriber.transcribe(audio, hotwords=None, vad=vad, progress=progress)
        biasing, seconds = "off", transcript.transcribe_seconds
    else:
        transcript, biasing, seconds = _biased(transcriber, audio, bias, vad, progress, verify)
    c = correct(transcript.text, glossary, DEFAULT_THRESHOLD if threshold is None else threshold)
    segments = _corrected_segments(transcript.segments, c.replacements)
    return Heard(transcript, c.text, segments, c.replacements, biasing, seconds)


def _biased(transcriber: Transcriber, audio: Audio, bias: str, vad: bool | None, progress: Progress | None,
            verify: bool) -> tuple[Transcript, str, float]:
    if verify and not hasattr(audio, "dtype"):
        audio = load_audio(audio)  # decode the file once for both passes
    first = _scaled(progress, 0.0, 0.5) if verify else progress
    biased = transcriber.transcribe(audio, hotwords=bias, vad=vad, progress=first)
    seconds = biased.transcribe_seconds
    speech = biased.speech_seconds or biased.audio_seconds
    suspicious = speech >= 2.0 and word_count(biased.text) < MIN_RATE * speech
    if not (verify or suspicious):
        return biased, "hotwords", seconds
    plain = transcriber.transcribe(audio, hotwords=None, vad=vad, progress=_scaled(progress, 0.5, 1.0) if verify else None)
    seconds += plain.transcribe_seconds
    kept, full = word_count(biased.text), word_count(plain.text)
    if full and kept < MIN_KEPT * full:
        return plain, f"dropped: hotwords lost {100 - round(100 * kept / full)}% of the words", seconds
    return biased, "hotwords", seconds


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
