"""A meeting recording into the brain: transcript, glossary, distilled records, a Markdown page.

``harvest_meeting(brain, audio)``:

1. hashes the audio (sha256 of the file's bytes): the hash names the meeting, so the same
   recording dropped twice (renamed, copied, dropped again on the tray) is recognised and
   nothing is transcribed or written the second time; ``harvest/meetings.json`` lists every
   recording already harvested, with the transcript it became and the keys of its records;
2. transcribes it with the glossary's names as hotwords and runs the correction pass;
3. hands the corrected text to the harvest distiller (with the meeting's title, date and
   attendees) which proposes up to five records;
4. writes them through the one write path with profile ``meeting`` and source
   ``meeting:<sha256>``, keeps the transcript as ``meetings/<date>-<slug>.md`` (front matter:
   title, date, attendees, audio hash, the records' keys) and notes the hash in the marker file.

Transcribing and distilling (seconds to minutes) happen outside the brain's write lock; the
writes happen under it, after a second look at the marker in case another process finished the
same recording meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, replace
from datetime import date as Date
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Sequence

from brain_core.errors import AudioError, BrainError, InvalidInput, ProviderError
from brain_core.text.slug import slugify
from brain_core.voice.actions import action_items
from brain_core.voice.align import normalise_numbers
from brain_core.voice.glossary import brain_glossary
from brain_core.voice.hear import Heard, hear, recorrected
from brain_core.voice.people import attendee_glossary
from brain_core.voice.transcribe import Progress, Transcriber, WhisperTranscriber, stamp

PROFILE = "meeting"
MARKER = "harvest/meetings.json"
MAX_RECORDS = 5

Distiller = Callable[..., list]  # distill(text, *, profile, source, context, llm=None) -> list[dict]


@dataclass(frozen=True)
class MeetingResult:
    sha256: str
    skipped: bool  # True: this recording was harvested before; nothing was done
    transcript_path: str  # relative to the brain
    keys: tuple[str, ...]
    title: str
    date: str
    heard: Heard | None = None  # None when skipped
    notes: tuple[str, ...] = ()  # what the user should know (the model failed, the offline distiller ran)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"sha256": self.sha256, "skipped": self.skipped, "transcript": self.transcript_path,
                               "keys": list(self.keys), "title": self.title, "date": self.date,
                               "notes": list(self.notes)}
        if self.heard is not None:
            t = self.heard.transcript
            out.update(model=t.model, device=t.device, compute_type=t.compute_type, biasing=self.heard.biasing,
                       audio_seconds=round(t.audio_seconds, 2), replacements=[r.to_dict() for r in self.heard.replacements])
        return out


def audio_sha256(path: str | Path) -> str:
    p = Path(path).expanduser()
    h = hashlib.sha256()
    try:
        with p.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except FileNotFoundError:
        raise AudioError(f"The audio file {p} does not exist; check the path.") from None
    except IsADirectoryError:
        raise AudioError(f"{p} is a folder, not an audio file; give the path of one recording in it.") from None
    except OSError as e:
        raise AudioError(f"The audio file {p} cannot be read ({e.strerror or e.__class__.__name__}); check its permissions.") from e
    return h.hexdigest()


def harvested(brain: Any) -> dict[str, dict[str, Any]]:
    """The marker file: sha256 -> {transcript, keys, title, date, at}."""
    text = brain.read_text(MARKER)
    if not text:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise BrainError(f"{MARKER} is not valid JSON ({e.msg}); fix it or restore it with git.") from e
    if not isinstance(data, dict) or not isinstance(data.get("meetings", {}), dict):
        raise BrainError(f"{MARKER} should hold {{\"meetings\": {{sha256: ...}}}}; fix it or restore it with git.")
    return data.get("meetings", {})


def harvest_meeting(
    brain: Any,
    audio: str | Path,
    *,
    title: str | None = None,
    date: str | None = None,
    attendees: Sequence[str] = (),
    transcriber: Transcriber | None = None,
    distiller: Distiller | None = None,
    llm: Any = None,
    progress: Progress | None = None,
) -> MeetingResult:
    """Turn a recording into records and a transcript page; a recording seen before does nothing."""
    path = Path(audio).expanduser()
    sha = audio_sha256(path)
    seen = harvested(brain).get(sha)
    if seen is not None:
        return _skipped(sha, seen)

    from brain_core.redact import redact

    meeting_date = _meeting_date(date, path)
    # Said aloud or typed in --title/--attendees, a secret is masked before it reaches the distiller,
    # the page, its front matter, its file name, the marker file or a commit message.
    title = redact((title or "").strip() or _title_from(path)).text
    people = [redact(a.strip()).text for a in attendees if a and a.strip()]
    distiller = distiller or _default_distiller()
    transcriber = transcriber or WhisperTranscriber.from_config(brain.config)
    threshold = brain.config.get("voice.glossary_threshold", None)
    threshold = float(threshold) if threshold is not None else None
    glossary = attendee_glossary(brain_glossary(brain), people, "")  # attendees are hotwords too
    heard = hear(transcriber, path, glossary, progress=progress,
                 hotwords=bool(brain.config.get("voice.hotwords", True)), threshold=threshold)
    if people:  # names that sound like an attendee ("Shivon" for Siobhan) are corrected too
        heard = recorrected(heard, attendee_glossary(glossary, people, heard.transcript.text), threshold)
    heard = replace(heard, text=normalise_numbers(heard.text),
                    segments=tuple(replace(s, text=normalise_numbers(s.text)) for s in heard.segments))
    if not heard.text.strip():
        raise AudioError(f"No speech was heard in {path.name}; nothing was remembered.")
    spoken = redact(heard.text).text

    source = f"meeting:{sha}"
    context = {"kind": "meeting", "title": title, "date": meeting_date, "attendees": people,
               "audio": redact(path.name).text, "duration_seconds": round(heard.transcript.audio_seconds, 1)}
    notes: list[str] = []
    try:
        proposed = distiller(spoken, profile=PROFILE, source=source, context=context, llm=llm)
    except ProviderError as e:
        if llm is None:
            raise
        # The transcript cost minutes and the recording is not coming back: keep it, distilled offline.
        notes.append(f"{e} The meeting was distilled offline instead.")
        proposed = distiller(spoken, profile=PROFILE, source=source, context=context, llm=None)
    tasks = [a.record(meeting_date, title) for a in action_items(spoken, _people(people, glossary), meeting_date)]
    items = _records([*tasks, *_kept(proposed, tasks)], source)

    with brain.lock():
        seen = harvested(brain).get(sha)
        if seen is not None:  # another process finished the same recording while we listened
            return _skipped(sha, seen)
        rel = _free_path(brain, page_path(meeting_date, title))
        for item in items:
            item["extra"] = {**(item.get("extra") or {}), "transcript": rel, "meeting_date": meeting_date}
        records = brain.remember_many(items, message=f"meeting: {title} ({meeting_date})") if items else []
        keys = tuple(r.key for r in records if not isinstance(r.extra.get("quarantine"), dict))  # held ones: in quarantine/
        page = transcript_page(heard, title=title, date=meeting_date, attendees=people, sha256=sha,
                               audio_name=path.name, keys=keys, speakers=_people(people, glossary))
        rel = brain.write_text(rel, page, f"meeting transcript: {title} ({meeting_date})") \
            .relative_to(Path(os.path.realpath(brain.root))).as_posix()
        marker = harvested(brain)
        marker[sha] = {"transcript": rel, "keys": list(keys), "title": title, "date": meeting_date,
                       "at": datetime.now().astimezone().isoformat(timespec="seconds")}
        brain.write_text(MARKER, json.dumps({"meetings": marker}, indent=2, sort_keys=True) + "\n",
                         f"harvest: meeting {sha[:12]}")
    return MeetingResult(sha, False, rel, keys, title, meeting_date, heard, tuple(notes))


def transcript_page(heard: Heard, *, title: str, date: str, attendees: Sequence[str], sha256: str,
                    audio_name: str, keys: Sequence[str], speakers: Sequence[str] = ()) -> str:
    """The Markdown kept in the brain: front matter a program can read, lines a person can. Every
    text in it (title, attendees, file name, what was said) is masked for secrets."""
    import yaml

    from brain_core.redact import redact

    t = heard.transcript
    title = redact(title).text
    front = {
        "title": title,
        "date": date,
        "attendees": [redact(a).text for a in attendees],
        "audio": redact(audio_name).text,
        "audio_sha256": sha256,
        "duration_seconds": round(t.audio_seconds, 1),
        "transcribed_with": f"{t.model} on {t.device} ({t.compute_type})",
        "name_biasing": heard.biasing,
        "records": list(keys),
        "corrections": [redact(f"{r.heard} -> {r.name}").text for r in heard.replacements],
    }
    lines = ["---", yaml.safe_dump(front, sort_keys=False, allow_unicode=True).rstrip(), "---", "", f"# {title}", ""]
    said = masked_lines([s.text for s in heard.segments])
    turns = speaker_turns(said, list(speakers) or list(attendees))
    lines += [f"{stamp(s.start)} {who + ': ' if who else ''}{text}" for s, text, who in zip(heard.segments, said, turns)]
    return "\n".join(lines) + "\n"


def masked_lines(texts: Sequence[str]) -> list[str]:
    """Each line with its secrets masked, the lines read as one text: a secret said across two
    segments ("my password is" | "hunter2") is masked in both."""
    from brain_core.redact import MASK, redact

    joined, starts, pos = [], [], 0
    for t in texts:
        starts.append(pos)
        joined.append(t)
        pos += len(t) + 1
    red = redact(" ".join(joined))
    out = []
    for t, start in zip(texts, starts):
        end, cuts = start + len(t), []
        for f in red.findings:
            if f.start < end and start < f.end:
                cuts.append((max(f.start, start) - start, min(f.end, end) - start, f.rule))
        text, shift = t, 0
        for s, e, rule in cuts:
            mask = MASK.format(rule)
            text = text[: s + shift] + mask + text[e + shift:]
            shift += len(mask) - (e - s)
        out.append(text)
    return out


def speaker_turns(lines: Sequence[str], people: Sequence[str]) -> list[str | None]:
    """Who speaks each line, where the text shows it: the line after one that hands over to a
    person by name ("Siobhan, can you start with...?", "Over to you, Tomasz.") is that person's."""
    names = [p for p in people if p]
    out: list[str | None] = [None] * len(lines)
    if not names:
        return out
    who = "|".join(re.escape(n) for n in names)
    handover = re.compile(rf"(?:^|[.!?]\s+)(?P<a>{who})[,.]\s+(?:can|could|would|will|do|did|are|what|how|where|when|why|"
                          rf"go ahead|your turn)\b[^.!]*[?.]?\s*$|(?:over to you|your turn|go ahead),?\s+(?P<b>{who})\b", re.I)
    for i, line in enumerate(lines[:-1]):
        m = handover.search(line)
        if m:
            found = m.group("a") or m.group("b")
            out[i + 1] = next(n for n in names if n.casefold() == found.casefold())
    return out


