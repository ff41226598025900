"""The distiller: extractive (offline) and LLM (against a local OpenAI-compatible server)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from brain_core.errors import ProviderError
from brain_core.harvest.distill import distill, extractive, make_key
from brain_core.harvest.model_answer import MAX_RECORDS, validate
from brain_core.harvest.sources import claude, codex, gemini
from brain_core.marks import OFFLINE_CONFIDENCE, OFFLINE_TAG
from brain_core.redact import redact
from tests.helpers.harvest_homes import FIXTURES


# ------------------------------------------------------------------------------ extractive
@pytest.mark.parametrize("parse,name", [(claude.parse, "claude_code_session.jsonl"),
                                         (codex.parse, "codex_rollout.jsonl"),
                                         (gemini.parse, "gemini_chat.jsonl")])
def test_extractive_finds_the_decision_in_each_sample(parse, name):
    s = parse(FIXTURES / name)
    recs = distill(redact(s.transcript()).text, profile=s.tool, source=s.source, context={"project": "acme-billing"})
    decisions = [r for r in recs if r["type"] == "decision"]
    assert len(decisions) == 1, recs
    r = decisions[0]
    # Beside it at most the agent's root cause ("`handle_event` posts to the ledger exactly once ..."): never
    # the agent's report of the decision done, nor its advice about the key pasted at the end.
    for other in recs:
        assert other is r or (other["type"] == "fact" and "handle_event" in other["body"]), recs
    assert r["type"] == "decision" and r["profile"] == s.tool and r["source"] == s.source
    assert r["tags"] == ["project:acme-billing", OFFLINE_TAG]  # no model read it: marked, and trusted less
    assert r["confidence"] == OFFLINE_CONFIDENCE < 1
    assert "exponential backoff" in r["body"] and "from now on" in r["body"]  # the anaphor pulls its antecedent in
    assert r["key"] == "exponential-backoff-capped-six-attempts-total"
    assert "REDACTED" not in r["body"]


def test_a_codex_directive_is_no_record():
    review = ('::code-comment{title="[P2] Sessions UI test is timezone-dependent" body="This expectation hard-codes the UTC '
              'rendering of a `Z` timestamp. In the current environment (`Africa/Nairobi`, UTC+3), the test gets `04-04 12:00`, '
              'so this new test will fail outside UTC." file="/Users/jdoe/dev/bridge/src/test/ui.test.ts" start=3 end=3}')
    text = ("[user] Review the branch.\n\n[assistant] " + review + "\n\n[user] ok\n\n[assistant] The migration fails because "
            "`ALTER TABLE ... MODIFY` is not supported by SQLite, so `alembic/env.py` must render batch operations with "
            "`render_as_batch=True`.\n\n[user] thanks")
    bodies = [r["body"] for r in extractive(text, profile="codex", source="codex:session:x")]
    assert any("render_as_batch" in b for b in bodies) and not any("UTC" in b or "code-comment" in b for b in bodies), bodies


def test_pure_tool_noise_yields_nothing():
    noise = "\n\n".join([
        "[user] run the tests",
        "[tool] Bash: python -m pytest -q",
        "[tool] FAILED tests/test_x.py::test_never_retries - AssertionError: must always be 6 because of policy",
        "[assistant] Let me look at the failing test.",
        "[tool] Read: tests/test_x.py",
        "[assistant] I'll fix the assertion and re-run.",
        "[tool] 7 passed in 0.91s",
        "[assistant] All 7 tests pass now.",
    ])
    assert extractive(noise, profile="claude", source="claude:session:x") == []


@pytest.mark.parametrize("text", [
    "[user] Should we always retry? Maybe never?",
    "[user] Never mind, run it again.",
    "[user] For now, don't bother with the linter on this branch.",
    "[assistant] The handler never retries and always raises on a 503.",  # narration of code, not a rule
    "[user] ok thanks",
])
def test_questions_hedges_and_narration_are_not_memories(text):
    assert extractive(text, profile="claude", source="s") == []


def test_rules_preferences_and_reasons():
    text = "\n\n".join([
        "[user] We decided to keep Postgres 16 because the ledger needs serializable isolation.",
        "[assistant] Understood.",
        "[user] Always run ruff before committing. Don't use print for logging in services.",
        "[user] I prefer small, reviewable commits with conventional-commit subjects.",
        "[user] The deploy script lives in ops/deploy.sh.",
    ])
    recs = extractive(text, profile="codex", source="codex:session:1", context={"project": "billing", "tags": ["x"]})
    by_type = {}
    for r in recs:
        by_type.setdefault(r["type"], []).append(r["body"])
    assert any("Postgres 16 because" in b for b in by_type["decision"])
    assert any("ruff before committing" in b for b in by_type["instruction"])
    assert any("small, reviewable commits" in b for b in by_type["preference"])
    assert not any("ops/deploy.sh" in r["body"] for r in recs)
    assert all(r["tags"] == ["project:billing", "x", OFFLINE_TAG] for r in recs)
    assert len({r["key"] for r in recs}) == len(recs)


def test_at_most_five_and_code_is_skipped():
    rules = ["[user] Always pin Python dependencies with hashes in requirements files.",
             "[user] Never log request bodies from the payments service.",
             "[user] Always run database migrations inside a transaction.",
             "[user] Don't import from tests inside application modules.",
             "[user] Always tag docker images with the git commit.",
             "[user] Never store timestamps without a timezone in Postgres.",
             "[user] Always put feature flags behind the config loader."]
    code = "[assistant] Here:\n```python\n# never do this\nalways = True  # always\n```"
    recs = extractive("\n\n".join(rules + [code]), profile="me", source="s")
    assert len(recs) == MAX_RECORDS
    assert not any("always = True" in r["body"] for r in recs)


def test_plain_text_meeting_transcript():
    text = ("[00:01:02] Siobhan: Okay, so the plan. We decided to move the release to Thursday because QA needs "
            "two more days.\n[00:02:10] Tomasz: Sounds good.\n[00:03:00] Siobhan: From now on, every release needs a "
            "rollback plan in the ticket.")
    recs = extractive(text, profile="meeting", source="meeting:abc")
    bodies = [r["body"] for r in recs]
    assert any(b.startswith("We decided to move the release to Thursday") for b in bodies)
    assert any("rollback plan" in b for b in bodies)
    assert not any("Siobhan:" in b for b in bodies)


def test_keys_are_stable_and_never_carry_secrets():
    a = make_key("Go with exponential backoff, capped at six attempts total.")
    assert a == make_key("Go with exponential backoff, capped at six attempts total.")
    key = make_key("Use AKIAIOSFODNN7EXAMPLE for the staging bucket")
    assert "akiaiosfodnn7example" not in key


# ------------------------------------------------------------------------------- LLM distiller
class Server:
    """An OpenAI-compatible /v1/chat/completions endpoint on 127.0.0.1 answering from a script."""

    def __init__(self) -> None:
        self.answers: list[str] = []
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                outer.requests.append(body)
                content = outer.answers.pop(0) if outer.answers else "{}"
                data = json.dumps({"id": "c", "object": "chat.completion", "model": body["model"],
                                   "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data.encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def llm_server():
    server = Server()
    yield server
    server.close()


@pytest.fixture
def provider(llm_server):
    from brain_core.llm.http import Retry
    from brain_core.llm.openai_compat import OpenAICompatible

    return OpenAICompatible(model="distiller-test", base_url=llm_server.url, api_key=None, name="openai-compatible",
                            retry=Retry(timeout=5, retries=0, backoff=0))


GOOD = {"records": [
    {"type": "decision", "key": "webhook-retry-policy",
     "body": "Outbound webhooks retry with exponential backoff, capped at six attempts, then dead-letter to "
             "webhook_failures, because the ledger API drops events on 503.", "tags": ["webhooks"]},
    {"type": "instruction", "key": "staging-stripe-keys", "body": "Staging uses an sk_test_ key from the secrets manager."},
]}


def test_llm_good_answer(llm_server, provider):
    llm_server.answers = [json.dumps(GOOD)]
    s = claude.parse(FIXTURES / "claude_code_session.jsonl")
    text = redact(s.transcript()).text
    recs = distill(text, profile="claude", source=s.source, context={"project": "acme-billing", "title": s.title},
                   llm=provider)
    assert [r["key"] for r in recs] == ["webhook-retry-policy", "staging-stripe-keys"]
    assert recs[0]["tags"] == ["project:acme-billing", "webhooks"] and recs[1]["tags"] == ["project:acme-billing"]
    assert all(r["profile"] == "claude" and r["source"] == s.source for r in recs)
    sent = llm_server.requests[0]
    system, user = sent["messages"][0]["content"], sent["messages"][1]["content"]
    assert "what the agent found that stays true" in system and "decisions with the reasons" in system
    assert "keep only the later version" in system  # what a later turn corrected is not kept
    assert sent["response_format"] == {"type": "json_object"}
    assert "Project: acme-billing" in user and "Go with exponential backoff" in user
    assert "sk_live_51Hx" not in user and "AKIAIOSFODNN7EXAMPLE" not in user  # secrets never reach a model


def test_llm_empty_answer_is_a_valid_nothing(llm_server, provider):
    llm_server.answers = ['{"records": []}']
    assert distill("[user] run the tests", profile="codex", source="s", context={}, llm=provider) == []


def test_llm_fenced_answer_is_accepted(llm_server, provider):
    llm_server.answers = ["```json\n" + json.dumps(GOOD) + "\n```"]
    assert len(distill("[user] x", profile="codex", source="s", context={}, llm=provider)) == 2
    llm_server.answers = ["Here are the durable records from this session:\n\n```json\n" + json.dumps(GOOD) + "\n```"]
    assert len(distill("[user] x", profile="codex", source="s", context={}, llm=provider)) == 2  # a preface too


@pytest.mark.parametrize("answer", [
    "Sure! Here are the memories: webhook retries are capped at six.",
    '{"records": [{"type": "decision", "key": "x"',
    '{"memories": []}',
    '{"records": [], "note": "nothing"}',
    json.dumps({"records": [{"type": "opinion", "key": "a-b", "body": "Something long enough here."}]}),
    json.dumps({"records": [{"type": "fact", "key": "Not A Slug", "body": "Something long enough here."}]}),
    json.dumps({"records": [{"type": "fact", "key": "a", "body": "short"}]}),
    json.dumps({"records": [{"type": "fact", "key": "a", "body": "Something long enough here.", "why": "extra"}]}),
    json.dumps({"records": [{"type": "fact", "key": "a", "body": "Something long enough here.", "tags": "x"}]}),
    json.dumps({"records": [{"type": "fact", "key": "a", "body": "Something long enough here."}] * 2}),
    json.dumps({"records": [{"type": "fact", "key": f"k{i}", "body": "Something long enough here."} for i in range(6)]}),
])
def test_llm_invalid_answers_are_rejected_whole(llm_server, provider, answer):
    llm_server.answers = [answer]
    with pytest.raises(ProviderError, match="rejected"):
        distill("[user] x", profile="codex", source="s", context={}, llm=provider)


def test_validate_direct():
    assert validate(json.dumps(GOOD))[0]["key"] == "webhook-retry-policy"
    with pytest.raises(ProviderError):
        validate("[]")


def test_llm_prompt_for_a_meeting(llm_server, provider):
    llm_server.answers = ['{"records": []}']
    distill("[00:00:01] We decided to ship on Thursday.", profile="meeting", source="meeting:abc",
            context={"kind": "meeting", "title": "Release sync", "date": "2026-08-21", "attendees": ["Ana", "Bo"]},
            llm=provider)
    user = llm_server.requests[0]["messages"][1]["content"]
    assert user.startswith("This is the transcript of a meeting.")
    assert "Title: Release sync" in user and "Date: 2026-08-21" in user and "Attendees: Ana, Bo" in user


def test_a_models_record_that_is_only_code_is_not_written(llm_server, provider):
    """Code is not a memory: a test name, a stack trace or tool output proposed as a body is dropped,
    the rest of the answer kept."""
    from brain_core.harvest import session_file
    from brain_core.harvest.run import harvest_session
    from brain_core.harvest.sources import get

    llm_server.answers = [json.dumps({"records": [
        {"type": "fact", "key": "detached-test", "body": "TestTrackCommandDetachedDefaultsAgentToAuto"},
        {"type": "fact", "key": "trace", "body": "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'ledger'"},
        {"type": "fact", "key": "listing", "body": "-rw-r--r--@ 1 user staff 11525 Jan 14 21:26 metrics.mjs"},
        GOOD["records"][0],
    ]})]
    src = get("claude")
    path = FIXTURES / "claude_code_session.jsonl"
    outcome = harvest_session(src, session_file("claude", src.file_id(path), path), reason="file", llm=provider)
    assert outcome.error is None
    assert [r["key"] for r in outcome.records] == ["webhook-retry-policy"]
