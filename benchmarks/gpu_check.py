"""The GPU path, measured: what really runs where, and the question and meeting timings.

    python benchmarks/gpu_check.py [--json OUT]

Prints, for the machine it runs on:
- speech: CTranslate2's CUDA device count, the device and compute type ``voice.device auto``
  resolves to and that the loaded model reports, then the question path (key released -> text,
  both decodes and the correction pass, as the tray does it) and the meeting's real-time factor
  (median of 5 and 3 runs);
- embeddings: onnxruntime's available execution providers and the one the embedder's session
  really uses (``onnxruntime-gpu`` falls back to the CPU silently), and embedding throughput.

On a machine without a GPU it says so and measures the CPU path, the default; the GPU code adds
nothing to it (``auto`` asks CTranslate2 once for a device count).
Targets on CUDA with tiny.en: meeting RTF at most 0.02, question path under 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
AUDIO = ROOT / "tests" / "fixtures" / "audio"


def median_time(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def speech() -> dict:
    from brain_core.voice.glossary import load_glossary
    from brain_core.voice.hear import hear
    from brain_core.voice.transcribe import WhisperTranscriber, cuda_devices, load_audio

    out: dict = {"cuda_devices": cuda_devices()}
    t = WhisperTranscriber(device="auto", compute_type="auto")
    out["load_s"] = t.load()
    out["device"], out["compute_type"] = t.choice.device, t.choice.compute_type
    model = t._model()[0]
    out["model_reports"] = {"device": getattr(model.model, "device", "?"),
                            "compute_type": getattr(model.model, "compute_type", "?")}
    question, meeting = load_audio(AUDIO / "ask_recall.wav"), load_audio(AUDIO / "meeting_sync.wav")
    glossary = load_glossary(AUDIO / "glossary.yaml")
    t.transcribe(question)  # kernels initialised once, as in the tray
    out["question_path_s"] = median_time(lambda: hear(t, question, glossary), 5)
    meeting_s = median_time(lambda: hear(t, meeting, glossary), 3)
    out["meeting_s"], out["meeting_rtf"] = meeting_s, meeting_s / (meeting.size / 16000)
    return out


def embeddings() -> dict:
    import onnxruntime as ort

    from brain_core.catalog.embed import OnnxEmbedder

    e = OnnxEmbedder()
    texts = [f"Webhook retries are capped at {i} attempts with exponential backoff." for i in range(256)]
    e.embed(texts[:8])
    seconds = median_time(lambda: e.embed(texts), 3)
    return {"available_providers": ort.get_available_providers(), "provider_in_use": e.provider,
            "texts_per_s": round(len(texts) / seconds, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args()
    result = {"speech": speech(), "embeddings": embeddings()}
    s, e = result["speech"], result["embeddings"]
    gpu = "a GPU is visible" if s["cuda_devices"] else "no GPU is visible: these are the CPU figures (the default path)"
    print(f"gpu_check: {gpu}")
    print(f"  speech: {s['device']} ({s['compute_type']}), the model reports {s['model_reports']}; load {s['load_s']:.2f} s")
    print(f"  question path (both decodes + corrections): median {s['question_path_s']:.3f} s (target on CUDA < 0.3 s)")
    print(f"  meeting: median {s['meeting_s']:.2f} s, RTF {s['meeting_rtf']:.3f} (target on CUDA <= 0.02)")
    print(f"  embeddings: providers available {e['available_providers']}, in use {e['provider_in_use']}, "
          f"{e['texts_per_s']} texts/s")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
