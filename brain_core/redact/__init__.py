"""Secret redaction: every byte Aida writes passes through :func:`redact` (see ``scrub.py``).

The rules grow from gitleaks' maintained rule list (``config/gitleaks.toml``, MIT licence):
its 216 provider formats are carried over as data in ``gitleaks.py`` (Twilio ``SK...``,
Azure AD client secrets, SendGrid, npm, PyPI, Databricks, ``curl -u``...). Aida's own rules,
kept few and tested one by one, come first: the common provider tokens with the names Aida has
always used, private key blocks, passwords inside URLs (with or without a user), command lines
(``mysql -pPW``, ``sshpass -p``, ``curl -u``), ``password=`` style assignments and env blocks
(``SECRET_KEY_BASE=...``), a password said in prose, Mailgun's bare ``key-...``, base64 of a
secret, and long high-entropy strings. Invisible characters (zero-width space, joiners, soft
hyphen, bidi controls) are ignored while matching, so a key split by one is still found.
A match becomes ``[REDACTED:<rule>]``; the finding keeps the rule and the position, never the
secret, so a dry run can show what fired.

Two constraints shape the rules. The write path calls this on every record, so it must be fast
(a cheap literal pre-check skips most rules on ordinary text). And it must leave ordinary prose,
code identifiers, git SHAs, UUIDs and record ids alone: a mask where no secret was loses the
very thing the brain is for. That is why the generic rules demand a literal value (not a call,
an attribute or a placeholder) and the entropy rule skips hex, paths and identifiers.
"""

from __future__ import annotations

import base64
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterator

from brain_core.redact.vendor import gitleaks_spans

MASK = "[REDACTED:{}]"


