"""Fixtures shared by the tray app's tests: a filled brain, the service over it, a fake transcriber.

Import the fixtures by name in a test module (``from tests.helpers.app_fixtures import service  # noqa``).
The service runs its real workers and its real brain; only what a test cannot have (a
microphone, a file manager) is replaced through the service's constructor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.helpers import paths as test_paths

FIXTURES = test_paths.FIXTURES / "audio"

MEMORIES = [
    dict(body="Webhook delivery retries with exponential backoff, capped at six attempts, for damage-control.",
         key="webhook-retry-policy", type="decision", profile="codex", created="2026-08-22T19:44:02Z"),
    dict(body="We chose SQS for the job queue because it needs no operations work.",
         key="queue-choice", type="decision", profile="claude", created="2026-06-01T10:00:00Z"),
    dict(body="My preferred commit message style is imperative mood, under 72 characters.",
         key="commit-style", type="preference", profile="me", created="2026-07-15T09:00:00Z"),
    dict(body="The staging database restores from Sunday's snapshot every night at 2 am.",
         key="staging-restore", type="fact", profile="meeting", created="2026-08-01T08:00:00Z"),
]


@pytest.fixture
def filled(brain):
    brain.remember_many([dict(m) for m in MEMORIES], message="test memories")
    brain.config.set("brain", str(brain.root))
    brain.config.set("tray.warm_up", False)
    return brain


@pytest.fixture
def opened():
    """What the app asked the desktop to open (instead of starting a file manager)."""
    return []


@pytest.fixture
def service(filled, opened, qtbot):
    from app.service import AidaService

    svc = AidaService(filled.config, opener=opened.append, embedder=filled._embedder, llm=None)
    yield svc
    svc.shutdown()


@dataclass
class FakeTranscriber:
    """A :class:`~brain_core.voice.transcribe.Transcriber` that "hears" a fixed text, reporting progress."""

    text: str
    audio_seconds: float = 39.4
    calls: list = field(default_factory=list)

    def transcribe(self, audio, *, hotwords=None, vad=None, progress=None):
        from brain_core.voice.transcribe import Segment, Transcript

        self.calls.append(audio)
        sentences = [s.strip() + "." for s in self.text.split(".") if s.strip()]
        step = self.audio_seconds / max(1, len(sentences))
        segments = []
        for i, s in enumerate(sentences):
            segments.append(Segment(i * step, (i + 1) * step, s))
            if progress:
                progress((i + 1) / len(sentences))
        return Transcript(text=" ".join(sentences), segments=tuple(segments), language="en", model="fake",
                          device="cpu", compute_type="none", audio_seconds=self.audio_seconds,
                          speech_seconds=self.audio_seconds, load_seconds=0.0, transcribe_seconds=0.01)


MEETING_TEXT = (
    "Good morning everyone, this is the damage-control weekly sync. "
    "Siobhan: the staging database restores from Sunday's snapshot every night at 2 am, so test data must be reseeded. "
    "Tomasz: we decided that webhook retries stay capped at six attempts with exponential backoff. "
    "We agreed that Owen will add a dead letter queue instead of raising the cap. "
    "Action item: Owen owns the dead letter queue, due next Friday."
)


@pytest.fixture
def popup(service, qtbot):
    """The recall popup over ``service``, shown, with a short debounce and no hiding on blur."""
    from app.popup import RecallPopup

    p = RecallPopup(service, debounce_ms=20, hide_on_blur=False)
    qtbot.addWidget(p)
    p.show_popup("recall")
    return p
