"""The user's names stay home: what an LLM provider receives is recorded by a local fake provider
(tests/helpers/fake_llm_server.py) and must not hold the user's login, git identity or e-mail, wherever
the session shows them: `ls -l` owner columns, branch names, git config output, prompts, paths,
Claude's encoded project folders. Real session files (the shared fixtures) and crafted ones."""

from __future__ import annotations

import json
import re

import pytest

from brain_core.harvest.privacy import identity, mask, name_parts
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.paths import SHARED

REAL = SHARED / "fixtures" / "clients" / "real"
# The user's login, git name and address as the crafted session shows them (glossary names).
LOGIN, FULL, EMAIL = "Tomasz_Kowalczyk", "Tomasz Kowalczyk", "tomasz.kowalczyk@example.com"
BRANCH = "kowalczyk-tomasz/alt-better-multi-session-flow"

CRAFTED = f"""[user] why does the export fail on my machine?

[tool] Bash: ls -l exports

[tool] total 16 -rw-r--r--@ 1 {LOGIN} staff 2048 Nov 30 10:02 report.csv drwxr-xr-x 4 root wheel 128 Nov 30 10:01 old

[tool] Bash: git config user.name

[tool] {FULL}

[tool] Bash: git config user.email

[tool] {EMAIL}

[tool] Bash: git branch --show-current

[tool] {BRANCH}

[assistant] The export folder belongs to {LOGIN}; see /tmp/claude-501/-Users-{LOGIN}-src-ledger/tasks/a.output

[user] We decided to write exports atomically, because a half-written CSV broke the import twice."""


def _provider(url: str):
    from brain_core.llm.http import Retry
    from brain_core.llm.openai_compat import OpenAICompatible

    return OpenAICompatible(model="m", base_url=url + "/v1", api_key=None, name="openai-compatible",
                            retry=Retry(timeout=5, retries=0, backoff=0))


def _sent(text: str, context: dict) -> str:
    """What the provider received when ``text`` was distilled with ``context``."""
    from brain_core.harvest.distill import distill

    with FakeLLMServer('{"records": []}') as server:
        assert distill(text, profile="claude", source="claude:session:x", context=context,
                       llm=_provider(server.url)) == []
        posts = server.posts()
    assert len(posts) == 1
    return json.dumps(posts[0]["body"], ensure_ascii=False)


def _said(sent: str, name: str) -> int:
    return len(re.findall(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", sent, re.I))


def test_a_name_is_learned_from_git_ls_and_the_folder_and_masked_everywhere():
    names, hosts = identity(CRAFTED, cwd=f"/Users/{LOGIN}/src/ledger")
    assert {"tomasz", "kowalczyk", LOGIN.lower()} <= names
    out = mask(CRAFTED, names=names, hosts=hosts)
    for part in ("tomasz", "kowalczyk"):
        assert _said(out, part) == 0, out
    assert "1 <user> staff 2048" in out  # the owner column
    assert "<user>/alt-better-multi-session-flow" in out  # the branch keeps its topic, not its owner
    assert re.search(r"-Users-<user>(?:_<user>)?-src-ledger/tasks", out), out  # Claude's encoded project folder
    assert "root wheel" in out and "<email>" in out
    assert "write exports atomically, because a half-written CSV" in out  # what was said still goes


def test_names_that_are_words_or_roles_are_not_masked():
    assert name_parts("Will Runner") == set()  # "will" is a word, "runner" a role
    assert name_parts("jane.doe") == {"jane.doe", "jane", "doe"}
    text = "we will ship it; the runner is fine"
    assert mask(text, names=name_parts("Will Runner"), hosts=set()) == text


def test_the_crafted_session_reaches_the_provider_without_the_users_names():
    sent = _sent(CRAFTED, {"project": "ledger", "cwd": f"/Users/{LOGIN}/src/ledger"})
    assert "write exports atomically" in sent
    for part in ("tomasz", "kowalczyk", "tomasz.kowalczyk", LOGIN):
        assert _said(sent, part) == 0, (part, sent)


def test_the_folder_alone_tells_the_name_when_the_text_has_no_path():
    text = "[tool] total 8 -rw-r--r-- 1 jdoe staff 10 Nov 30 a.txt\n\n[user] jdoe/fix-login is the branch to push."
    sent = _sent(text, {"cwd": "/home/jdoe/src/app"})
    assert _said(sent, "jdoe") == 0 and "<user>/fix-login" in sent


REAL_SESSIONS = {  # file -> the user's login, as its paths show it
    "claude_code/short.jsonl": "marco",
    "claude_code/tool_heavy.jsonl": "marco",
    "codex/simonw_sample_codex_session.jsonl": "macmini",
}


@pytest.mark.parametrize("rel", sorted(REAL_SESSIONS))
def test_real_sessions_reach_the_provider_without_their_users_login(rel):
    from brain_core.harvest.run import session_text
    from brain_core.harvest.sources import claude, codex
    from brain_core.redact import redact

    path = REAL / rel
    if not path.exists():
        pytest.skip(f"{path} is not on this machine")
    session = (claude if rel.startswith("claude") else codex).parse(path)
    text = redact(session_text(session, offline=False)).text
    login = REAL_SESSIONS[rel]
    raw = path.read_text(encoding="utf-8", errors="replace")
    assert login in raw  # the file does carry it
    sent = _sent(text, {"project": session.project, "title": session.title, "cwd": session.cwd})
    assert _said(sent, login) == 0, re.findall(rf".{{40}}{login}.{{20}}", sent, re.I)[:3]


def test_the_sweep_sends_the_sessions_folder_along_for_masking(brain, tmp_path):
    """Through the whole harvest: a Claude session whose text never shows the home folder, only
    the user's login in an `ls -l` owner column and a branch; the cwd tells who the user is."""
    from brain_core.harvest.run import sweep
    from tests.helpers.harvest_homes import make_homes, session_files

    t0 = 1_787_000_000.0
    roots = make_homes(tmp_path / "home", mtime=t0, memory=False)
    path = session_files(roots)["claude"]
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    for e in lines:
        if e.get("cwd"):
            e["cwd"] = "/Users/ngozi/src/ledger"
        msg = e.get("message")
        if e.get("type") == "user" and isinstance(msg, dict) and isinstance(msg.get("content"), str) \
                and msg["content"].startswith("The Stripe webhook handler"):
            msg["content"] += " ls says -rw-r--r--@ 1 ngozi staff 12 Nov 30 a.txt; push ngozi/webhook-retries."
    path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    import os

    os.utime(path, (t0, t0))
    for k, v in {"llm.provider": "openai-compatible", "llm.retries": 0, "llm.timeout": 5, "llm.model": "m"}.items():
        brain.config.set(k, v)
    with FakeLLMServer('{"records": []}') as server:
        brain.config.set("llm.base_url", server.url + "/v1")
        sweep(brain, sources=("claude",), roots=roots, clock=lambda: t0 + 3600, include_mirror=False)
        posts = server.posts()
    assert posts
    sent = json.dumps(posts[0]["body"])
    assert "Stripe webhook handler" in sent and "<user>/webhook-retries" in sent
    assert _said(sent, "ngozi") == 0
