"""Code is not a memory.

A record's body must say something in words. An identifier standing alone (a test name such as
``TestTrackCommandDetachedDefaultsAgentToAuto``, a function, a ``snake_case`` or ``CamelCase``
token, a path), a stack trace, a log or a piece of tool output is never a body on its own, however
it reached the distiller: :func:`code_only` tells, and the harvest drops such a record.
"""

from __future__ import annotations

import re

_IDENT = re.compile(
    r"^[`'\"(\[]*(?:"
    r"[A-Za-z_][\w$]*(?:(?:\.|::|#|->)[A-Za-z_][\w$]*)*(?:\(\))?"  # name, dotted.name, Mod::fn, fn()
    r"|[\w.~-]*/[\w./~-]+"  # a path
    r"|--?[\w-]+(?:=\S+)?"  # a flag
    r")[`'\")\]]*[.:;,]?$"
)
_TRACE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|at [\w.$<>]+\(.*\)|at .+:\d+:\d+\)?$"
    r"|[\w.]+(?:Error|Exception|Panic)\b:?|panic:|goroutine \d+|#\d+\s+0x[0-9a-f]+|\*\* \(\w+\)|\(\w+\) [\w/.]+\.exs?:\d+)"
)
_OUTPUT = re.compile(
    r"^\s*(?:[$#>%] |[-dlcbrwxsStT@+.]{10,11}\s|total \d+$|\d{2}:\d{2}(?::\d{2})?\b|\[?\d{4}-\d{2}-\d{2}[ T]\d|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL)\b"
    r"|[\w./-]+:\d+(?::\d+)?:|[=\-*]{4,}|\s*\d+\s+(?:passed|failed|tests?)\b|[{}\[\]]\s*$|\"[\w-]+\":|<\/?\w+[^>]*>$)"
)
_WORD = re.compile(r"(?<![\w./\\-])[A-Za-z][a-z]+(?:'[a-z]+)?(?![\w./\\(-])")
_CODE_TOKEN = re.compile(r"[A-Za-z_]\w*[A-Z_]\w*|[\w.]+\(\)?|[\w./-]*[/\\][\w./-]+|[{}\[\];=<>]")


def code_only(text: str) -> bool:
    """Whether ``text`` is code, a bare identifier, a stack trace or tool output rather than a
    statement in words."""
    t = (text or "").strip()
    if not t:
        return True
    body = t.strip("`*_ ")
    if _IDENT.match(body) and " " not in body:
        return True
    lines = [ln for ln in t.splitlines() if ln.strip()]
    machine = sum(1 for ln in lines if _TRACE.match(ln) or _OUTPUT.match(ln))
    if lines and machine * 2 >= len(lines) and (len(lines) > 1 or machine):
        return True
    words = _WORD.findall(re.sub(r"`[^`]*`", " ", t))
    tokens = t.split()
    if len(words) < 3:
        return True
    codey = sum(1 for tok in tokens if _CODE_TOKEN.search(tok))
    return len(words) < 0.4 * len(tokens) and codey > len(words)