@dataclass(frozen=True)
class Finding:
    """One redaction: which rule fired and where, in the original text. Never the secret."""

    rule: str
    start: int
    end: int

    def to_dict(self) -> dict:
        return {"rule": self.rule, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class Redacted:
    """The text with every secret masked, and what was masked."""

    text: str
    findings: tuple[Finding, ...] = ()

    @property
    def rules(self) -> list[str]:
        """The rules that fired, once each, in order of first appearance."""
        return list(dict.fromkeys(f.rule for f in self.findings))


# A rule yields (start, end) spans of the secret within the text; `hint` is a lowercase literal
# that must appear in the lowercased text for the rule to be worth running (None: always run).
Finder = Callable[[str], Iterator[tuple[int, int]]]


@dataclass(frozen=True)
class Rule:
    name: str
    find: Finder
    hints: tuple[str, ...] = ()


def _rx(pattern: str, group: int = 0, flags: int = 0, bounded: bool = True) -> Finder:
    """A regex rule. ``bounded``: the match must not continue a word on its left (checked here
    rather than with a look-behind, which would stop ``re`` from jumping to the literal prefix)."""
    compiled = re.compile(pattern, flags)

    def find(text: str) -> Iterator[tuple[int, int]]:
        for m in compiled.finditer(text):
            start = m.start(group)
            if not m.group(group) or (bounded and start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")):
                continue
            yield m.span(group)

    return find


# ----------------------------------------------------------------------------- provider tokens
# Right boundary as a look-ahead; the left one is checked by `_rx`. Not \b, so that
# `KEY=AKIA...` and `"sk-..."` still match right after the `=` or the quote.
_R = r"(?![A-Za-z0-9_])"

_PRIVATE_KEY = re.compile(
    r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[\s\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]*)"
)


def _private_key(text: str) -> Iterator[tuple[int, int]]:
    # An unterminated block (a trimmed transcript cut it) is masked up to where base64 stops.
    for m in _PRIVATE_KEY.finditer(text):
        yield m.span()


# --------------------------------------------------------------------- generic assignment rule
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[A-Za-z_][\w]*\}?|%\(?\w+\)?s?|<[^>]*>|\{\{?[^}]*\}?\}|\*+|x+|X+|\.+|-+|"
    r"none|null|nil|true|false|undefined|changeme|example|placeholder|redacted|secret|password|"
    r"(?:your|my|the)[_-]?(?:api[_-]?)?(?:password|passwd|pass|secret|token|key)(?:[_-]?here)?|"
    r"dummy|test|todo|tbd|str|string|int|bytes|optional\[?\w*\]?)$",
    re.I,
)
# Names that hold a secret END with one of these (`DB_PASSWORD`, `api_key`, `"clientSecret"`);
# `key` alone is too common (`key=webhook-retry-policy`) and needs a qualifying prefix.
_KEYWORD = re.compile(r"pass(?:word|wd|phrase)?|pwd|secret|token|credentials?|key")
_KEY_PREFIXES = ("api", "access", "private", "signing", "encryption", "master", "client", "secret", "auth", "session", "cookie")
# What follows the name: an optional closing quote, `=`, `:`, `:=` or `=>` (or a space before a
# quoted value), then the value.
_ASSIGN_TAIL = re.compile(
    r"(?P<q0>[\"']?)(?:\s*(?::=|=>|[:=])\s*|\s+(?=[\"']))"
    r"(?P<q>[\"'`]?)(?P<value>[^\s\"'`,;(){}\[\]<>|]{1,400})"
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_CLI_FLAG = re.compile(
    r"(?i)(?<![\w-])--?(?:password|passwd|token|api-key|apikey|secret|client-secret|auth-token)"
    r"(?:=|\s+)(?P<q>[\"']?)(?P<value>[^\s\"'`;|&]{4,400})"
)
_SCHEME = re.compile(r"bearer|token|basic")
_BEARER = re.compile(r"\s+(?P<value>[A-Za-z0-9\-._~+/]{20,}=*)")
_BASIC = re.compile(r"\s+(?P<value>[A-Za-z0-9+/]{16,}={0,2})(?![A-Za-z0-9+/=])")
_IDENT_ONLY = re.compile(r"^[A-Za-z_][A-Za-z_.-]*$")
_DIGITS_ONLY = re.compile(r"^[\d.]+$")
_ENV_NAME = re.compile(r"^[A-Z0-9_]+$")
_WORD_RUN = re.compile(r"[A-Z]?[a-z]{3,}")
_SNAKE_PART = re.compile(r"[A-Z][A-Z0-9]*|[a-z][a-z0-9]*|[A-Z][a-z0-9]+|\d+")


def wordiness(token: str) -> float:
    """Share of ``token`` made of word-like runs (``Factory``, ``retry``): high for identifiers
    and prose, low for random base64."""
    return sum(len(w) for w in _WORD_RUN.findall(token)) / max(1, len(token))


def _looks_literal_secret(value: str, quoted: bool, env_style: bool) -> bool:
    """True when an assigned value is a literal that could be a secret, not code or a placeholder."""
    if _PLACEHOLDER.match(value) or value.startswith(("[REDACTED", "${", "$(")):
        return False
    if _DIGITS_ONLY.match(value):
        return len(value) >= 12 and quoted
    if not (quoted or env_style) and value.startswith(("$", "%", "@", "/", "~", "&", "#", "!")):
        return False  # in code: a variable, a format, a decorator, a path, a comment
    if quoted or env_style:
        # `"token": "..."` and `API_TOKEN=...` hold literals: any non-placeholder value counts.
        return len(value) >= 6
    if len(value) < 6:
        return False
    if _IDENT_ONLY.match(value):
        # Letters, dots, hyphens and underscores only: a variable, an attribute or a word
        # (`refresh_token`, `self.token`, `stored-in-vault`), unless long, mixed-case and unbroken.
        return (len(value) >= 12 and not any(c in value for c in "_.-")
                and not value.islower() and not value.isupper() and wordiness(value) < 0.9)
    return True


_CODE_WORDS = ("pass", "pwd", "secret", "token", "key", "user", "cred", "auth", "self", "cls", "none", "null", "value",
               "arg", "param", "input", "getenv", "environ", "config", "settings", "field", "str", "bytes", "hash")


def _short_password(text: str, m: re.Match, name: str) -> bool:
    """``password = hunter2``, ``password: swordfish``, ``"password": "abc"``: a short value or a plain
    word given to a password name, which the general rule leaves alone because code looks alike.
    Code is told apart by what it assigns: a call, an attribute, another name with a secret word
    or a parameter word in it, or an argument list around it."""
    value = m.group("value")
    low = value.lower()
    if len(value) < 3 or not _value_ok(value) or any(w in low for w in _CODE_WORDS):
        return False
    if m.group("q"):
        return True  # a quoted literal
    if "." in value or not (value.isalnum() or _has_classes(value, 1) and not _IDENT_ONLY.match(value)):
        return False
    end = m.end("value")
    if end < len(text) and text[end] not in " \t\r\n":
        return False  # `password=pw,` / `password=pw)`: an argument in code
    if text[end:end + 80].lstrip(" \t").startswith("="):
        return False  # `userid = passwd = acct = ''`: a chained assignment
    before = text[: m.start()].rsplit("\n", 1)[-1]
    if "(" in before or "def " in before or "," in before:
        return False  # inside a call or a signature
    # digits, a lowercase word or mixed case (`hunter2`, `swordfish`, `aBc`); not `Title` or `UPPER` (code)
    if any(c.isdigit() for c in value):
        return True
    return value.isalpha() and (value.islower() or not (value.istitle() or value.isupper()))


def _assignments(text: str) -> Iterator[tuple[int, int]]:
    lowered = text.lower()
    for k in _KEYWORD.finditer(lowered):
        if k.group() == "key" and not lowered[max(0, k.start() - 12) : k.start()].rstrip("_-").endswith(_KEY_PREFIXES):
            continue
        m = _ASSIGN_TAIL.match(text, k.end())
        if m is None:
            continue
        if k.group().startswith(("pass", "pwd")) and k.group() not in ("password", "passwd", "passphrase") \
                and not text[k.end():m.start("q")].strip():
            continue  # "pass 'ignore' to ..." is prose, not `pass = '...'`
        value = m.group("value")
        end = m.end("value")
        quoted = bool(m.group("q"))
        if not quoted and end < len(text) and text[end] in "([":
            continue  # a call or subscript: `token = make_token(...)`
        # The keyword ends the name; the name itself runs back over word characters.
        start = k.start()
        while start > 0 and text[start - 1] in _NAME_CHARS and k.start() - start < 60:
            start -= 1
        name = text[start : k.end()]
        env_style = bool(_ENV_NAME.match(name)) and text[k.end() : m.start("value")] == "="
        if _looks_literal_secret(value, quoted, env_style) or (
                k.group() in ("password", "passwd", "passphrase") and _short_password(text, m, name)):
            yield m.span("value")
    for m in _CLI_FLAG.finditer(text):
        if _looks_literal_secret(m.group("value"), bool(m.group("q")), not m.group("value").startswith("$")):
            yield m.span("value")


def _bearer(text: str) -> Iterator[tuple[int, int]]:
    """``Authorization: Bearer <token>`` / ``token <token>`` / ``Basic <base64>``."""
    lowered = text.lower()
    for k in _SCHEME.finditer(lowered):
        if k.start() > 0 and lowered[k.start() - 1].isalnum():
            continue
        m = (_BASIC if k.group() == "basic" else _BEARER).match(text, k.end())
        if m and _has_classes(m.group("value"), 2) and not _HEX.match(m.group("value")):
            yield m.span("value")


# ----------------------------------------------------------------------------- entropy rule
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"^(?:0x)?[0-9a-fA-F-]+$")
_ENTROPY_MIN = 4.0