def _records(proposed: Any, source: str) -> list[dict[str, Any]]:
    if not isinstance(proposed, list):
        raise BrainError("The distiller returned something other than a list of records; this is a bug in the distiller.")
    items = []
    for p in proposed[:MAX_RECORDS]:
        if not isinstance(p, dict) or not str(p.get("body") or "").strip():
            continue
        tags = list(p.get("tags") or [])
        if "meeting" not in tags:
            tags.append("meeting")
        items.append({**p, "profile": PROFILE, "source": source, "tags": tags})
    return items


_FILLER = re.compile(r"^(?:oh|uh|um|erm|so|well|yeah|okay|ok|right|like|and|but)\b[\s,]*", re.I)
_VERB_HINT = re.compile(r"\b(?:is|are|was|were|will|must|should|do|does|did|has|have|had|use|uses|used|"
                        r"decided|chose|agreed|restores?|runs?|owns?|caps?|capped|adds?|keeps?|needs?)\b", re.I)


def _kept(proposed: Any, tasks: list[dict[str, Any]]) -> Any:
    """The distiller's proposals less filler and half sentences ("Oh it always the dead letter
    queue") and less what an action item already says."""
    if not isinstance(proposed, list):
        return proposed
    taken = [set(re.findall(r"[a-z]{4,}", t["body"].casefold())) for t in tasks]
    out = []
    for p in proposed:
        body = str(p.get("body") or "").strip() if isinstance(p, dict) else ""
        core = _FILLER.sub("", body)
        words = re.findall(r"[A-Za-z']+", core)
        if len(words) < 3 or (core != body and (len(words) < 10 or not _VERB_HINT.search(core))):
            continue  # filler ("Oh it always the dead letter queue"), or not a whole statement
        mine = set(re.findall(r"[a-z]{4,}", body.casefold()))
        if any(mine and len(mine & t) >= 0.6 * len(mine) for t in taken):
            continue  # the task record says it already
        out.append(p)
    return out


