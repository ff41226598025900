"""``aida tray``, ``aida popup``, ``aida ptt`` and ``aida demo``.

Qt is imported inside the handlers only: ``aida demo`` runs on a machine without a display or Qt
libraries, and no other command pays for loading Qt. ``aida popup`` and ``aida ptt`` talk to the
running tray through its local socket, which is how a desktop's own keyboard shortcut reaches it
where global hotkeys are impossible (Wayland).
"""

from __future__ import annotations

import sys
from pathlib import Path

from brain_core.errors import BrainError

NOT_RUNNING = "Aida is not running; start it with `aida tray` (or `make run`), then try again."
NO_DISPLAY = ("Aida's tray is not running, and it cannot run here: there is no display (neither DISPLAY nor "
              "WAYLAND_DISPLAY is set); use `aida ask QUESTION` or `aida brain recall QUERY` instead, or start "
              "`aida tray` on a desktop.")


def not_running() -> str:
    """Why the tray did not answer, and what works instead (on a headless Linux box `make run`
    runs the demo, and `aida tray` has nowhere to show)."""
    import os

    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return NO_DISPLAY
    return NOT_RUNNING


def register(sub, groups) -> None:
    p = sub.add_parser("tray", help="start the tray app (one per user; a second one focuses the first)")
    p.add_argument("--ready-file", metavar="FILE",
                   help="write a line of JSON to FILE once the tray icon is shown, and again with "
                        "\"hotkeys\": \"listening\" once the global hotkeys receive keys (for scripts and benchmarks)")
    p.add_argument("--no-hotkeys", dest="hotkeys", action="store_false", default=None,
                   help="do not listen for global hotkeys this time")
    p.set_defaults(func=cmd_tray)

    p = sub.add_parser("popup", help="open or close the running tray's quick-recall popup (bind it to a key)")
    p.add_argument("--ask", action="store_true", help="open it ready for a question instead of a search")
    p.add_argument("query", nargs="?", default="", help="open it with this search already typed")
    p.set_defaults(func=cmd_popup)

    p = sub.add_parser("ptt", help="push-to-talk on the running tray: start recording, or stop and ask")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--down", action="store_true", help="start recording (for a key-press binding)")
    g.add_argument("--up", action="store_true", help="stop recording and ask (for a key-release binding)")
    g.add_argument("--file", metavar="AUDIO", help="ask what is said in this recording instead of the microphone")
    p.set_defaults(func=cmd_ptt)

    p = sub.add_parser("demo", help="a headless end-to-end pass in a temporary brain: harvest, hear, route, recall, answer")
    p.add_argument("--keep", metavar="DIR", help="make the demo brain in DIR and keep it (default: a temp folder, removed)")
    p.add_argument("--no-voice", dest="voice", action="store_false",
                   help="skip the speech step (type the sample question instead of hearing it)")
    p.set_defaults(func=cmd_demo)


def cmd_tray(args, ctx) -> int:
    try:
        from app.main import run
    except ImportError as e:
        raise BrainError(f"The tray app cannot load ({e}); run `make install` to install PySide6, "
                         "or use `aida demo` on a machine without a desktop.") from e
    try:
        config = ctx.config
    except BrainError as e:  # a broken settings file: said in a dialog, not only on stderr
        return run(None, ready_file=args.ready_file, hotkeys=args.hotkeys, config_error=e)
    return run(config, ready_file=args.ready_file, hotkeys=args.hotkeys)


def _send(ctx, command: str, argument: str = "") -> int:
    try:
        from app.single_instance import send_from_cli
    except ImportError as e:
        raise BrainError(f"Reaching the tray needs PySide6 ({e}); run `make install`.") from e
    reply = send_from_cli(ctx.config.path, command, argument)
    if reply is None:
        print(f"aida: {not_running()}", file=sys.stderr)
        return 1
    if reply != "ok":
        print(f"aida: the tray answered: {reply}", file=sys.stderr)
        return 1
    return 0


def cmd_popup(args, ctx) -> int:
    return _send(ctx, "ask" if args.ask else "popup", " ".join(args.query.split()))


def cmd_ptt(args, ctx) -> int:
    if args.file:
        path = Path(args.file).expanduser().resolve()
        if path.is_dir():
            raise BrainError(f"{path} is a folder, not an audio file; give the path of one recording in it.")
        if not path.is_file():
            raise BrainError(f"The recording {path} does not exist; check the path.")
        return _send(ctx, "ask-audio", str(path))
    return _send(ctx, "ptt-down" if args.down else "ptt-up" if args.up else "ptt")


def cmd_demo(args, ctx) -> int:
    from brain_core.cli.demo import run_demo

    return run_demo(keep=Path(args.keep).expanduser() if args.keep else None, voice=args.voice)