def shannon_entropy(s: str) -> float:
    """Bits per character of ``s`` (gitleaks' entropy check): random base64 scores near 5 or more."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _has_classes(s: str, k: int) -> bool:
    classes = (any(c.islower() for c in s), any(c.isupper() for c in s), any(c.isdigit() for c in s))
    return sum(classes) >= k


def _path_like(token: str) -> bool:
    """A path or URL tail (``org/pipermail/p2p-hackers/2001-September``): two or more word-like
    segments and no segment that looks random on its own."""
    parts = [p for p in token.split("/") if p]
    if len(parts) < 2:
        return False
    if any(len(p) >= 16 and _has_classes(p, 3) and wordiness(p) < 0.5 for p in parts):
        return False
    return sum(1 for p in parts if wordiness(p) >= 0.5) >= 2


def _high_entropy(text: str) -> Iterator[tuple[int, int]]:
    for m in _CANDIDATE.finditer(text):
        token = m.group().strip("=-_")
        if len(token) < 32 or _HEX.match(token) or wordiness(token) >= 0.6:
            continue
        if "_" in token and all(_SNAKE_PART.fullmatch(p) for p in token.split("_") if p):
            continue  # SCREAMING_SNAKE or snake_case identifier
        if not _has_classes(token, 3) or sum(c.isdigit() for c in token) < (1 if len(token) >= 40 else 2):
            continue
        if "/" in token and _path_like(token):
            continue
        if shannon_entropy(token) >= _ENTROPY_MIN:
            yield m.span()


_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")
_AWS_CONTEXT = re.compile(r"(?i)aws|AKIA|ASIA|secret")


def _aws_secret(text: str) -> Iterator[tuple[int, int]]:
    """A 40-character AWS secret access key standing near an AWS word or access key id."""
    for m in _AWS_SECRET.finditer(text):
        token = m.group()
        if not _has_classes(token, 3) or _HEX.match(token) or _path_like(token):
            continue
        window = text[max(0, m.start() - 120) : m.start()]
        if _AWS_CONTEXT.search(window) and shannon_entropy(token) >= 3.5:
            yield m.span()



# ------------------------------------------------------------ Aida's own contextual additions
# Each is small and has its own tests (tests/redact/test_redact_forms.py), with near misses that must
# stay unmasked.

_FORMAT = re.compile(r"%(?:\([\w.]+\))?[-#0 +]?\d*[sdrifxX]|%[A-Za-z_]\w*%")


def _value_ok(value: str) -> bool:
    """Not a placeholder, a variable, a format (``%s``, ``%(pw)s``, ``%PASS%``) or an earlier mask."""
    if value.startswith("%"):
        return not _FORMAT.fullmatch(value)
    return not (_PLACEHOLDER.match(value) or value.startswith(("[REDACTED", "$", "{{", "<")))


_ASCII_LOWER = {c: c + 32 for c in range(65, 91)}


def _same_length_lower(text: str) -> str:
    """``text`` lowercased with every position kept (``str.lower`` can lengthen a few letters)."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