def _people(attendees: Sequence[str], glossary: Any) -> list[str]:
    """Who can own an action item: the attendees and the glossary's one-word capitalised names."""
    names = [a for a in attendees]
    names += [t.name for t in glossary.terms if t.name[:1].isupper() and " " not in t.name and "-" not in t.name]
    return list(dict.fromkeys(names))


def _default_distiller() -> Distiller:
    try:
        from brain_core.harvest.distill import distill
    except ImportError as e:
        raise BrainError(
            f"The meeting distiller (brain_core.harvest.distill) is not available ({e}); update Aida."
        ) from e
    return distill


def _skipped(sha: str, seen: dict[str, Any]) -> MeetingResult:
    return MeetingResult(sha, True, str(seen.get("transcript", "")), tuple(seen.get("keys") or ()),
                         str(seen.get("title", "")), str(seen.get("date", "")))


def _meeting_date(value: str | None, path: Path) -> str:
    """``--date`` (YYYY-MM-DD) when given, else the day the recording was last modified."""
    if value:
        try:
            return Date.fromisoformat(value.strip()[:10]).isoformat()
        except ValueError:
            raise InvalidInput(f"The date {value!r} is not YYYY-MM-DD.") from None
    return datetime.fromtimestamp(path.stat().st_mtime).date().isoformat()


def _title_from(path: Path) -> str:
    words = re.sub(r"[_\-.]+", " ", path.stem).strip()
    return (words[:1].upper() + words[1:]) if words else "Meeting"



def page_path(meeting_date: str, title: str) -> str:
    """Where a meeting's transcript page goes: ``meetings/<date>-<slug of its title>.md``."""
    return f"meetings/{meeting_date}-{slugify(title, max_words=8)}.md"


def _free_path(brain: Any, rel: str) -> str:
    """``rel``, or ``rel`` with ``-2``, ``-3``... when another meeting already has that name."""
    stem, n = rel[:-3], 2
    while (brain.root / rel).exists():
        rel, n = f"{stem}-{n}.md", n + 1
    return rel
