"""Speech into text, and meetings into memories.

The package is light to import: faster-whisper, ctranslate2, PyAV and sounddevice are loaded by
the functions that need them, so ``aida brain recall`` never pays for them.

- :mod:`.transcribe`: the :class:`~.transcribe.Transcriber` seam and its faster-whisper
  implementation (CUDA float16 when a GPU is there, else CPU int8; the model is loaded once and
  reused by the tray).
- :mod:`.glossary`: the brain's ``glossary.yaml``: names that bias decoding (hotwords) and a
  correction pass that replaces known mishearings and close misspellings of them afterwards.
- :mod:`.capture`: push-to-talk recording behind the :class:`~.capture.AudioSource` seam.
- :mod:`.meeting`: a recording -> transcript -> distilled records -> ``meetings/<date>-<slug>.md``.
"""

from __future__ import annotations

from brain_core.voice.glossary import Correction, Glossary, Replacement, Term

__all__ = ["Correction", "Glossary", "Replacement", "Term"]
