"""Answers you can trust: confidence, honest wording, the gate, one fact one answer, feedback that
converges, and the same honesty through the CLI and the LLM prompt. A real brain in tmp_path."""

from __future__ import annotations

import json

import pytest

from brain_core.answer.ask import ask
from brain_core.answer.lessons import record_feedback
from brain_core.recall.confidence import content_words, judge
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)

RECORDS = [
    dict(body="We deploy to staging every weekday at 2pm, straight from the main branch after CI passes.",
         key="staging-deploy-schedule", type="decision", created="2026-05-04T09:00:00Z"),
    dict(body="Production deploys need two approvals: one from the on-call engineer and one from the service owner.",
         key="prod-deploy-approvals", type="instruction", created="2026-05-06T09:00:00Z"),
    dict(body="Dentist appointment with Dr. Okafor on October 14 at 9:30, at the clinic on Harbour Street.",
         key="dentist-appointment", created="2026-09-01T09:00:00Z"),
    dict(body="We chose Tailwind CSS for the dashboard frontend instead of writing our own design system.",
         key="frontend-css-framework", type="decision", profile="claude", source="claude:session:a1",
         created="2026-04-02T09:00:00Z"),
    dict(body="Grafana is the tool for the metrics dashboards; it reads from Prometheus.", key="metrics-dashboards",
         type="decision", profile="codex", source="codex:session:b7", created="2026-04-20T09:00:00Z"),
    dict(body="For application performance monitoring we picked Datadog APM over New Relic, mainly for the price.",
         key="apm-vendor", type="decision", created="2026-06-12T09:00:00Z"),
]


@pytest.fixture
def office(brain):
    brain.remember_many([dict(r) for r in RECORDS], message="test records")
    brain.config.set("ask.cache", False)
    return brain


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


def use_server(brain, server):
    brain.config.set("llm.provider", "openai-compatible")
    brain.config.set("llm.base_url", server.url + "/v1")
    brain.config.set("llm.model", "test-model")
    brain.config.set("llm.timeout", 2)
    brain.config.set("llm.retries", 1)
    brain.config.set("llm.backoff", 0.01)


def prompt_of(server) -> str:
    return server.posts()[-1]["body"]["messages"][1]["content"]


# --- the confidence model ----------------------------------------------------------------------------


def test_content_words_leave_out_the_words_of_asking():
    assert content_words("What did I decide about the database migration to Postgres 16?") == [
        "database", "migration", "postgres", "16"]
    assert content_words("do you remember what I said") == []


def test_judge_needs_evidence_on_its_own_not_relative_to_others():
    assert judge(0.75, 1.0, True) == "strong"
    assert judge(0.45, 0.9, True) == "strong"       # most of the words, fair meaning
    assert judge(0.45, 0.9, False) == "weak"        # ... but only one stage found it
    assert judge(0.42, 0.2, True) == "weak"
    assert judge(0.15, 0.0, False) == "none"
    assert judge(None, 0.0, False) == "none"


def test_recall_hits_carry_confidence_and_are_never_padded(office):
    hits = office.recall("how many approvals do production deploys need", k=5)
    assert hits[0].record.key == "prod-deploy-approvals" and hits[0].confidence == "strong"
    assert hits[0].evidence.cosine > 0.5 and "approvals" in hits[0].evidence.matched
    assert all(h.score > 0 for h in hits)
    unrelated = office.recall("office printer toner cartridge", k=5)
    assert all(h.confidence == "none" for h in unrelated) and all(h.score > 0 for h in unrelated)


# --- honest answers offline ----------------------------------------------------------------------------


def test_the_answer_quotes_the_sentence_with_key_date_and_origin(office):
    a = ask(office, "when is my dentist appointment?", llm=None)
    assert a.confidence == "strong" and a.route.recall
    assert a.text == ("From your brain:\n- Dentist appointment with Dr. Okafor on October 14 at 9:30, at the clinic "
                      "on Harbour Street. [dentist-appointment, 2026-09-01]")
    b = ask(office, "what do we use for metrics dashboards", llm=None)
    assert "[metrics-dashboards, 2026-04-20] (from a Codex session on 2026-04-20)" in b.text


@pytest.mark.parametrize("question,wrong", [
    ("what did I decide about the database migration to Postgres 16?", "Tailwind"),
    ("which cloud provider did we choose for the analytics cluster?", "Grafana"),
])
def test_unanswerable_questions_get_no_confident_wrong_answer(office, question, wrong):
    a = ask(office, question, llm=None)
    assert a.confidence != "strong"
    assert a.text.startswith(("I have nothing about", "I have nothing that answers that directly. The closest"))
    if a.confidence == "none":
        assert "(searched: " in a.text and a.cited == () and a.hits == ()


def test_a_weak_match_is_worded_as_the_closest(office):
    a = ask(office, "when is my eye doctor appointment?", llm=None)
    assert a.confidence == "weak"
    assert a.text.startswith("I have nothing that answers that directly. The closest I have is: Dentist appointment")
    assert [h.confidence for h in a.hits] == ["weak"] * len(a.hits)


def test_nothing_says_what_it_searched(office):
    a = ask(office, "what did we decide about GraphQL?", llm=None)
    assert a.text == "I have nothing about GraphQL in your brain (searched: graphql, and by meaning)."


