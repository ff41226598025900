"""Action items as people say them: found, owner right, due right, junk, on spoken meetings.

    python benchmarks/bench_action_items.py [--cache DIR] [--json]

Eight short meetings (tests/helpers/spoken_meetings.py), four to tune on and four held out, 12 action
items in each half, said with and without "action item", as "<name> will", "<name> to ... by
<day>", as a question with a due date and an agreement, with fillers and with sentences cut in
two. Spoken by espeak-ng into a temporary folder and harvested with ``harvest_meeting`` the way
`aida meeting` does (both decodes, the attendees, the offline distiller, default settings) into a
fresh brain; the task records are scored against the items said.

The same meetings as written are scored first (no speech-to-text): what the reading finds on a
perfect transcript.

``--cache DIR`` keeps each decode (see bench_biasing.py) so that the same decodes can be scored
again after a change.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tests.helpers.spoken_meetings import DATE, MEETINGS, score, spoken_lines  # noqa: E402
from tests.helpers.spoken_names import can_speak, speak_lines  # noqa: E402


def measure(cache: Path | None = None) -> dict:
    from brain_core import Brain
    from brain_core.voice.meeting import harvest_meeting
    from brain_core.voice.transcribe import WhisperTranscriber

    if not can_speak():
        return {"error": "espeak-ng or sox not installed (apt-get install espeak-ng sox)"}
    transcriber = WhisperTranscriber(device="cpu")
    if cache is not None:
        from bench_biasing import Cached

        transcriber = Cached(transcriber, cache)
    rows = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aida-actions-") as tmp:
        brain = Brain.init(Path(tmp) / "brain")
        for n, m in enumerate(MEETINGS):
            wav = Path(tmp) / f"meeting-{n}.wav"
            seconds = speak_lines(spoken_lines(m), wav)
            r = harvest_meeting(brain, wav, title=m["title"], date=DATE, attendees=m["attendees"],
                                transcriber=transcriber)
            records = [json.loads((brain.root / "memories" / "meeting" / f"{k}.json").read_text()) for k in r.keys]
            tasks = [x for x in records if x["type"] == "task"]
            rows.append({"title": m["title"], "half": m["half"], "audio_s": round(seconds, 1),
                         "transcript": r.heard.text if r.heard else "",
                         "tasks": [f"{t.get('owner')} | {t.get('due')} | {t['body']}" for t in tasks],
                         "other_records": [f"{x['type']}: {x['body']}" for x in records if x["type"] != "task"],
                         **score(m, tasks)})
    return {"rows": rows, "seconds": round(time.perf_counter() - t0, 1)}


def measure_script() -> dict:
    """The same meetings as written (a perfect transcript): what the reading of action items
    finds when speech-to-text is not in the way."""
    from brain_core.voice.actions import action_items

    rows = []
    for m in MEETINGS:
        found = action_items(" ".join(m["lines"]), m["attendees"], DATE)
        tasks = [{**a.record(DATE, m["title"]), **a.record(DATE, m["title"])["extra"]} for a in found]
        rows.append({"title": m["title"], "half": m["half"], "audio_s": 0, "transcript": " ".join(m["lines"]),
                     "tasks": [f"{t.get('owner')} | {t.get('due')} | {t['body']}" for t in tasks], **score(m, tasks)})
    return {"rows": rows, "seconds": 0}


def report(result: dict, verbose: bool = True) -> str:
    if "error" in result:
        return f"action items: not measured ({result['error']})"
    lines = ["action items (espeak-ng meetings, tiny.en on CPU, harvest_meeting with default settings):",
             f"  {'half':<6}{'meetings':>9}{'items':>6}{'found':>6}{'owner right':>12}{'due right':>10}{'junk tasks':>11}"]
    for half in ("tune", "held", "all"):
        rows = [r for r in result["rows"] if half == "all" or r["half"] == half]
        tot = {k: sum(r[k] for r in rows) for k in ("items", "found", "owner_right", "due_right")}
        lines.append(f"  {half:<6}{len(rows):>9}{tot['items']:>6}{tot['found']:>6}{tot['owner_right']:>12}"
                     f"{tot['due_right']:>10}{sum(len(r['junk']) for r in rows):>11}")
    if verbose:
        for r in result["rows"]:
            lines.append(f"  [{r['half']}] {r['title']} ({r['audio_s']} s): {r['transcript']}")
            lines += [f"      task: {t}" for t in r["tasks"]]
            lines += [f"      junk: {j}" for j in r["junk"]]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, help="keep and reuse decodes in this folder")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="the figures only, no transcripts")
    args = ap.parse_args()
    script = measure_script()
    result = measure(args.cache)
    if args.json:
        print(json.dumps({"script": script, "spoken": result}, indent=2))
        return
    print(report(script, False).replace("action items (espeak-ng meetings, tiny.en on CPU, harvest_meeting with default settings):",
                                        "action items on the meetings as written (no speech-to-text):"))
    print(report(result, not args.quiet))


if __name__ == "__main__":
    main()