# Found by the command, then the option searched for in the rest of its line.
_OPT_P = re.compile(r"(?<=\s)-p(?P<q>[\"']?)(?P<value>[^\s\"'`;|&]+)")
_OPT_USER = re.compile(r"\s(?:-u|--user|--http-user)(?:\s+|=)(?P<q>[\"']?)[^\s:\"'`]*:(?P<value>[^\s\"'`;|&]+)")
_SSHPASS = re.compile(r"\bsshpass\b(?:[ \t]+-[^p\s]\S*)*[ \t]+-p[ \t]*(?P<q>[\"']?)(?P<value>[^\s\"'`;|&]+)")
_CMD_MYSQL = re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb(?:-dump)?)\b")
_CMD_HTTP = re.compile(r"\b(?:curl|wget)\b")


def _command_lines(text: str) -> Iterator[tuple[int, int]]:
    """``mysql -pPW``, ``sshpass -p PW``, ``curl -u user:PW``: the password part."""
    low = _same_length_lower(text)
    found = []
    if "sshpass" in low:
        found += list(_SSHPASS.finditer(text))
    for cmd, opt, words in ((_CMD_MYSQL, _OPT_P, ("mysql", "mariadb")), (_CMD_HTTP, _OPT_USER, ("curl", "wget"))):
        for word in words:
            pos = low.find(word)
            while pos != -1:
                start = low.rfind("\n", 0, pos) + 1
                end = low.find("\n", pos)
                end = len(low) if end == -1 else end
                c = cmd.search(low, start, end)  # the command as a word on this line
                if c is not None:
                    found += list(opt.finditer(text, c.end(), end))
                pos = low.find(word, end)  # one search per line
    for m in found:
        value = m.group("value").rstrip(".,)")
        if value and _value_ok(value):
            yield m.start("value"), m.start("value") + len(value)


_ENV_ASSIGN = re.compile(r"(?<![A-Za-z0-9_])(?P<name>[A-Z][A-Z0-9_]{2,80})=(?P<q>[\"']?)(?P<value>[^\s\"'`;|&]{1,400})")
_ENV_SECRET_PARTS = frozenset({"SECRET", "SECRETS", "TOKEN", "PASSWORD", "PASSWD", "PASS", "PWD", "PASSPHRASE",
                               "CREDENTIAL", "CREDENTIALS", "SALT", "PEPPER", "APIKEY", "PRIVATE", "SIGNING",
                               "ENCRYPTION", "HMAC", "DSN"})
_ENV_PLAIN_TAIL = frozenset({"PATH", "FILE", "DIR", "URL", "URI", "NAME", "ID", "TYPE", "COUNT", "LENGTH", "LEN",
                             "SIZE", "TIMEOUT", "TTL", "EXPIRY", "EXPIRES", "HOST", "PORT", "USER", "USERNAME",
                             "ENDPOINT", "REGION", "MODE", "ENABLED", "VERSION", "HEADER", "FIELD", "ALGORITHM",
                             "METHOD", "PROVIDER", "SCOPE", "LIMIT", "MAX", "MIN", "TOKENS", "FORMAT", "POLICY"})


