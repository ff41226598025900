"""How often the "only what was said" check (brain_core/harvest/grounded.py) holds a good record, and how
often it catches a name swapped in.

    .venv/bin/python benchmarks/bench_grounded.py [-v]

Four sets, each checked against the whole transcript its writer read (parsed and redacted):
- the second reader's memories (tests/fixtures/distill_second_reader.json: a careful reader, 24 labelled
  sessions); ``dev`` is the 12 sessions of tune, held_out and fresh, read while the check was written,
  ``test`` the 12 of unseen, blind2 and blind3;
- the recorded model answers (tests/fixtures/distill_model_answers.json, blind3 and blind4), checked
  against the text the model was sent;
- swaps: each second-reader memory with a name, its first name (as a whole word) replaced by a name from
  a memory of another session that this session never says; the figure is the share caught (a name
  whose every part the session says passes, and a lowercase word in prose is no name);
- swaps at a sentence's start: each second-reader memory with a sentence whose subject is "The <word>"
  or a capitalised name the session says, followed by a possessive or a finite verb ("Xcode is ...",
  "The runner pushes ...", "The user's rule ..."; the first such sentence), that subject replaced by
  a plain capitalised name from another session's memories that this session never says ("Dana
  pushes ..."); the figure is the share caught (the check reads a first word as a name only
  when what follows shows it acting, so "Dana pushes" is caught and "Installer output ..." is not).
Prints, per set, the memories checked and the share held, and with -v every memory held and why.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _transcript(tool: str, file: str) -> str:
    from brain_core.harvest.run import session_text
    from brain_core.harvest.sources import get
    from brain_core.redact import redact
    from tests.helpers.distill_labelled import REAL

    s = get(tool).parse(REAL / file)
    head = "\n".join(f"{k}: {v}" for k, v in (("Project", s.project), ("Title", s.title)) if v)
    return head + "\n\nTranscript:\n" + redact(session_text(s, offline=True)).text


def main() -> None:
    from brain_core.harvest.grounded import _COMMON as COMMON
    from brain_core.harvest.grounded import AGENTS, Said, names, unsaid

    ap = argparse.ArgumentParser()
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    fixtures = ROOT / "tests" / "fixtures"
    reader = json.loads((fixtures / "distill_second_reader.json").read_text(encoding="utf-8"))["sessions"]
    said, memories = {}, []
    for s in reader:
        said[s["file"]] = Said(AGENTS + "\n" + _transcript(s["tool"], s["file"]))
        part = "dev" if s["split"] in ("tune", "held_out", "fresh") else "test"
        memories += [(part, s["file"], m if isinstance(m, str) else m["body"]) for m in s["memories"]]
    for part in ("dev", "test"):
        rows = [(f, b) for p, f, b in memories if p == part]
        held = [(f, b, unsaid(b, said[f])) for f, b in rows]
        held = [h for h in held if h[2]]
        print(f"second reader {part:<5} memories {len(rows):>3}  held {len(held):>2}  ({len(held) / len(rows):.0%})")
        for f, b, why in held if args.verbose else ():
            print(f"    {f[:30]} {why}: {b[:120]!r}")

    recorded = fixtures / "distill_model_answers.json"
    if recorded.exists():
        from brain_core.harvest import session_file
        from brain_core.harvest.run import harvest_session
        from brain_core.harvest.sources import get
        from tests.helpers.distill_labelled import REAL, Replay, load

        replay = Replay(recorded)
        total = held_n = 0
        for c in load():
            if c.split not in replay.splits:
                continue
            src, path = get(c.tool), REAL / c.file
            # the sweep's path: parse, bound, redact, the call, the checks (what the write path would hold too)
            recs = harvest_session(src, session_file(c.tool, src.file_id(path), path), reason="file",
                                   llm=replay).records
            for r in recs:
                total += 1
                why = (r.get("extra") or {}).get("unsaid")
                held_n += bool(why)
                if why and args.verbose:
                    print(f"    {c.file[:30]} {why}: {r['body'][:120]!r}")
        stale = " (the prompt has changed since)" if replay.stale else ""
        print(f"model answers      records {total:>3}  held {held_n:>2}  ({held_n / max(1, total):.0%}){stale}")

    rng = random.Random(35)
    caught = tried = 0
    for _, f, body in memories:
        mine = names(body)
        if not mine:
            continue
        others = [n for _, g, b in memories if g != f for n in names(b) if not said[f].says(n) and len(n) > 3]
        if not others:
            continue
        new = rng.choice(others)
        swapped, done = re.subn(rf"(?<![\w/.-]){re.escape(mine[0])}(?![\w/-])", lambda _m: new, body, count=1)
        if not done:
            continue  # the name only inside a longer word
        tried += 1
        caught += _caught(new, swapped, said[f], mine[0], "swap", args.verbose)
    print(f"swapped names      memories {tried:>3}  caught {caught:>2}  ({caught / max(1, tried):.0%})")

    caught = tried = 0
    # a subject: "The <noun>" or a name the session says, then a possessive or a finite verb (a word in -s
    # or -ed, or an auxiliary), told by its shape alone, not by the check's own list
    subject = re.compile(r"(?:(?<=^)|(?<=[.!?] ))(?:The [a-z][\w-]*|[A-Z][A-Za-z]+)"
                         r"(?=(?:'s|\u2019s)\b| (?:[a-z]+(?:s|ed)|is|was|has|had|must|should|can|will|does|did|ran|set)\b)")
    for _, f, body in memories:
        m = subject.search(body)
        lead = m.group(0) if m else ""
        if not m or not lead.startswith("The ") and (lead.lower() in COMMON or not said[f].says(lead)):
            continue  # "In the repo, ..." has no subject to swap; a name the session never says is not a good record
        others = [n for _, g, b in memories if g != f for n in names(b)
                  if n.isalpha() and n[0].isupper() and n[1:].islower() and len(n) > 3 and not said[f].says(n)]
        if not others:  # a plain capitalised word ("Dana", "Mistral"): what only a sentence's start hides
            continue
        new = rng.choice(others)
        swapped = body[:m.start()] + new + body[m.end():]
        tried += 1
        caught += _caught(new, swapped, said[f], lead, "start swap", args.verbose)
    print(f"swapped at start   memories {tried:>3}  caught {caught:>2}  ({caught / max(1, tried):.0%})")


def _caught(new: str, swapped: str, said, old: str, kind: str, verbose: bool) -> bool:
    """Whether the check names ``new``, swapped in for ``old``; with ``verbose`` a miss is printed."""
    from brain_core.harvest.grounded import unsaid

    hit = new in unsaid(swapped, said)
    if verbose and not hit:
        print(f"    missed {kind} {old!r} -> {new!r}: {swapped[:100]!r}")
    return hit


if __name__ == "__main__":
    main()
