"""Meeting notes as a user gets them: synthesized meetings through `aida meeting`'s own pipeline.

    python benchmarks/meeting_notes.py [--keep DIR]     (also run by bench_voice.py)

Four short meetings are spoken by espeak-ng, each line in another voice and at another speed,
joined with pauses into one 16 kHz WAV, then harvested with ``harvest_meeting`` (both decodes,
the glossary, the attendees, the offline distiller: default settings) into a fresh brain.
The script of each meeting says what a careful note-taker would keep: its decisions, its action
items (owner, thing, due date) and its people. The figures:

- names right: attendee names spelled right in the transcript page / times they were said;
- action items found: task records with the right owner / expected; of those, how many name
  the right thing and the right due date (speech-to-text may garble either);
- decisions found: records holding a decision's key words / expected;
- junk records: records that match nothing a note-taker would keep.

These meetings were written for this benchmark and never used to tune the pipeline.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATE = "2026-11-30"  # a Monday
VOICES = (("en-us", 165), ("en-gb", 150), ("en-gb-scotland", 160), ("en-029", 145))

MEETINGS = [
    {"title": "Payments weekly review", "attendees": ["Priya", "Joaquim", "Ingeborg"],
     "lines": ["Good afternoon. This is the payments weekly review.",
               "We decided to move the invoice exports to Postgres, because the spreadsheets kept breaking.",
               "Priya, can you take the refund backlog?",
               "Yes. Action item: Priya owns the refund backlog, due this Friday.",
               "Ingeborg will update the runbook by next Tuesday.",
               "Thanks, Joaquim. That's all for today."],
     "decisions": [["invoice"]],
     "actions": [("Priya", "refund", "2026-12-04"), ("Ingeborg", "runbook", "2026-12-08")]},
    {"title": "Mobile release", "attendees": ["Niamh", "Dmitri"],
     "lines": ["Morning all. A quick sync on the mobile release.",
               "We agreed to ship the release on Thursday, since the crash fix is verified.",
               "Dmitri will write the release notes by tomorrow.",
               "Action item: Niamh owns the app store screenshots, due next Monday.",
               "Thanks, Niamh. Thanks, Dmitri."],
     "decisions": [["ship", "thursday"]],
     "actions": [("Dmitri", "release notes", "2026-12-01"), ("Niamh", "screenshots", "2026-12-07")]},
    {"title": "Infrastructure", "attendees": ["Hiroshi", "Rhiannon", "Oluwaseun"],
     "lines": ["Let's start. Hiroshi says the staging cluster runs out of disk every week.",
               "We decided to keep logs for fourteen days instead of thirty, to save disk.",
               "Rhiannon will tune the alert thresholds by the end of the week.",
               "Action item: Oluwaseun owns the backup restore test, due next Wednesday.",
               "Great, thank you all."],
     "decisions": [["logs"]],
     "actions": [("Rhiannon", "alert thresholds", "2026-12-04"), ("Oluwaseun", "backup restore", "2026-12-09")]},
    {"title": "Design review", "attendees": ["Saoirse", "Thibault"],
     "lines": ["Saoirse and Thibault looked at the two options for the settings page.",
               "We chose the single page layout, because users found the tabs confusing.",
               "No action items today. Thanks, everyone."],
     "decisions": [["single page"]],
     "actions": []},
]


def synthesize(meeting: dict, out: Path) -> float:
    """The meeting as one 16 kHz mono WAV: each line another voice and speed, 0.5 s between lines."""
    parts = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, line in enumerate(meeting["lines"]):
            voice, speed = VOICES[i % len(VOICES)]
            raw = Path(tmp) / f"{i}.wav"
            subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), line], check=True,
                           capture_output=True)
            fixed = Path(tmp) / f"{i}-16k.wav"
            subprocess.run(["sox", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(fixed), "pad", "0", "0.5"],
                           check=True, capture_output=True)
            parts.append(str(fixed))
        subprocess.run(["sox", *parts, str(out)], check=True, capture_output=True)
    with wave.open(str(out)) as w:
        return w.getnframes() / w.getframerate()


def measure(keep: Path | None = None) -> dict:
    from brain_core import Brain
    from brain_core.voice.meeting import harvest_meeting
    from brain_core.voice.transcribe import WhisperTranscriber

    missing = [t for t in ("espeak-ng", "sox") if shutil.which(t) is None]
    if missing:
        return {"error": f"{' and '.join(missing)} not installed (apt-get install espeak-ng sox)"}
    work = Path(tempfile.mkdtemp(prefix="aida-meetings-")) if keep is None else keep
    brain = Brain.init(work / "brain")
    transcriber = WhisperTranscriber(device="cpu")
    rows = []
    for n, m in enumerate(MEETINGS):
        wav = work / f"meeting-{n}.wav"
        seconds = synthesize(m, wav)
        t0 = time.perf_counter()
        r = harvest_meeting(brain, wav, title=m["title"], date=DATE, attendees=m["attendees"], transcriber=transcriber)
        took = time.perf_counter() - t0
        page = (brain.root / r.transcript_path).read_text().split("\n---\n", 1)[-1]
        records = [json.loads((brain.root / "memories" / "meeting" / f"{k}.json").read_text()) for k in r.keys]
        said = sum(len(re.findall(rf"\b{re.escape(a)}\b", " ".join(m["lines"]))) for a in m["attendees"])
        right = sum(min(len(re.findall(rf"\b{re.escape(a)}\b", page)),
                        len(re.findall(rf"\b{re.escape(a)}\b", " ".join(m["lines"])))) for a in m["attendees"])
        tasks = [x for x in records if x["type"] == "task"]
        found = [a for a in m["actions"] if any(t.get("owner") == a[0] for t in tasks)]
        thing_right = [a for a in found if any(t.get("owner") == a[0] and a[1] in t["body"].lower() for t in tasks)]
        due_right = [a for a in found if any(t.get("owner") == a[0] and t.get("due") == a[2] for t in tasks)]
        decisions = [d for d in m["decisions"] if any(all(w in x["body"].lower() for w in d) for x in records)]
        wanted = [lambda x, a=a: x.get("owner") == a[0] for a in m["actions"]]
        wanted += [lambda x, d=d: all(w in x["body"].lower() for w in d) for d in m["decisions"]]
        junk = [x["body"] for x in records if not any(w(x) for w in wanted)]
        rows.append({"title": m["title"], "audio_s": round(seconds, 1), "harvest_s": round(took, 1),
                     "names_said": said, "names_right": right, "actions": len(m["actions"]), "actions_found": len(found), "actions_thing_right": len(thing_right),
                     "actions_due_right": len(due_right), "decisions": len(m["decisions"]),
                     "decisions_found": len(decisions), "junk": junk,
                     "records": [f"{x['type']}: {x['body']}" for x in records]})
    return {"rows": rows, "brain": str(brain.root) if keep else None}


def report(result: dict) -> str:
    if "error" in result:
        return f"meeting notes: not measured ({result['error']})"
    rows = result["rows"]
    lines = ["meeting notes (espeak-ng meetings, tiny.en on CPU, offline distiller, default settings):",
             f"  {'meeting':<24}{'audio s':>8}{'harvest s':>10}{'names':>9}{'actions':>9}{'thing ok':>9}{'due ok':>7}{'decisions':>11}{'junk':>6}"]
    for r in rows:
        lines.append(f"  {r['title']:<24}{r['audio_s']:>8}{r['harvest_s']:>10}{r['names_right']:>5}/{r['names_said']:<3}"
                     f"{r['actions_found']:>5}/{r['actions']:<3}{r['actions_thing_right']:>7}{r['actions_due_right']:>7}  "
                     f"{r['decisions_found']:>6}/{r['decisions']:<4}{len(r['junk']):>5}")
    tot = {k: sum(r[k] for r in rows) for k in ("names_said", "names_right", "actions", "actions_found",
                                                   "actions_thing_right", "actions_due_right", "decisions",
                                                   "decisions_found")}
    lines.append(f"  total: names right {tot['names_right']}/{tot['names_said']}, action items found "
                 f"{tot['actions_found']}/{tot['actions']} (thing right {tot['actions_thing_right']}, due date right "
                 f"{tot['actions_due_right']}), decisions "
                 f"{tot['decisions_found']}/{tot['decisions']}, junk records {sum(len(r['junk']) for r in rows)}")
    for r in rows:
        for rec in r["records"]:
            lines.append(f"    [{r['title']}] {rec}")
        for j in r["junk"]:
            lines.append(f"    [{r['title']}] JUNK: {j}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="keep the WAVs and the brain in this folder")
    ap.add_argument("--json", metavar="OUT", help="write the figures as JSON here")
    args = ap.parse_args()
    result = measure(args.keep)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
