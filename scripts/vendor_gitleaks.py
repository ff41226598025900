"""Regenerate brain_core/redact/gitleaks.py from gitleaks' default rule list.

    python scripts/vendor_gitleaks.py path/to/gitleaks/config/gitleaks.toml [commit]

gitleaks (https://github.com/gitleaks/gitleaks, MIT licence, (c) 2019 Zachary Rice) keeps the
maintained list of secret formats that Aida's redaction grows from. This script carries its
rules over as data: the Go regular expressions are rewritten where Python's ``re`` differs
(a ``(?i)`` that is not at the start becomes a scoped ``(?i:...)``, ``\\z`` becomes ``\\Z``) and
the leading ``[\\w.-]{0,50}?`` before a keyword is dropped (it only widens the match to the left;
the secret group is the same, and without it Python can search the keyword quickly). Rules that
need a file path, the generic catch-all (Aida has its own, tuned on prose and code) and any
pattern Python cannot compile are left out and listed at the end of the run.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import tomllib

OUT = Path(__file__).resolve().parents[1] / "brain_core" / "redact" / "gitleaks.py"
SKIP = {"generic-api-key"}
HEADER = '''"""Secret formats carried over from gitleaks' default rule list (generated; do not edit by hand).

Source: https://github.com/gitleaks/gitleaks, config/gitleaks.toml at commit {commit}.
Regenerate with ``python scripts/vendor_gitleaks.py <gitleaks.toml> <commit>``.

Each rule: (id, regex, secret group or 0 for "first non-empty group", minimum Shannon entropy of
the secret or 0, lowercase keywords of which one must appear, allowlist regexes tested on the
secret, stopwords). The regexes are gitleaks' own with the Python rewrites the script names.

gitleaks is distributed under the MIT License:

    Copyright (c) 2019 Zachary Rice

    Permission is hereby granted, free of charge, to any person obtaining a copy of this
    software and associated documentation files (the "Software"), to deal in the Software
    without restriction, including without limitation the rights to use, copy, modify, merge,
    publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
    to whom the Software is furnished to do so, subject to the following conditions:

    The above copyright notice and this permission notice shall be included in all copies or
    substantial portions of the Software.

    THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
    INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
    PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE
    FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
    OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
    DEALINGS IN THE SOFTWARE.
"""

# fmt: off
'''


def _group_end(pattern: str, start: int) -> int:
    """Index of the ``)`` closing the group that contains ``start`` (len(pattern) at top level)."""
    depth, i, in_class = 0, start, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]" or pattern[i - 1] == "["
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return len(pattern)


def to_python(pattern: str) -> str:
    pattern = pattern.replace("\\z", "\\Z")
    for posix, cls in (("[:alnum:]", "A-Za-z0-9"), ("[:alpha:]", "A-Za-z"), ("[:digit:]", "0-9"),
                       ("[:upper:]", "A-Z"), ("[:lower:]", "a-z"), ("[:xdigit:]", "0-9A-Fa-f")):
        pattern = pattern.replace(posix, cls)
    if pattern.startswith("(?i)[\\w.-]{0,50}?"):
        pattern = "(?i)" + pattern[len("(?i)[\\w.-]{0,50}?"):]
    while True:
        pos = pattern.find("(?i)", 1)
        if pos == -1:
            return pattern
        end = _group_end(pattern, pos + 4)
        pattern = pattern[:pos] + "(?i:" + pattern[pos + 4:end] + ")" + pattern[end:]


def main(argv: list[str]) -> int:
    src = Path(argv[1])
    commit = argv[2] if len(argv) > 2 else "unknown"
    data = tomllib.loads(src.read_text(encoding="utf-8"))
    global_allow = list(data.get("allowlist", {}).get("regexes", []))
    stop = list(data.get("allowlist", {}).get("stopwords", []))
    kept, left = [], []
    for r in data["rules"]:
        if r["id"] in SKIP or "regex" not in r or "path" in r:
            left.append((r["id"], "needs a file path or is the generic catch-all"))
            continue
        rx = to_python(r["regex"])
        allow, words = [], []
        for a in r.get("allowlists", []):
            if a.get("paths") or a.get("regexTarget", "secret") != "secret":
                continue
            allow += [to_python(x) for x in a.get("regexes", [])]
            words += a.get("stopwords", [])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                re.compile(rx)
                for x in allow:
                    re.compile(x)
        except (re.error, FutureWarning) as e:
            left.append((r["id"], f"Python cannot compile it ({e})"))
            continue
        kept.append((r["id"], rx, int(r.get("secretGroup", 0)), float(r.get("entropy", 0)),
                     tuple(k.lower() for k in r.get("keywords", [])), tuple(allow), tuple(words)))
    globals_ok = []
    for x in global_allow:
        try:
            re.compile(to_python(x))
            globals_ok.append(to_python(x))
        except re.error:
            pass
    lines = [HEADER.format(commit=commit), f"GLOBAL_ALLOW = {tuple(globals_ok)!r}\n",
             f"STOPWORDS = {tuple(stop)!r}\n", "RULES = ("]
    for rule in kept:
        lines.append(f"    {rule!r},")
    lines.append(")\n")
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(kept)} rules written to {OUT}; left out {len(left)}:")
    for rid, why in left:
        print(f"  {rid}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
