"""Privacy before anything leaves the machine: who the user is stays out of what a model sees.

A transcript is full of the user's identity without a secret in sight: home folders carry their
login name (``/Users/<name>/...``, ``/home/<name>/...``, ``C:\\Users\\<name>\\...``, dozens of
times a session), shell prompts and git output carry e-mail addresses, and the machine's host
name turns up in prompts and URLs. :func:`mask` rewrites them before a transcript goes to an LLM
provider: a home folder becomes ``~``, the login name elsewhere ``<user>``, an address ``<email>``,
a host name ``<host>``. Secrets are the redaction gate's job (:mod:`brain_core.redact`); this is
the identity around them.

:func:`project_name` names a project by its repository, never by a worktree folder or a home
folder, so a ``project:<name>`` tag carries neither a random worktree id nor a login name.
"""

from __future__ import annotations

import functools
import getpass
import os
import re
import socket
from pathlib import Path, PurePosixPath, PureWindowsPath

_HOME = re.compile(
    r"(?P<prefix>/Users/|/home/|/var/home/|[A-Za-z]:[\\/]{1,2}Users[\\/]{1,2}|[\\/]{2}Users[\\/]{2})"
    r"(?P<name>[A-Za-z0-9._-]{1,64})(?=$|[\\/\s\"'`<>:;,)\]}])"
)
_EMAIL = re.compile(r"(?<![\w.+-])([A-Za-z0-9._%+-]{1,64})@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24})\b")
# A shell prompt: user@host:~/path or user@host:/path.
_PROMPT = re.compile(r"(?<![\w.+-])([a-z_][a-z0-9_.-]{0,31})@([A-Za-z0-9][A-Za-z0-9-]{0,62})(?=:[~/])")
# Host names that only mean something on the user's network.
# Not a file name: ".env.local", "settings.local.json" are no hosts.
_LOCAL_HOST = re.compile(r"(?<![\w./@-])[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63})*"
                         r"\.(?:local|lan|internal|localdomain|home\.arpa|corp|intranet)(?![\w-]|\.\w)", re.I)
# Login names that are roles, not people: masking every "dev" in a transcript would wreck it.
_GENERIC = frozenset("user users root admin dev developer runner ubuntu debian ec2-user vagrant docker node app "
                     "test tests shared public default guest build ci home work code src projects USER".lower().split())
# Folders that hold git worktrees of a repository: <repo>/.worktrees/<n>, <repo>/.claude/worktrees/<n>.
_WORKTREE_DIRS = {".worktrees", "worktrees", ".worktree", "worktree", ".git-worktrees"}

# Where a session shows who its user is besides the home folder: git's identity as set, listed or
# read back ("git config user.name" and its output, the next tool block; not git log's authors,
# who are often colleagues), and the owner column of an `ls -l` listing (whitespace already folded by the transcript).
_WHO = r"[A-Za-z][\w'.-]*(?:[ \t]+[A-Za-z][\w'.-]*){0,3}"
_GIT_IDENTITY = (
    re.compile(rf"git\s+config\s+(?:--(?:global|local|system)\s+)?user\.(?P<k>name|email)\s+[\"']?(?P<v>{_WHO}|\S+@\S+)[\"']?"),
    re.compile(rf"(?:^|\s)user\.(?P<k>name|email)=(?P<v>{_WHO}|\S+@\S+?)(?=\s+user\.|\s*$|\n)", re.M),
    re.compile(rf"git\s+config\s+(?:--\S+\s+)*user\.(?P<k>name|email)[ \t]*\n+\[tool\][ \t]+(?P<v>{_WHO}|\S+@\S+)"),
)
_LS_OWNER = re.compile(r"(?<!\S)[-dlcbps][rwxsStT-]{9}[@+.]?\s+\d+\s+(?P<u>[A-Za-z_][\w.-]{0,63})\s+[\w.-]+\s+\d")
_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*")


def name_parts(value: str) -> set[str]:
    """The names to mask for one identity ("Jane Doe", "jane.doe", "gh-jdoe"): the whole, lowercased,
    and each part of three letters or more that is no role and no English function word."""
    from brain_core.text.stopwords import FUNCTION_WORDS

    value = value.strip().strip("\"'").lower()
    out = {value} if len(value) >= 3 and value not in _GENERIC and " " not in value else set()
    for part in re.split(r"[\s._+-]+", value):
        if len(part) >= 3 and part not in _GENERIC and part not in FUNCTION_WORDS and not part.isdigit():
            out.add(part)
    return out


def local_identity() -> tuple[set[str], set[str]]:
    """(login names, host names) of this machine, lowercased; empty sets when unknown."""
    names, hosts = _local_identity()
    return set(names), set(hosts)