def _env_blocks(text: str) -> Iterator[tuple[int, int]]:
    """``SECRET_KEY_BASE=<hex>``, ``STRIPE_SECRET_LIVE=...``: an upper-case name with a secret word
    anywhere in it (the assignment rule covers names that end with one)."""
    for m in _ENV_ASSIGN.finditer(text):
        parts = m.group("name").split("_")
        if parts[-1] in _ENV_PLAIN_TAIL or not _ENV_SECRET_PARTS.intersection(parts) and not (
                "KEY" in parts[:-1] or parts[-1] in ("BASE", "KEYBASE")):
            continue
        if _looks_literal_secret(m.group("value"), bool(m.group("q")), True):
            yield m.span("value")


_PROSE = re.compile(r"\b(?P<word>password|passwd|passphrase|passcode|pin(?: code)?|wi-?fi key|api key|secret key|"
                    r"access key|token|secret)s?\s+(?:is|was|will be|is now|are|(?:has been |was )?(?:changed|set|reset) to)"
                    r"\s*[:=]?\s+(?P<q>[\"'\u201c\u2018`]?)(?P<value>[^\s\"'\u201d\u2019`]{3,200})")
_PROSE_WORDS = frozenset("""a an the in on at of to for by from with into stored saved kept written listed shared sent
not no never still also now just only being been required needed missing empty blank set unset same different
wrong right correct incorrect invalid valid expired revoked leaked compromised weak strong long short safe secure
fine ok okay good bad new old changed reset rotated there here it this that mine yours his hers ours theirs
unknown known optional public private secret hidden encrypted hashed too very really case sensitive required
what where which who how why because and or but if then so out up down off over under""".split())


_CLOSING = {"\u201c": "\u201d", "\u2018": "\u2019"}


def _prose(text: str) -> Iterator[tuple[int, int]]:
    """"my password is hunter2", "the wifi key was 'blue-horse'": the value said after the word."""
    for m in _PROSE.finditer(_same_length_lower(text)):
        value = text[m.start("value"):m.end("value")].rstrip(".,;:!?)")
        if len(value) < 3 or not _value_ok(value):
            continue
        end = m.start("value") + len(value)
        if m.group("q"):  # a quoted value runs to its closing quote: 'blue horse 42'
            close = _CLOSING.get(m.group("q"), m.group("q"))
            stop = text.find(close, m.start("value"), m.start("value") + 200)
            if stop > m.start("value") and "\n" not in text[m.start("value"):stop]:
                yield m.start("value"), stop
                continue
        plain_word = value.isalpha()
        if plain_word:
            word = m.group("word").lower()
            at_clause_end = end >= len(text) or text[end] in ".,;:!?)\"'\u201d\u2019\n"
            if m.group("q"):
                pass  # a quoted value is a value
            elif word in ("token", "secret", "api key", "secret key", "access key") or not at_clause_end \
                    or value.lower() in _PROSE_WORDS:
                continue
        elif value.lower() in _PROSE_WORDS or (value.isdigit() and len(value) < 12 and "pass" not in
                                                m.group("word") and not m.group("word").startswith("pin")):
            continue  # "the token is 3600 seconds" (a PIN or a password may well be digits)
        yield m.start("value"), end


_B64_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,4096}={0,2}(?![A-Za-z0-9+/=_-])")


