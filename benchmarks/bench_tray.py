"""Tray app figures: start to icon, idle memory, memory after the first question, popup latency at 10k.

    python benchmarks/bench_tray.py [--starts 5] [--records 10000] [--queries 20] [--skip-x]

1. ``aida tray`` to icon shown: the real command in a subprocess on an Xvfb display with trayer
   as the tray host, timed from spawning the process to the ready file the app writes once the
   tray host gave the icon its place (median of ``--starts`` cold starts, warm file cache).
2. Resident memory (VmRSS from /proc) of that process when idle after start (the embedder is
   warmed up at start), then after the first push-to-talk question (``aida ptt --file`` with a
   recorded question: the speech model is loaded, transcribes, routes, recalls and answers).
3. Popup keystroke to results at ``--records`` records: in this process (offscreen Qt), a query
   typed into the popup; the time from its last keystroke until the results are on screen, with
   the popup's real 150 ms debounce and with none (the worker round trip alone).

Needs Xvfb and trayer for 1 and 2 (Debian: apt-get install -y xvfb trayer x11-utils).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

QUESTION = ROOT / "tests" / "fixtures" / "audio" / "ask_recall.wav"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait(pred, timeout: float, what: str, step: float = 0.005) -> float:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if pred():
            return time.perf_counter() - t0
        time.sleep(step)
    raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")


def settle_rss(pid: int, seconds: float = 1.0, timeout: float = 60) -> float:
    """RSS once it stopped growing (background warm-up finished)."""
    last, stable_since, t0 = rss_mb(pid), time.monotonic(), time.monotonic()
    while time.monotonic() - t0 < timeout:
        time.sleep(0.2)
        now = rss_mb(pid)
        if abs(now - last) > 1.0:
            last, stable_since = now, time.monotonic()
        elif time.monotonic() - stable_since >= seconds:
            return now
    return last


def bench_tray(starts: int, work: Path) -> dict:
    from tests.helpers import xdisplay

    if not xdisplay.available():
        return {"skipped": xdisplay.REASON}
    from brain_core import Brain
    from tests.helpers.app_fixtures import MEMORIES

    brain_dir = work / "tray-brain"
    b = Brain.init(brain_dir)
    b.remember_many([dict(m) for m in MEMORIES])
    b.close()
    cfg = work / "config.yaml"
    cfg.write_text(f"brain: {brain_dir}\ntray:\n  sweep_minutes: 0\nvoice:\n  device: cpu\n")
    out: dict = {"starts_s": []}
    with xdisplay.display_with_tray() as env:
        env = {**env, "AIDA_CONFIG": str(cfg)}
        for i in range(starts):
            ready = work / f"ready-{i}.json"
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "brain_core", "tray", "--ready-file", str(ready)],
                                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wait(ready.exists, 60, "the tray icon")
                out["starts_s"].append(time.perf_counter() - t0)
                info = json.loads(ready.read_text())
                if not info.get("geometry"):
                    out["note"] = "the tray host did not embed the icon within 5 s"
                out.setdefault("rss_at_icon_mb", []).append(rss_mb(proc.pid))
                if i < starts - 1:
                    continue
                out["rss_idle_mb"] = settle_rss(proc.pid)
                runs = brain_dir / ".aida" / "runs"
                before = set(runs.glob("*.json")) if runs.exists() else set()
                t1 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "brain_core", "ptt", "--file", str(QUESTION)], env=env, check=True,
                               capture_output=True)
                wait(lambda: runs.exists() and set(runs.glob("*.json")) - before, 180, "the answer", step=0.02)
                out["first_question_s"] = time.perf_counter() - t1
                new = sorted(set(runs.glob("*.json")) - before)[0]
                out["first_question"] = json.loads(new.read_text()).get("question")
                out["rss_after_first_transcription_mb"] = settle_rss(proc.pid)
            finally:
                proc.terminate()
                proc.wait(20)
    return out


def bench_popup(records: int, queries: int, work: Path) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    from synth import query, write_brain

    from brain_core import Brain
    from brain_core.config import Config

    app = QApplication.instance() or QApplication([])
    root = Path(tempfile.gettempdir()) / f"aida-bench-tray-{records}"
    if not (root / ".aida" / "index.sqlite").exists():
        t = time.perf_counter()
        if not (root / ".git").exists():
            write_brain(root, records)
        b = Brain.open(root)
        b.index.rebuild(quiet=True)
        b.close()
        print(f"(built the {records}-record brain in {time.perf_counter() - t:.0f} s at {root}; reused next time)")
    from app.popup import RecallPopup
    from app.service import AidaService

    config = Config(path=work / "popup-config.yaml", data={"brain": str(root)})
    service = AidaService(config, llm=None, opener=lambda p: None)
    rng = random.Random(5)
    texts = [query(rng) for _ in range(queries)]
    out = {}
    for label, debounce in (("debounced_150ms", 150), ("no_debounce", 0)):
        popup = RecallPopup(service, debounce_ms=debounce, hide_on_blur=False)
        popup.show_popup("recall")
        service.recall("warm up")
        service.front.wait(60000)
        app.processEvents()
        lat, recall_ms = [], []
        for text in texts:
            popup.search.clear()
            popup.last_result = None
            QTest.keyClicks(popup.search, text)
            t0 = time.perf_counter()
            deadline = t0 + 30
            while not (popup.last_result and popup.last_result.query == text.strip()):
                app.processEvents()
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"no results for {text!r}")
                time.sleep(0.001)
            lat.append((time.perf_counter() - t0) * 1000)
            recall_ms.append(popup.last_result.seconds * 1000)
            assert popup.results.count() > 0
        out[label] = {"p50_ms": statistics.median(lat), "p95_ms": sorted(lat)[int(0.95 * (len(lat) - 1))],
                      "recall_p50_ms": statistics.median(recall_ms)}
        popup.hide()
        popup.deleteLater()
    service.shutdown()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--records", type=int, default=10000)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--skip-x", action="store_true", help="only the popup latency (no Xvfb needed)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="aida-bench-tray-") as tmp:
        work = Path(tmp)
        os.environ["AIDA_CONFIG"] = str(work / "config.yaml")
        if not args.skip_x:
            tray = bench_tray(args.starts, work)
            print("tray (real `aida tray` under Xvfb + trayer)")
            if "skipped" in tray:
                print(f"  skipped: {tray['skipped']}")
            else:
                s = tray["starts_s"]
                print(f"  `aida tray` to icon shown: median {statistics.median(s) * 1000:.0f} ms "
                      f"(min {min(s) * 1000:.0f}, max {max(s) * 1000:.0f}, {len(s)} starts)")
                print(f"  RSS when the icon is shown: {statistics.median(tray['rss_at_icon_mb']):.0f} MB; idle after start "
                      f"(brain opened, embedder warmed up): {tray['rss_idle_mb']:.0f} MB")
                print(f"  first push-to-talk question (`aida ptt --file`, model load + transcribe + answer): "
                      f"{tray['first_question_s']:.2f} s, heard {tray['first_question']!r}")
                print(f"  RSS after the first transcription: {tray['rss_after_first_transcription_mb']:.0f} MB")
                if tray.get("note"):
                    print(f"  note: {tray['note']}")
        pop = bench_popup(args.records, args.queries, work)
        print(f"popup keystroke to results at {args.records} records ({args.queries} queries)")
        for label, f in pop.items():
            print(f"  {label}: p50 {f['p50_ms']:.0f} ms, p95 {f['p95_ms']:.0f} ms (recall itself p50 {f['recall_p50_ms']:.0f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