@functools.lru_cache(maxsize=1)
def _local_identity() -> tuple[frozenset[str], frozenset[str]]:
    names, hosts = set(), set()
    for get in (getpass.getuser, lambda: Path.home().name, lambda: os.environ.get("USER") or "",
                lambda: os.environ.get("USERNAME") or ""):
        try:
            value = get()
        except Exception:  # noqa: BLE001 - getpass raises several things when there is no user
            continue
        if value and value.lower() not in _GENERIC:
            names.add(value.lower())
    try:
        host = socket.gethostname()
    except OSError:
        host = ""
    if host and host.lower() not in ("localhost", "localhost.localdomain"):
        hosts.add(host.lower())
        hosts.add(host.split(".")[0].lower())
    return frozenset(names), frozenset(hosts)


def mask(text: str, *, names: set[str] | None = None, hosts: set[str] | None = None) -> str:
    """``text`` with home-folder user names, e-mail addresses and host names masked.

    ``names``/``hosts``: the login and host names to mask wherever they stand as words (default:
    this machine's, plus every name seen in a home-folder path of ``text``).
    """
    if not text:
        return text
    if names is None or hosts is None:
        own_names, own_hosts = local_identity()
        names = own_names if names is None else names
        hosts = own_hosts if hosts is None else hosts
    names = {n.lower() for n in names}
    hosts = {h.lower() for h in hosts if h}
    out = _unhome(text, names)
    for m in _PROMPT.finditer(text):
        if m.group(1).lower() not in _GENERIC:
            names.add(m.group(1).lower())
        hosts.add(m.group(2).lower())
    out = _PROMPT.sub("<user>@<host>", out)
    out = _EMAIL.sub(lambda m: m.group(0) if m.group(1).lower() == "git" else "<email>", out)
    out = _LOCAL_HOST.sub("<host>", out)
    for host in sorted(hosts, key=len, reverse=True):
        if len(host) >= 3:
            out = re.sub(rf"(?<![\w.-]){re.escape(host)}(?![\w-])", "<host>", out, flags=re.I)
    return _mask_names(out, names)


def mask_user(text: str, *, names: set[str]) -> str:
    """``text`` with home folders as ``~`` and the login names ``names`` as ``<user>``, and nothing
    else changed: what a record written to the brain (a git repository, often pushed) may not carry."""
    if not text:
        return text
    names = {n.lower() for n in names}
    out = _unhome(text, names)
    return _mask_names(out, names)


def _unhome(text: str, names: set[str]) -> str:
    """``text`` with each home folder as ``~``; the login names in them added to ``names``."""
    for m in _HOME.finditer(text):
        if m.group("name").lower() not in _GENERIC:
            names.add(m.group("name").lower())
    return _HOME.sub(lambda m: m.group(0) if m.group("name").lower() in _GENERIC else "~", text)


