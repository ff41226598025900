"""``aida config get | list | set``: settings read and changed through the schema.

These commands read the settings file without refusing it (``check=False``), so a file with a bad
value can still be shown and repaired with them; everything else stops at start-up on such a file.
"""

from __future__ import annotations

import json
import re
import sys

from brain_core.errors import InvalidInput

# A setting whose last word names a secret (llm.api_key, github.token...), not llm.max_tokens_field.
SECRET_KEY = re.compile(r"(^|[._-])(api[_-]?key|key|token|secret|password|passwd|credentials?)$", re.IGNORECASE)


def _load():
    from brain_core.config import Config

    return Config.load(check=False)


def _raw(cfg, key: str):
    from brain_core.config import _lookup

    return _lookup(cfg.data, key)


def _problem(key: str, value) -> str | None:
    from brain_core.config.schema import BadSetting, check

    try:
        check(key, value)
    except BadSetting as e:
        return str(e)
    return None


def _print_value(value) -> None:
    from brain_core.config.schema import show

    if isinstance(value, (dict, list)) and value:
        import yaml

        print(yaml.safe_dump(value, sort_keys=True, allow_unicode=True).rstrip())
    else:
        print(show(value))


def cmd_get(args, ctx) -> int:
    from brain_core.config.schema import BY_KEY, SETTINGS, find, owner, sections, show

    cfg = _load()
    key = args.key.strip()
    if key in sections():
        for s in SETTINGS:
            if s.key.startswith(key + "."):
                raw = _raw(cfg, s.key)
                text = show(raw) if raw is not None else f"{_default(cfg, s)}  # default"
                print(f"{s.key}: {text}")
        return 0
    if key not in BY_KEY and owner(key) is not None:
        value = _raw(cfg, key)
        if value is None:
            print(f"aida: {key} is not set in {cfg.path}.", file=sys.stderr)
            return 1
        _print_value(value)
        return 0
    s = find(key)  # BadSetting (exit 2) with the nearest names for an unknown key
    raw = _raw(cfg, key)
    if raw is None:
        print(_default(cfg, s))
        print(f"(the default; {key} is not set in {cfg.path})", file=sys.stderr)
        return 0
    _print_value(raw)
    problem = _problem(key, raw)
    if problem:
        print(f"aida: this value is refused: {problem}", file=sys.stderr)
        return 2
    return 0


def _default(cfg, s) -> str:
    from brain_core.config.schema import show

    if s.key == "brain":
        from brain_core.config import default_brain_path

        return str(default_brain_path())
    return s.shown_default if s.default is None and s.shown_default else show(s.default)


def cmd_list(args, ctx) -> int:
    from brain_core.config.schema import SETTINGS, problems

    cfg = _load()
    rows = []
    for s in SETTINGS:
        raw = _raw(cfg, s.key)
        rows.append({"key": s.key, "value": s.default if raw is None else raw, "default": s.default,
                     "is_default": raw is None, "kind": s.kind, "allowed": s.allowed(), "help": s.help,
                     "problem": None if raw is None else _problem(s.key, raw)})
    errors, unknown = problems(cfg.data)
    if args.json:
        print(json.dumps({"file": str(cfg.path), "settings": rows, "unknown": unknown}, indent=2, ensure_ascii=False))
        return 2 if errors else 0
    from brain_core.config.schema import BY_KEY, show

    width = max(len(r["key"]) for r in rows)
    print(f"# {cfg.path}{'' if cfg.path.exists() else ' (not written yet: every setting is its default)'}")
    for r in rows:
        value = (_default(cfg, BY_KEY[r["key"]]) if r["is_default"] else show(r["value"])) or "''"
        mark = "  (default)" if r["is_default"] else "  (REFUSED: see below)" if r["problem"] else ""
        print(f"{r['key']:<{width}}  {value}{mark}")
    for line in errors + unknown:
        print(f"aida: {line}", file=sys.stderr)
    return 2 if errors else 0


def cmd_set(args, ctx) -> int:
    import yaml

    from brain_core.config.schema import check, show

    key = args.key.strip()
    if not re.match(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$", key):
        raise InvalidInput(f"{key!r} is not a dotted setting name such as llm.provider.")
    if SECRET_KEY.search(key):
        raise InvalidInput(f"{key} looks like a secret, which never goes in the settings file; "
                           "use `aida config set-key PROVIDER`.")
    try:
        value = yaml.safe_load(args.value)
    except yaml.YAMLError:
        value = args.value
    value = check(key, value)  # BadSetting (exit 2): unknown key with the nearest names, or a bad value
    if key == "brain" and isinstance(value, str) and value:
        from brain_core.store.fsutil import absolute

        value = str(absolute(value))  # `aida config set brain notes` means ./notes, wherever it is read from
    cfg = _load()
    if value is None:
        _unset(cfg.data, key.split("."))
        cfg.save()
        print(f"{key} reset to its default (saved in {cfg.path})")
        return 0
    cfg.set(key, value)
    cfg.save()
    print(f"{key} = {show(value)} (saved in {cfg.path})")
    return 0


def _unset(node: object, parts: list[str]) -> None:
    if not isinstance(node, dict):
        return
    if len(parts) == 1:
        node.pop(parts[0], None)
        return
    child = node.get(parts[0])
    _unset(child, parts[1:])
    if isinstance(child, dict) and not child:
        node.pop(parts[0], None)