# --- the gate: how, not whether -------------------------------------------------------------------------


def test_offline_no_question_is_refused(office):
    for q in ("staging deploys?", "Tailwind", "approvals for production"):
        a = ask(office, q, llm=None)
        assert a.route.recall and "gate:offline" in a.route.fired and a.confidence == "strong", q


def test_with_an_llm_the_word_probe_lets_in_what_the_brain_names(office, server, memory_keyring):
    use_server(office, server)
    a = ask(office, "staging deploy time?")
    assert a.route.recall and a.route.fired == ("gate:probe",)
    assert "staging-deploy-schedule" in prompt_of(server)
    b = ask(office, "how do I reverse a list in python")
    assert not b.route.recall and prompt_of(server) == "how do I reverse a list in python"


def test_an_unreachable_llm_sends_the_question_to_the_brain(office, server, memory_keyring):
    use_server(office, server)
    server.script = ["500", "500"]
    a = ask(office, "Tailwind or Bootstrap for the dashboard")
    assert a.fallback and a.route.recall and a.provider == "none"
    assert "Tailwind CSS" in a.text and a.text.startswith("[offline answer:")


def test_only_strong_records_reach_the_llm_as_facts(office, server, memory_keyring):
    use_server(office, server)
    ask(office, "which APM vendor did we pick?")
    prompt = prompt_of(server)
    assert "Datadog" in prompt and "Grafana" not in prompt and "Tailwind" not in prompt
    ask(office, "what did we decide about the analytics cluster's cloud provider?")
    prompt = prompt_of(server)
    assert prompt.startswith("Records: none answer this question.")
    assert "Datadog" not in prompt.split("closest record")[0]


# --- the cache keeps confidence, cited and hits --------------------------------------------------------------


def test_a_cached_answer_keeps_confidence_cited_and_hits(office, capsys):
    from brain_core.cli import main

    office.config.set("ask.cache", True)
    office.config.save()
    outs = []
    for _ in range(2):
        assert main(["--brain", str(office.root), "ask", "--json", "which APM vendor did we pick?"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    first, again = outs
    assert not first["cached"] and again["cached"]
    for key in ("confidence", "cited", "answer"):
        assert again[key] == first[key]
    assert again["confidence"] == "strong" and again["cited"]
    assert [h["key"] for h in again["hits"]] == [h["key"] for h in first["hits"]] and again["hits"]
    assert again["hits"][0]["confidence"] == "strong"


# --- one fact, one answer ---------------------------------------------------------------------------------


def test_three_agents_wrote_the_same_decision_one_answer_lists_them(brain):
    said = "We chose SQS for the job queue because it needs no operations work."
    brain.remember_many([
        dict(body=said, key="job-queue", type="decision", profile="claude", source="claude:session:s1",
             created="2026-03-01T09:00:00Z"),
        dict(body="We chose SQS for the job queue, because it needs no operations work.", key="job-queue",
             type="decision", profile="codex", source="codex:session:s2", created="2026-03-02T09:00:00Z"),
        dict(body="We chose SQS for the job queue since it needs no operations work.", key="queue-choice",
             type="decision", profile="gemini", source="gemini:session:s3", created="2026-03-03T09:00:00Z"),
        dict(body="Webhook delivery retries with exponential backoff, capped at six attempts.", key="webhooks"),
    ], message="three agents")
    brain.config.set("ask.cache", False)
    a = ask(brain, "what did we choose for the job queue?", llm=None)
    assert a.confidence == "strong"
    sqs = [h for h in a.hits if "SQS" in h.record.body]
    assert len(sqs) == 1 and len(sqs[0].also) == 2
    assert a.text.count("SQS") == 1
    for agent in ("Claude Code session", "Codex session", "Gemini CLI session"):
        assert agent in a.text


# --- feedback that converges ------------------------------------------------------------------------------------


def test_thumbs_down_with_no_better_record_makes_aida_abstain(office):
    q = "when is my dentist appointment?"
    first = ask(office, q, llm=None)
    assert first.confidence == "strong" and "Okafor" in first.text
    record_feedback(office, first.run_id, "down", why="that was last year's appointment")
    again = ask(office, q, llm=None)
    assert again.confidence == "none" and again.cited == ()
    assert again.text.startswith("I have nothing about dentist appointment in your brain")
    assert "Left out, as you marked it not helpful for this question: dentist-appointment" in again.text
    assert not any(h.record.key in ("car-service", "apm-vendor", "prod-deploy-approvals") for h in again.hits)


# --- the CLI ----------------------------------------------------------------------------------------------------


def test_brain_recall_hides_unrelated_unless_all_and_json_carries_confidence(office, capsys):
    from brain_core.cli import main

    root = str(office.root)
    assert main(["--brain", root, "brain", "recall", "office printer toner"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Nothing close;") and "--all" in out
    assert main(["--brain", root, "brain", "recall", "--all", "office printer toner"]) == 0
    out = capsys.readouterr().out
    assert "1. [" in out and "  none" in out
    assert main(["--brain", root, "brain", "recall", "--json", "office printer toner"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and {h["confidence"] for h in hits} == {"none"}
    assert main(["--brain", root, "brain", "recall", "approvals for production deploys"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. [instruction] prod-deploy-approvals") and "strong" in out.splitlines()[0]
