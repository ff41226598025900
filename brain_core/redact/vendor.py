"""Running gitleaks' rules (carried over as data in ``gitleaks.py``) over a text.

gitleaks runs a rule only where one of its keywords appears; so does this, and it searches only
near each keyword (``_WINDOW`` characters either side), which keeps 216 rules cheap on long
texts. A rule's regex is compiled the first time its keyword shows up. The secret group must
pass the rule's entropy, its own allowlist and gitleaks' global allowlist and stopwords.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterator


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


_GITLEAKS: list | None = None
_BY_KEYWORD: dict[str, list[int]] = {}
_WINDOW = 1000  # how far from a keyword a gitleaks match may start or end


def _gitleaks():
    global _GITLEAKS
    if _GITLEAKS is None:
        from brain_core.redact.gitleaks import GLOBAL_ALLOW, STOPWORDS
        from brain_core.redact.gitleaks import RULES as GL

        glob = tuple(re.compile(a) for a in GLOBAL_ALLOW)
        rules = [[rid, rx, None, group, entropy, kws, allow, tuple(STOPWORDS) + tuple(w.lower() for w in stop), glob]
                 for rid, rx, group, entropy, kws, allow, stop in GL]
        for i, rule in enumerate(rules):
            for kw in rule[5]:
                _BY_KEYWORD.setdefault(kw, []).append(i)
        global _KEYWORDS
        # One pass finds every keyword: a trie of them in a look-ahead, tried at each position.
        _KEYWORDS = re.compile("(?=(" + _trie(sorted(_BY_KEYWORD)) + "))")
        _GITLEAKS = rules
    return _GITLEAKS


_KEYWORDS: re.Pattern | None = None


def _trie(words: list[str]) -> str:
    """A regex matching the longest of ``words`` at a position (a shorter one that is a prefix of
    it is then present too)."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(node[ch]) for ch in sorted(k for k in node if k)]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root)


def _keywords_in(lowered: str) -> set[str]:
    _gitleaks()
    assert _KEYWORDS is not None  # _gitleaks() compiled it
    hits = {m.group(1) for m in _KEYWORDS.finditer(lowered)}
    return {h[:i] for h in hits for i in range(1, len(h) + 1)}.intersection(_BY_KEYWORD)


def _windows(lowered: str, keywords: tuple[str, ...]) -> list[tuple[int, int]]:
    spans = []
    for kw in keywords:
        pos = lowered.find(kw)
        while pos != -1:
            end = lowered.find("\n", min(len(lowered), pos + _WINDOW))
            spans.append((max(0, pos - _WINDOW), len(lowered) if end == -1 else end))
            pos = lowered.find(kw, pos + len(kw))
    spans.sort()
    merged: list[list[int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


def gitleaks_spans(text: str, lowered: str) -> Iterator[tuple[int, int, str]]:
    """Every gitleaks rule whose keyword appears, searched near its keywords; the secret group
    must pass the rule's entropy, its allowlist and gitleaks' global allowlist and stopwords."""
    rules = _gitleaks()
    wanted = sorted({i for kw in _keywords_in(lowered) for i in _BY_KEYWORD[kw]})
    for i in wanted:
        rule = rules[i]
        rid, rx, compiled, group, entropy, kws, allow, stop, glob = rule
        if compiled is None:
            compiled = rule[2] = re.compile(rx)
            rule[6] = allow = tuple(re.compile(a) for a in allow)
        for ws, we in _windows(lowered, kws):
            for m in compiled.finditer(text, ws, we):
                g = group or next((i for i in range(1, (m.re.groups or 0) + 1) if m.group(i)), 0)
                secret = m.group(g)
                if not secret or (entropy and _entropy(secret) < entropy):
                    continue
                low = secret.lower()
                if any(a.search(secret) for a in allow) or any(a.match(secret) for a in glob) \
                        or any(w in low for w in stop):
                    continue
                yield m.start(g), m.end(g), rid