def _mask_names(out: str, names: set[str]) -> str:
    """``out`` with each of ``names`` (login names) masked as ``<user>``, with the word it is part of."""
    names = {n for n in names if len(n) >= 3 and n not in _GENERIC}
    if names:
        # A name is masked with the word it is part of: "Jane_Doe" in an `ls -l` owner column,
        # "jdoe/fix-login" as a branch, "jdoe-notes" as a folder.
        def token(m: re.Match) -> str:
            t = m.group(0)
            parts = re.split(r"([._-]+)", t)
            hit = [p.lower() in names for p in parts[::2]]
            if t.lower() in names or (any(hit) and len(hit) <= 2):
                return "<user>"
            if not any(hit):
                return t
            # a longer word keeps what is not the name: "-home-jdoe-projects-x" -> "-home-<user>-projects-x"
            return "".join("<user>" if i % 2 == 0 and hit[i // 2] else p for i, p in enumerate(parts))

        out = _TOKEN.sub(token, out)
        for name in sorted(names, key=len, reverse=True):  # a name with a space or another sign in it
            if not _TOKEN.fullmatch(name):
                out = re.sub(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", "<user>", out, flags=re.I)
    return out


def identity(text: str, *, cwd: str | None = None) -> tuple[set[str], set[str]]:
    """(login names, host names) to keep out of anything derived from ``text``: this machine's,
    the names in ``text``'s home-folder paths and in ``cwd`` (the session's own folder), the user's
    git identity as the session shows it (``git config user.name/email``),
    the owners in its ``ls -l`` listings, and the hosts of its addresses and local names."""
    names, hosts = local_identity()
    text = f"{text or ''}\n{cwd or ''}"
    for rx in _GIT_IDENTITY:
        for m in rx.finditer(text):
            value = m.group("v").strip()
            if "@" in value:
                names |= name_parts(value.split("@", 1)[0])
            else:
                names |= name_parts(value)
    for m in _LS_OWNER.finditer(text):
        owner = m.group("u").lower()
        if owner not in _GENERIC and not owner.startswith("_") and owner not in ("wheel", "staff", "nobody", "daemon"):
            names |= name_parts(owner)
    for m in _HOME.finditer(text or ""):
        if m.group("name").lower() not in _GENERIC:
            names.add(m.group("name").lower())
    for m in _EMAIL.finditer(text or ""):
        if m.group(1).lower() != "git":
            names |= name_parts(m.group(1))
            hosts.add(m.group(2).lower())
    for m in _PROMPT.finditer(text or ""):
        if m.group(1).lower() not in _GENERIC:
            names.add(m.group(1).lower())
        hosts.add(m.group(2).lower())
    for m in _LOCAL_HOST.finditer(text or ""):
        hosts.add(m.group(0).lower())
        hosts.add(m.group(0).split(".")[0].lower())
    return names, hosts


def leaks(text: str, *, names: set[str] | None = None, hosts: set[str] | None = None) -> bool:
    """Whether ``text`` (a tag, a key) carries a user or host name, or anything :func:`mask`
    would have masked. Tags are checked word by word: ``jdoe-notes`` leaks ``jdoe``."""
    if names is None or hosts is None:
        own_names, own_hosts = local_identity()
        names = own_names if names is None else names
        hosts = own_hosts if hosts is None else hosts
    if mask(text, names=names, hosts=hosts) != text:
        return True
    low = text.lower()
    words = set(re.split(r"[^a-z0-9]+", low))
    blocked = {n for n in names if len(n) >= 3 and n not in _GENERIC}
    blocked |= {h.split(".")[0] for h in hosts if len(h.split(".")[0]) >= 3}
    return bool(words & blocked) or any(h in low for h in hosts if "." in h or "-" in h)


# ------------------------------------------------------------------------------- project name
def project_name(cwd: str | None, *, repository_url: str | None = None) -> str | None:
    """The repository's name for a working folder.

    The remote's name when the agent recorded one; else, when the folder exists here, the main
    checkout of its git repository (a linked worktree's ``.git`` file points back at it); else
    the folder, stepping out of worktree holders (``<repo>/.worktrees/3``,
    ``<repo>/.claude/worktrees/x``, ``<repo>-worktrees/<repo>-x``). A home folder itself is no
    project (its name is the user's).
    """
    if repository_url:
        name = _repo_from_url(repository_url)
        if name:
            return name
    if not cwd:
        return None
    cwd = cwd.rstrip("/\\") or cwd
    if re.fullmatch(r"[A-Za-z]:", cwd):  # a drive's root
        return None
    found = _from_git(cwd)
    if found:
        return found
    pure = PureWindowsPath(cwd) if re.match(r"^[A-Za-z]:[\\/]|^\\\\", cwd) else PurePosixPath(cwd)
    parts = [p for p in pure.parts if p not in ("/", "\\") and not p.endswith(":\\")]
    if not parts:
        return None
    for i in range(len(parts) - 1, -1, -1):
        low = parts[i].lower()
        if low == ".claude-worktrees":  # Claude desktop: ~/.claude-worktrees/<repo>/<name>
            return parts[i + 1] if i + 1 < len(parts) else None
        if low in _WORKTREE_DIRS and i > 0:
            if parts[i - 1].lower() == ".codex":  # ~/.codex/worktrees/<id>/<repo>
                return parts[i + 2] if i + 2 < len(parts) else None
            before = parts[i - 1]
            if before.lower() == ".claude" and i > 1:
                before = parts[i - 2]
            return None if _is_home(parts[: parts.index(before) + 1]) else before
        if low.endswith(("-worktrees", ".worktrees", "_worktrees")) and i + 1 < len(parts):
            return parts[i][: -len("-worktrees")] or None
    if _is_home(parts):
        return None
    return parts[-1]


def _is_home(parts: list[str]) -> bool:
    """Whether the path made of ``parts`` is a home folder itself (``/home/x``, ``C:\\Users\\x``)."""
    if len(parts) == 2 and parts[0].lower() in ("home", "users"):
        return True
    if len(parts) == 3 and parts[0].lower() == "var" and parts[1].lower() == "home":
        return True
    return len(parts) == 1 and parts[0].lower() == "root"


def _repo_from_url(url: str) -> str | None:
    tail = re.split(r"[/:]", url.strip().rstrip("/"))[-1]
    tail = tail[:-4] if tail.endswith(".git") else tail
    return tail if re.fullmatch(r"[A-Za-z0-9._-]{1,100}", tail or "") else None


def _from_git(cwd: str) -> str | None:
    """The main checkout's folder name, read from the repository on this machine (no git run)."""
    try:
        path = Path(cwd)
        if not path.is_dir():
            return None
        for folder in (path, *path.parents):
            dotgit = folder / ".git"
            if dotgit.is_dir():
                return folder.name or None
            if dotgit.is_file():
                text = dotgit.read_text(encoding="utf-8", errors="replace")
                m = re.match(r"gitdir:\s*(.+)", text.strip())
                if not m:
                    return folder.name
                gitdir = Path(m.group(1).strip())
                if not gitdir.is_absolute():
                    gitdir = (folder / gitdir).resolve()
                if gitdir.parent.name == "worktrees" and gitdir.parent.parent.name == ".git":
                    return gitdir.parent.parent.parent.name or None
                return folder.name
            if folder == Path.home():
                return None
    except OSError:
        return None
    return None
