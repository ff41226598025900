"""A labelled set for name biasing: short sentences spoken by espeak-ng, each with its glossary.

Used by ``tests/voice/test_voice_biasing.py`` and ``benchmarks/bench_biasing.py``. Half the sentences
say a glossary name, half say none but hold words that sound a little like one ("the CI runner",
"what about", "show me", "the graph"), which is where biasing invents names. Each sentence is
spoken in another espeak-ng voice and speed; the WAVs are made into a temporary folder when
needed, never kept in the repository. Sentences alternate between the ``tune`` half and the
``held`` half (the held-out half was not looked at while choosing the merge's thresholds).

:func:`score` compares what was heard with what was said:

- names right: glossary names spelled right, at most as often as they were said;
- names invented: glossary names written more often than they were said (in a sentence without
  a name, any name written is invented);
- words damaged / fixed: ordinary words (not a name's) that the unbiased decode had right and
  the merged transcript has wrong, or the reverse;
- words changed outside a name: words of the merged transcript that differ from the unbiased
  decode and are not part of a glossary name (the merge must change nothing else).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import wave
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from tests.helpers.speech import words

GLOSSARIES = {
    "damage-control": "terms:\n  - name: Siobhan\n    aliases: [Shivon, Siivon, Chevonne, Shavon]\n"
                      "  - name: Tomasz\n    aliases: [Thomas]\n  - name: Owen\n    aliases: [Owens]\n"
                      "  - name: damage-control\n    aliases: [damage control]\n"
                      "  - name: dead letter queue\n    aliases: [dead letter Q, end letter Q]\n",
    "release": "terms:\n  - name: Ngozi\n  - name: Kowalczyk\n  - name: Siobhan\n  - name: Grafana\n  - name: Terraform\n",
    "payments": "terms:\n  - name: Priya\n  - name: Joaquim\n  - name: Ingeborg\n  - name: Niamh\n  - name: Postgres\n",
    "infrastructure": "terms:\n  - name: Hiroshi\n  - name: Rhiannon\n  - name: Oluwaseun\n  - name: Saoirse\n"
                      "  - name: Kubernetes\n",
}

SENTENCES = {
    "damage-control": [
        "The release bot pushes tags from the CI runner only.",
        "Siobhan restores the staging database every night.",
        "Tomasz, what about the webhook retries?",
        "Owen will add a dead letter queue instead of raising the cap.",
        "We own the alerting for the damage-control project.",
        "Show me the queue depth before lunch.",
        "The dead letter queue filled up overnight.",
        "Is it going to rain in Lisbon this afternoon?",
        "Please ask Siobhan and Owen to review the patch.",
        "What did we decide about the retry policy?",
        "Tomasz owns the deploy checklist now.",
        "Nobody knows why the cache was cold this morning.",
    ],
    "release": [
        "Kowalczyk, what about the release notes?",
        "Ngozi writes the runbook for the export job.",
        "The dashboards moved to Grafana last week.",
        "We plan the network in Terraform, not by hand.",
        "Can you check the logs again before the release?",
        "The graph on the main screen looks wrong.",
        "Siobhan and Ngozi agreed on the new format.",
        "The terrace door is locked after six.",
        "Call it a night, we can finish tomorrow.",
        "The nightly job goes slow when the disk is full.",
        "Ask Kowalczyk for the signing process.",
        "No one has touched the export job since Monday.",
    ],
    "payments": [
        "Priya moved the invoices to Postgres.",
        "Joaquim will review the refund backlog.",
        "Ingeborg updates the runbook by next Tuesday.",
        "Niamh owns the app store screenshots.",
        "The free tier is popular with students.",
        "We keep the post office box for paper mail.",
        "Nearly everyone joined the call on time.",
        "Priya and Joaquim disagree about the deadline.",
        "The iceberg chart shows most of the work is hidden.",
        "What about the refund backlog, is it done?",
        "The spreadsheets kept breaking, so we stopped using them.",
        "Ask Niamh about the release date.",
    ],
    "infrastructure": [
        "Hiroshi says the staging cluster runs out of disk.",
        "Rhiannon will tune the alert thresholds.",
        "Oluwaseun owns the backup restore test.",
        "Saoirse looked at the two options for the settings page.",
        "We run everything on Kubernetes now.",
        "The hero image on the landing page is too large.",
        "The rain and wind stopped the outdoor event.",
        "Sorry, the settings page is not ready yet.",
        "Keep the logs for fourteen days instead of thirty.",
        "Hiroshi and Rhiannon share the on call rota.",
        "Our cluster upgrade went fine on Thursday.",
        "Nothing else to report, thanks everyone.",
    ],
}

VOICES = (("en-us", 165), ("en-gb", 150), ("en-gb-scotland", 160), ("en-029", 145), ("en-us-nyc", 175),
          ("en-gb-x-rp", 140))


@dataclass(frozen=True)
class Spoken:
    n: int
    glossary: str  # a key of GLOSSARIES
    text: str
    voice: str
    speed: int

    @property
    def half(self) -> str:
        return "tune" if self.n % 2 == 0 else "held"


def sentences() -> list[Spoken]:
    out = []
    for g, lines in SENTENCES.items():
        for line in lines:
            voice, speed = VOICES[len(out) % len(VOICES)]
            out.append(Spoken(len(out), g, line, voice, speed))
    return out


def can_speak() -> bool:
    return shutil.which("espeak-ng") is not None and shutil.which("sox") is not None


def speak(text: str, out: Path, voice: str = "en-us", speed: int = 160, pause: float = 0.3) -> float:
    """``text`` as a 16 kHz mono 16-bit WAV at ``out``; returns its length in seconds."""
    raw = out.with_suffix(".raw.wav")
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), text], check=True, capture_output=True)
    subprocess.run(["sox", "-D", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(out), "pad", "0", str(pause)],
                   check=True, capture_output=True)
    raw.unlink()
    with wave.open(str(out)) as w:
        return w.getnframes() / w.getframerate()


def speak_lines(lines: list[tuple[str, str, int]], out: Path, pause: float = 0.5) -> float:
    """Several (text, voice, speed) lines joined, with ``pause`` seconds after each, into one WAV."""
    parts = []
    for i, (text, voice, speed) in enumerate(lines):
        part = out.with_name(f"{out.stem}.{i}.wav")
        speak(text, part, voice, speed, pause)
        parts.append(part)
    subprocess.run(["sox", "-D", *map(str, parts), str(out)], check=True, capture_output=True)
    for p in parts:
        p.unlink()
    with wave.open(str(out)) as w:
        return w.getnframes() / w.getframerate()


# --- scoring ------------------------------------------------------------------------------------


def name_words(names) -> set[str]:
    return {w for n in names for w in words(n)}


def count(text: str, name: str) -> int:
    heard, want = " ".join(words(text)), " ".join(words(name))
    return len(re.findall(rf"(?<!\S){re.escape(want)}(?!\S)", heard)) if want else 0


def _right(said: list[str], heard: list[str]) -> set[int]:
    """Indices of ``said`` that ``heard`` has, aligned in order."""
    out: set[int] = set()
    for block in SequenceMatcher(None, said, heard, autojunk=False).get_matching_blocks():
        out.update(range(block.a, block.a + block.size))
    return out


def score(said: str, unbiased: str, merged: str, names) -> dict:
    """The figures of one sentence (see the module's doc)."""
    names = list(names)
    nw = name_words(names)
    said_n = {n: count(said, n) for n in names}
    right = {"unbiased": 0, "merged": 0}
    invented = {"unbiased": 0, "merged": 0}
    for n in names:
        for which, text in (("unbiased", unbiased), ("merged", merged)):
            c = count(text, n)
            right[which] += min(c, said_n[n])
            invented[which] += max(0, c - said_n[n])
    plain_words = [w for w in words(said) if w not in nw]
    u = _right(plain_words, [w for w in words(unbiased) if w not in nw])
    m = _right(plain_words, [w for w in words(merged) if w not in nw])
    changed = 0
    uw, mw = words(unbiased), words(merged)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, uw, mw, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        added = [w for w in mw[j1:j2] if w not in nw]
        changed += len(added) + (0 if any(w in nw for w in mw[j1:j2]) else max(0, (i2 - i1) - len(added)))
    return {"names_said": sum(said_n.values()), "right_unbiased": right["unbiased"], "right_merged": right["merged"],
            "invented_unbiased": invented["unbiased"], "invented_merged": invented["merged"],
            "damaged": len(u - m), "fixed": len(m - u), "changed_outside_names": changed}
