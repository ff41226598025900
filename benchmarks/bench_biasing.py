"""Name biasing on sentences it was not tuned on: names gained, names invented, words damaged.

    python benchmarks/bench_biasing.py [--cache DIR] [--show N] [--json]

48 short sentences (tests/helpers/spoken_names.py), four glossaries, spoken by espeak-ng in six voices
and speeds into a temporary folder, then heard the way every front door hears: ``hear()`` with
the sentence's glossary (decoded with and without the names as hotwords, merged word by word,
then the correction pass), tiny.en on CPU, default settings. The unbiased decode with the
correction pass alone is the baseline. Figures for the tune half and the held-out half:

- names right (unbiased -> merged) of names said; names invented where none was said;
- ordinary words damaged (right before, wrong after) and fixed; words changed outside a name.

``--cache DIR`` keeps each decode (by the WAV's sha256 and the hotwords), so the merge can be
measured again after a change without decoding again; the decodes are the model's, unchanged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers.spoken_names import GLOSSARIES, can_speak, score, sentences, speak  # noqa: E402


class Cached:
    """A transcriber that keeps what another one decoded, by audio and hotwords."""

    def __init__(self, inner, folder: Path):
        self.inner, self.folder = inner, folder
        folder.mkdir(parents=True, exist_ok=True)

    def transcribe(self, audio, *, hotwords=None, vad=None, progress=None):
        from brain_core.voice.transcribe import Segment, Transcript, load_audio

        samples = load_audio(audio)
        key = hashlib.sha256(samples.tobytes() + b"\0" + (hotwords or "").encode()).hexdigest()[:24]
        path = self.folder / f"{key}.json"
        if path.exists():
            d = json.loads(path.read_text())
            segs = tuple(Segment(s["start"], s["end"], s["text"]) for s in d["segments"])
            return Transcript(d["text"], segs, d["language"], d["model"], d["device"], d["compute_type"],
                              d["audio_seconds"], d["speech_seconds"], 0.0, d["transcribe_seconds"])
        t = self.inner.transcribe(samples, hotwords=hotwords, vad=vad, progress=progress)
        path.write_text(json.dumps(t.to_dict()))
        return t


def measure(cache: Path | None = None) -> dict:
    from brain_core.voice.glossary import parse_glossary
    from brain_core.voice.hear import hear
    from brain_core.voice.transcribe import WhisperTranscriber

    if not can_speak():
        return {"error": "espeak-ng or sox not installed (apt-get install espeak-ng sox)"}
    transcriber = WhisperTranscriber(device="cpu")
    if cache is not None:
        transcriber = Cached(transcriber, cache)
    rows = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aida-biasing-") as tmp:
        for s in sentences():
            wav = Path(tmp) / f"{s.n:02d}.wav"
            speak(s.text, wav, s.voice, s.speed)
            g = parse_glossary(GLOSSARIES[s.glossary])
            plain = hear(transcriber, wav, g, hotwords=False)
            merged = hear(transcriber, wav, g)
            rows.append({"n": s.n, "half": s.half, "glossary": s.glossary, "said": s.text, "voice": f"{s.voice} {s.speed}",
                         "unbiased": plain.text, "merged": merged.text,
                         "choices": [c.to_dict() for c in merged.choices],
                         **score(s.text, plain.text, merged.text, g.names)})
    return {"rows": rows, "seconds": round(time.perf_counter() - t0, 1)}


FIGURES = ("names_said", "right_unbiased", "right_merged", "invented_unbiased", "invented_merged", "damaged", "fixed",
           "changed_outside_names")


def totals(rows: list[dict]) -> dict:
    out = {k: sum(r[k] for r in rows) for k in FIGURES}
    out["sentences"] = len(rows)
    out["with_names"] = sum(1 for r in rows if r["names_said"])
    return out


def report(result: dict, show: int = 8) -> str:
    if "error" in result:
        return f"name biasing: not measured ({result['error']})"
    lines = ["name biasing (espeak-ng sentences, tiny.en on CPU, hear() with the sentence's glossary):",
             f"  {'half':<6}{'sentences':>10}{'names said':>11}{'right unbiased':>15}{'right merged':>13}"
             f"{'invented':>9}{'damaged':>8}{'fixed':>6}{'changed outside names':>22}"]
    for half in ("tune", "held", "all"):
        rows = [r for r in result["rows"] if half == "all" or r["half"] == half]
        t = totals(rows)
        lines.append(f"  {half:<6}{t['sentences']:>10}{t['names_said']:>11}{t['right_unbiased']:>15}{t['right_merged']:>13}"
                     f"{t['invented_merged']:>9}{t['damaged']:>8}{t['fixed']:>6}{t['changed_outside_names']:>22}")
    changed = [r for r in result["rows"] if r["unbiased"] != r["merged"]]
    lines.append(f"  sentences the merge changed: {len(changed)} of {len(result['rows'])} ({result['seconds']} s)")
    for r in changed[:show]:
        lines += [f"    [{r['half']} {r['glossary']}, {r['voice']}] said:     {r['said']}",
                  f"      unbiased: {r['unbiased']}", f"      merged:   {r['merged']}"]
    bad = [r for r in result["rows"] if r["invented_merged"] or r["damaged"] or r["changed_outside_names"]]
    for r in bad:
        lines += [f"    ! [{r['half']} {r['glossary']}] said:     {r['said']}",
                  f"      unbiased: {r['unbiased']}", f"      merged:   {r['merged']}"]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, help="keep and reuse decodes in this folder")
    ap.add_argument("--show", type=int, default=8, help="changed sentences to print verbatim")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = measure(args.cache)
    print(json.dumps(result, indent=2) if args.json else report(result, args.show))


if __name__ == "__main__":
    main()
