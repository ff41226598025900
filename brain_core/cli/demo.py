"""``aida demo``: the whole front door once, headless, in a throwaway brain.

What ``make run`` does on a machine without a display, and a quick way to see every part work:

1. make a brain in a temporary folder (git repository, layout, card catalog);
2. harvest the two sample agent sessions shipped in ``brain_core/samples/demo/`` (a Claude Code
   transcript and a Codex rollout) through the real sweep: parse, trim, redact, distill, write;
3. transcribe the sample spoken question (``question.wav``) with the bundled speech model;
4. route the transcript with the regex router;
5. recall from the brain, and
6. answer it (offline from the records, or with the configured language model), leaving a run
   record as ``aida ask`` does.

Each step prints what it did and how long it took. No Qt is imported: this runs on servers and
in CI. A step that cannot run here (no speech model installed, say) says so and the demo goes on
with the typed question.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TextIO

from brain_core.errors import BrainError
from brain_core.marks import OFFLINE_TAG

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "demo"
QUESTION_TEXT = "What did we decide about the webhook retry policy?"
GLOSSARY = "terms:\n  - name: webhook\n    aliases: [web hook, worm hook]\n"


def sample_transcripts() -> list[Path]:
    return sorted(p for p in SAMPLES.glob("*.jsonl"))


class _Steps:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.n = 0

    @contextmanager
    def step(self, title: str) -> Iterator[Callable[[str], object]]:
        self.n += 1
        self.out.write(f"\n{self.n}. {title}\n")
        self.out.flush()
        t0 = time.perf_counter()
        yield lambda line: self.out.write(f"   {line}\n")
        self.out.write(f"   ({(time.perf_counter() - t0) * 1000:.0f} ms)\n")
        self.out.flush()


def run_demo(keep: Path | None = None, voice: bool = True, out: TextIO | None = None,
             transcriber=None, llm=None) -> int:
    """Run the pass; returns 0 when every step that could run did. ``llm``: None = offline."""
    from brain_core.brain import Brain
    from brain_core.config import Config

    out = out or sys.stdout
    steps = _Steps(out)
    folder = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="aida-demo-"))
    # The demo's own settings: nothing of the user's (brain path, provider, key) is read or changed.
    config = Config(path=folder / "demo-config.yaml", data={})
    out.write(f"Aida demo: a throwaway brain in {folder}\n")
    brain = None
    try:
        with steps.step("Make a brain") as say:
            brain = Brain.init(folder / "brain", config=config)
            brain.write_text("glossary.yaml", GLOSSARY, "demo: the glossary knows how 'webhook' gets misheard")
            head = brain.head()
            assert head is not None  # init made the first commit
            say(f"git repository with Aida's layout at {brain.root}, first commit {head[:10]}")

        with steps.step("Harvest the sample agent sessions") as say:
            from brain_core.harvest.run import sweep

            files = sample_transcripts()
            result = sweep(brain, files=files, llm=llm, include_mirror=False)
            for o in result.outcomes:
                name = Path(o.path).name
                if o.error:
                    say(f"{o.tool} {name}: failed: {o.error}")
                    continue
                say(f"{o.tool} session {o.session[:8]}: {len(o.records)} record(s) proposed, {len(o.written)} written")
                for r in o.records:
                    say(f"  - {r['type']} {r['key']}: {_short(r['body'])}")
            say(f"{result.written} memories written and committed")
            unchecked = sum(len(o.written) for o in result.outcomes if o.offline)
            if unchecked:
                say(f"{unchecked} of them read offline: marked unchecked (tag {OFFLINE_TAG}) until "
                    "`aida brain review` confirms them or a model relearns them")

        question = QUESTION_TEXT
        with steps.step("Hear the sample question") as say:
            wav = SAMPLES / "question.wav"
            if not voice:
                say(f"skipped (--no-voice); typed question: {question!r}")
            else:
                heard = _hear(brain, wav, transcriber, say)
                if heard is not None:
                    question = heard

        with steps.step("Route it") as say:
            from brain_core.answer.router import load_router

            route = load_router(brain.root).decide(question)
            say(f"recall: {route.recall}, mode: {route.mode}, time-sensitive: {route.time_sensitive}, "
                f"live: {route.live or 'no'}; patterns: {', '.join(route.fired) or 'none'}")

        with steps.step("Recall from the brain") as say:
            hits = brain.recall(question, k=3, recent=route.mode == "recency")
            if not hits:
                say("nothing found")
            for h in hits:
                sure = f" {h.confidence}" if h.confidence else ""
                mark = ", unchecked" if OFFLINE_TAG in h.record.tags else ""
                say(f"{h.score:.4f}{sure} {h.record.type} {h.record.key} ({h.record.profile}{mark}): "
                    f"{_short(h.record.body)}")

        with steps.step("Answer") as say:
            from brain_core.answer.ask import ask

            answer = ask(brain, question, llm=llm)
            for line in answer.text.splitlines():
                say(line)
            from brain_core.answer.ask import answered_how

            say(f"{answered_how(answer)}; run record {answer.run_id} "
                f"(`aida feedback up|down {answer.run_id}` turns it into a lesson)")
    except BrainError as e:
        out.write(f"\nThe demo stopped: {e}\n")
        return 1
    finally:
        if brain is not None:
            brain.close()
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    out.write("\nDone. " + (f"The demo brain is kept in {folder}.\n" if keep else
                            "The demo brain was removed; `aida demo --keep DIR` keeps one to look at.\n"))
    return 0


def _hear(brain, wav: Path, transcriber, say) -> str | None:
    """The transcript after the glossary pass, or None when speech cannot run here."""
    from brain_core.errors import MissingDependency

    try:
        from brain_core.voice.glossary import brain_glossary
        from brain_core.voice.hear import hear
        from brain_core.voice.transcribe import WhisperTranscriber

        transcriber = transcriber or WhisperTranscriber.from_config(brain.config)
        heard = hear(transcriber, wav, brain_glossary(brain))
    except (ImportError, MissingDependency) as e:
        say(f"speech is not available here ({e}); using the typed question {QUESTION_TEXT!r}")
        return None
    t = heard.transcript
    say(f"{wav.name}: {t.audio_seconds:.1f} s of audio, {t.describe()}"
        + (f", model loaded in {t.load_seconds:.2f} s" if t.load_seconds else ""))
    if heard.text != t.text:
        say(f"decoded: {t.text!r}")
        say(f"glossary corrected {len(heard.replacements)} word(s)")
    say(f"heard: {heard.text!r}")
    return heard.text


def _short(text: str, n: int = 100) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"
