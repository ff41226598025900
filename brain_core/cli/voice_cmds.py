"""``aida transcribe``, ``aida meeting`` and ``aida glossary add | list``."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def register(sub, groups) -> None:
    p = sub.add_parser("transcribe", help="audio or video file -> text with [mm:ss] timestamps")
    p.add_argument("--json", action="store_true", help="print JSON: text, segments, model, device, replacements")
    p.add_argument("--glossary", metavar="FILE",
                   help="glossary.yaml to bias and correct with (default: the brain's, when there is one)")
    p.add_argument("--model", help="tiny.en (bundled), base, small, large-v3 or a model folder (default: voice.model)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), help="default: voice.device, else auto")
    p.add_argument("--no-vad", dest="vad", action="store_false", default=None,
                   help="transcribe silence too (voice activity filter off)")
    p.add_argument("--no-hotwords", dest="hotwords", action="store_false", default=None,
                   help="do not bias decoding towards the glossary's names; only correct afterwards")
    p.add_argument("audio", help="WAV, MP3, M4A, OGG, FLAC, or a video file with a sound track")
    p.set_defaults(func=cmd_transcribe)

    p = sub.add_parser("meeting", help="a meeting recording -> records (profile meeting) and a transcript page")
    p.add_argument("--title", help="default: from the file name")
    p.add_argument("--date", help="YYYY-MM-DD (default: the day the file was last modified)")
    p.add_argument("--attendees", default="", help="comma-separated names, e.g. Siobhan,Tomasz")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("audio", help="the recording (any format `aida transcribe` reads); the same file twice does nothing")
    p.set_defaults(func=cmd_meeting)

    g = sub.add_parser("glossary", help="the names transcripts should get right, and their mishearings")
    gsub = g.add_subparsers(dest="glossary_command", metavar="SUBCOMMAND")
    g.set_defaults(func=lambda a, c: g.print_help() or 2)
    p = gsub.add_parser("add", help="record that ALIAS is how NAME gets misheard (adds NAME if new)")
    p.add_argument("name", help="the right spelling, e.g. Siobhan")
    p.add_argument("alias", help="how it was misheard, e.g. Shivon")
    p.set_defaults(func=cmd_glossary_add)
    p = gsub.add_parser("list", help="the names and their aliases")
    p.add_argument("--json", action="store_true", help="print a JSON list of {name, aliases}")
    p.set_defaults(func=cmd_glossary_list)


def _glossary_for_transcribe(args, ctx):
    from brain_core.voice.glossary import GLOSSARY_FILE, Glossary, load_glossary

    if args.glossary:
        return load_glossary(args.glossary)
    candidate = Path(ctx.brain_path()) / GLOSSARY_FILE
    return load_glossary(candidate) if candidate.is_file() else Glossary()


def cmd_transcribe(args, ctx) -> int:
    from brain_core.voice.hear import hear
    from brain_core.voice.transcribe import WhisperTranscriber, stamp

    glossary = _glossary_for_transcribe(args, ctx)
    transcriber = WhisperTranscriber.from_config(ctx.config, model=args.model, device=args.device)
    threshold = ctx.config.get("voice.glossary_threshold", None)
    hotwords = bool(ctx.config.get("voice.hotwords", True)) if args.hotwords is None else args.hotwords
    heard = hear(transcriber, args.audio, glossary, vad=args.vad, hotwords=hotwords,
                 threshold=float(threshold) if threshold is not None else None)
    t = heard.transcript
    if args.json:
        print(json.dumps(heard.to_dict(), ensure_ascii=False, indent=2))
        return 0
    for s in heard.segments:
        print(f"{stamp(s.start)} {s.text}")
    loaded = f", model loaded in {t.load_seconds:.2f} s" if t.load_seconds else ""
    fixes = len(heard.replacements)
    n = len(heard.choices)
    bias = f"; biased decode used in {n} place{'s' if n != 1 else ''}" if heard.biasing == "aligned" else ""
    print(f"({t.describe()}{loaded}; {fixes} glossary correction{'s' if fixes != 1 else ''}{bias})", file=sys.stderr)
    return 0


class _Percent:
    """Percent of audio done on stderr: one updating line on a terminal, every tenth otherwise."""

    def __init__(self, label: str, stream=None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.last = -1

    def __call__(self, fraction: float) -> None:
        pct = int(round(max(0.0, min(1.0, fraction)) * 100))
        step = pct if self.tty else pct // 10 * 10
        if step <= self.last:
            return
        self.last = step
        if self.tty:
            self.stream.write(f"\r{self.label}: {pct:3d}%")
            if pct == 100:
                self.stream.write("\n")
        else:
            self.stream.write(f"{self.label}: {step}%\n")
        self.stream.flush()


def cmd_meeting(args, ctx) -> int:
    from brain_core.errors import ProviderError
    from brain_core.voice.meeting import harvest_meeting

    brain = ctx.open_brain()
    llm = None
    try:
        from brain_core.llm.factory import make_provider

        llm = make_provider(ctx.config)
    except ProviderError as e:
        print(f"aida: {e} The meeting is distilled offline instead.", file=sys.stderr)
    attendees = [a.strip() for a in args.attendees.split(",") if a.strip()]
    result = harvest_meeting(brain, args.audio, title=args.title, date=args.date, attendees=attendees, llm=llm,
                             progress=_Percent(f"transcribing {Path(args.audio).name}"))
    for note in result.notes:
        print(f"aida: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return 0
    if result.skipped:
        print(f"Already harvested ({result.title}, {result.date}): {result.transcript_path}; nothing to do.")
        return 0
    n = len(result.keys)
    keys = f": {', '.join(result.keys)}" if n else ""
    print(f"Remembered {n} record{'s' if n != 1 else ''} from \"{result.title}\" ({result.date}){keys}")
    print(f"Transcript: {result.transcript_path}")
    if result.heard and result.heard.replacements:
        fixes = ", ".join(f"{r.heard} -> {r.name}" for r in result.heard.replacements)
        print(f"Glossary corrections: {fixes}")
    return 0


def cmd_glossary_add(args, ctx) -> int:
    from brain_core.voice.glossary import add_alias

    glossary = add_alias(ctx.open_brain(), args.name, args.alias)
    term = glossary.find(args.name.strip())
    print(f"{term.name}: {', '.join(term.aliases)}" if term else "Glossary unchanged.")
    return 0


def cmd_glossary_list(args, ctx) -> int:
    from brain_core.voice.glossary import brain_glossary

    glossary = brain_glossary(ctx.open_brain())
    if args.json:
        print(json.dumps([{"name": t.name, "aliases": list(t.aliases)} for t in glossary.terms],
                         ensure_ascii=False, indent=2))
        return 0
    if not glossary.terms:
        print("The glossary is empty; add a name with `aida glossary add NAME ALIAS`.")
    for t in glossary.terms:
        print(f"{t.name}: {', '.join(t.aliases) if t.aliases else '(no aliases)'}")
    return 0