def _encoded(text: str) -> Iterator[tuple[int, int]]:
    """Base64 (standard or URL-safe) whose decoded text holds a secret by the other rules."""
    for m in _B64_TOKEN.finditer(text):
        raw = m.group().rstrip("=")
        if len(raw) % 4 == 1 or raw.islower() or raw.isupper() or _HEX.match(raw) or wordiness(raw) >= 0.6:
            continue  # base64 of text mixes cases; identifiers and hex do not need decoding
        try:
            decoded = base64.b64decode(raw.replace("-", "+").replace("_", "/") + "=" * (-len(raw) % 4),
                                       validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        if len(decoded) < 6 or not all(c.isprintable() or c in "\n\r\t" for c in decoded):
            continue
        if redact(decoded).findings:
            yield m.span()


# ------------------------------------------------------------------------------- the rule set
# Order matters: when two rules cover the same characters the earlier one names the finding.
RULES: tuple[Rule, ...] = (
    Rule("private-key", _private_key, ("private key",)),
    Rule("anthropic-key", _rx(r"sk-ant-(?:api|admin|oat|sid)\d{0,3}-[A-Za-z0-9_-]{20,}" + _R), ("sk-ant-",)),
    Rule(
        "openai-key",
        _rx(r"sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}" + _R
            + r"|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}" + _R
            + r"|sk-[A-Za-z0-9]{32,}" + _R),
        ("sk-",),
    ),
    Rule("aws-key", _rx(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}" + _R), ("akia", "asia", "abia", "acca", "a3t")),
    Rule("github-token", _rx(r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + _R), ("gh", "github_pat_")),
    Rule(
        "gitlab-token",
        _rx(r"(?:gl(?:pat|ptt|dt|rt|cbt|soat|ffct|imt|agent|oas|ft)-[A-Za-z0-9_-]{20,}"
            + r"|GR1348941[A-Za-z0-9_-]{20,})" + _R),
        ("gl", "gr1348941"),
    ),
    Rule(
        "slack-token",
        _rx(r"(?:xox[abposre]-[0-9A-Za-z-]{10,}|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)"
            + r"|https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}"),
        ("xox", "xapp-", "hooks.slack.com"),
    ),
    Rule("stripe-key", _rx(r"(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}" + _R), ("_live_", "_test_", "_prod_")),
    Rule(
        "google-key",
        _rx(r"(?:AIza[A-Za-z0-9_-]{35}|GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[A-Za-z0-9_-]{20,})" + _R),
        ("aiza", "gocspx-", "ya29."),
    ),
    Rule("mailgun-key", _rx(r"key-[0-9a-f]{32}" + _R), ("key-",)),
    Rule("jwt", _rx(r"ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}={0,2}"), ("ey",)),
    Rule("url-password", _rx(r"://[^\s:/@\"'<>]{0,100}:(?P<pw>[^\s@/\"'<>$]{1,200})@", group=1, bounded=False), ("://",)),
    Rule("command-line-password", _command_lines, ("mysql", "mariadb", "sshpass", "-u", "--user")),
    Rule("aws-secret", _aws_secret, ("aws", "akia", "asia", "secret")),
    Rule("bearer-token", _bearer, ("bearer", "basic", "token")),
    Rule("secret-assignment", _assignments, ("pass", "pwd", "secret", "token", "key", "credential")),
    Rule("env-secret", _env_blocks, ("=",)),
    Rule("password-in-prose", _prose, ("pass", "pin", "key", "token", "secret")),
)
# After gitleaks' rules: the catch-alls, which name a finding only when nothing specific did.
LATE_RULES: tuple[Rule, ...] = (
    Rule("encoded-secret", _encoded, ()),
    Rule("high-entropy", _high_entropy, ()),
)
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def redact(text: str) -> Redacted:
    """Mask every secret in ``text``; return the masked text and the findings (rule + position).

    Matching sees the text without invisible characters (a key with a zero-width space inside
    is still a key); the output keeps every character that is not part of a secret."""
    if not text:
        return Redacted(text or "", ())
    shifted = None
    seen = text
    if _INVISIBLE.search(text):
        # Where each removed character sat in the text without them: a position n there is
        # n + (removals at or before it) in the original.
        shifted = [m.start() - i for i, m in enumerate(_INVISIBLE.finditer(text))]
        seen = _INVISIBLE.sub("", text)
    lowered = seen.lower()
    spans: list[tuple[int, int, str]] = []
    starts: list[int] = []  # the spans taken so far, sorted, never overlapping
    ends: list[int] = []

    def add(start: int, end: int, name: str) -> None:
        i = bisect_left(starts, end)  # spans before i start before `end`; only the last may reach `start`
        if end > start and not (i and ends[i - 1] > start):
            starts.insert(i, start)
            ends.insert(i, end)
            spans.append((start, end, name))

    for rule in RULES:
        if rule.hints and not any(h in lowered for h in rule.hints):
            continue
        for start, end in rule.find(seen):
            add(start, end, rule.name)
    for start, end, name in gitleaks_spans(seen, lowered):
        add(start, end, name)
    for rule in LATE_RULES:
        for start, end in rule.find(seen):
            add(start, end, rule.name)
    if not spans:
        return Redacted(text, ())
    if shifted is not None:
        spans = [(s + bisect_right(shifted, s), e - 1 + bisect_right(shifted, e - 1) + 1, n) for s, e, n in spans]
    spans.sort()
    out, pos = [], 0
    for start, end, name in spans:
        out.append(text[pos:start])
        out.append(MASK.format(name))
        pos = end
    out.append(text[pos:])
    return Redacted("".join(out), tuple(Finding(n, s, e) for s, e, n in spans))
