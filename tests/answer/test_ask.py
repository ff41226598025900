"""ask against a real brain in tmp_path: each provider, every failure, the cache, live sources, CLI."""

from __future__ import annotations

import json
import os
import time

import pytest

from brain_core.answer import runs
from brain_core.answer.ask import ask, normalise
from brain_core.answer.live import News, Weather, answer_live, parse_feed, place_in, topic_in
from brain_core.errors import InvalidInput
from brain_core.llm.http import Retry
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)


@pytest.fixture
def embed_calls(brain, monkeypatch):
    """Counts calls to the brain's real embedder: proves which questions pay for an embedding."""
    calls = []
    inner = brain.embedder.embed
    monkeypatch.setattr(brain.embedder, "embed", lambda texts: calls.append(len(texts)) or inner(texts))
    return calls


@pytest.fixture
def filled(brain):
    brain.remember("Webhook delivery retries with exponential backoff, capped at six attempts.",
                   key="webhook-retry-policy", created="2026-08-22T19:44:02Z")
    brain.remember("We chose SQS for the job queue because it needs no operations work.",
                   key="queue-choice", type="decision", created="2026-06-01T10:00:00Z")
    brain.remember("My preferred commit message style is imperative mood, under 72 characters.",
                   key="commit-style", type="preference", created="2026-07-15T09:00:00Z")
    return brain


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


def use_server(brain, server, provider="openai-compatible", **extra):
    brain.config.set("llm.provider", provider)
    brain.config.set("llm.base_url", server.url + ("/v1" if provider != "anthropic" else ""))
    brain.config.set("llm.model", "test-model")
    brain.config.set("llm.timeout", extra.pop("timeout", 2))
    brain.config.set("llm.retries", extra.pop("retries", 1))
    brain.config.set("llm.backoff", 0.01)
    for k, v in extra.items():
        brain.config.set(k, v)


# --- offline -------------------------------------------------------------------------------------


def test_offline_answer_cites_key_and_date_and_leaves_a_run_record(filled):
    a = ask(filled, "What did I say about the webhook retry cap?", llm=None)
    assert "capped at six attempts" in a.text and "[webhook-retry-policy, 2026-08-22]" in a.text
    assert a.provider == "none" and a.fallback is None and not a.cached
    path = filled.root / ".aida" / "runs" / f"{a.run_id}.json"
    run = json.loads(path.read_text())
    assert run["question"] == "What did I say about the webhook retry cap?"
    assert run["route"]["recall"] is True and "recall:seed" in run["route"]["fired"]
    assert run["consulted"][0]["key"] == "webhook-retry-policy" and run["consulted"][0]["score"] > 0
    assert run["consulted"][0]["cited"] is True
    assert run["provider"] == {"name": "none", "model": None}
    assert run["timings_ms"]["total"] > 0 and "recall" in run["timings_ms"]
    assert runs.load(filled.root, a.run_id)["id"] == a.run_id
    assert runs.load(filled.root, "last")["id"] == a.run_id


def test_plain_question_with_an_llm_never_pays_for_an_embedding(filled, embed_calls, server, memory_keyring):
    use_server(filled, server)
    a = ask(filled, "how do I reverse a list in python")
    assert a.text == server.answer and a.hits == () and embed_calls == [] and not a.route.recall
    ask(filled, "what did I say about the queue")
    assert embed_calls == [1]


def test_offline_every_question_goes_to_the_brain(filled):
    a = ask(filled, "how do I reverse a list in python", llm=None)
    assert a.route.recall and "gate:offline" in a.route.fired
    assert a.text.startswith("I have nothing about reverse list python in your brain (searched: reverse, list, python")


def test_nothing_found_is_honest(brain):
    a = ask(brain, "what did I say about the lighthouse keeper", llm=None)
    assert a.text == "I have nothing about lighthouse keeper in your brain (searched: lighthouse, keeper, and by meaning)."
    assert a.confidence == "none" and a.cited == ()


def test_recency_mode_puts_newest_first(filled):
    filled.remember("Webhook retries now also log each attempt to the audit table.", key="webhook-audit",
                    created="2026-09-30T08:00:00Z")
    a = ask(filled, "what's my latest note about webhook retries", llm=None)
    assert a.route.mode == "recency"
    assert a.hits[0].record.key == "webhook-audit"


def test_empty_question_is_refused(filled):
    with pytest.raises(InvalidInput):
        ask(filled, "   ", llm=None)


# --- the repeat-answer cache ---------------------------------------------------------------------


def test_cache_hit_on_the_normalised_question_and_miss_after_a_commit(filled):
    first = ask(filled, "What did I say about the job queue?", llm=None)
    again = ask(filled, "  what did i SAY about the job queue ", llm=None)
    assert normalise("What did I say about the job queue?") == normalise("  what did i SAY about the job queue ")
    assert again.cached and again.text == first.text and again.run_id != first.run_id
    assert runs.load(filled.root, again.run_id)["cached"] is True  # a cached ask still leaves a run record
    explained = ask(filled, "What did I say about the job queue?", llm=None, explain=True)
    assert not explained.cached and explained.hits[0].explain is not None  # --explain shows a real run
    filled.remember("The job queue moves to Redis streams in Q4.", key="queue-move")  # new HEAD
    after = ask(filled, "What did I say about the job queue?", llm=None)
    assert not after.cached and "Redis" in after.text


def test_time_sensitive_questions_bypass_the_cache(filled):
    q = "what did I say today about the job queue"
    assert ask(filled, q, llm=None).route.time_sensitive
    assert not ask(filled, q, llm=None).cached


def test_cache_can_be_switched_off(filled):
    filled.config.set("ask.cache", False)
    ask(filled, "what did I say about the job queue", llm=None)
    assert not ask(filled, "what did I say about the job queue", llm=None).cached


# --- providers -----------------------------------------------------------------------------------


def test_openai_compatible_provider_answers_from_the_records(filled, server, memory_keyring):
    use_server(filled, server, **{"llm.price": {"input_per_mtok": 1.0, "output_per_mtok": 4.0}})
    a = ask(filled, "What did I say about the webhook retry cap?")
    assert a.text == server.answer and a.provider == "openai-compatible" and a.model == "test-model"
    body = server.posts()[0]["body"]
    assert server.posts()[0]["path"] == "/v1/chat/completions"
    assert "capped at six attempts" in body["messages"][1]["content"]
    assert body["messages"][1]["content"].endswith("Question: What did I say about the webhook retry cap?")
    assert "[key, date]" in body["messages"][0]["content"]
    run = runs.load(filled.root, a.run_id)
    assert run["usage"]["input_tokens"] == 100 and run["usage"]["output_tokens"] == 10
    assert run["cost_usd"] == pytest.approx((100 * 1.0 + 10 * 4.0) / 1e6)
    assert a.cited == (a.hits[0].record.id,)  # the answer names webhook-retry-policy
    assert ask(filled, "what did I say about the webhook retry cap").cached
    assert len(server.posts()) == 1


def test_anthropic_provider_with_key_from_the_keyring(filled, server, memory_keyring):
    memory_keyring[("aida", "anthropic")] = "ak-stored"
    use_server(filled, server, provider="anthropic")
    a = ask(filled, "what did we decide about the job queue")
    req = server.posts()[0]
    assert a.text == server.answer and req["path"] == "/v1/messages"
    assert req["headers"]["x-api-key"] == "ak-stored" and req["headers"]["anthropic-version"]
    assert "SQS" in req["body"]["messages"][0]["content"]


def test_plain_question_goes_to_the_llm_without_records(filled, server, memory_keyring):
    use_server(filled, server)
    ask(filled, "how do I reverse a list in python")
    body = server.posts()[0]["body"]
    assert body["messages"][1]["content"] == "how do I reverse a list in python"


@pytest.mark.parametrize("script,why", [
    (["500", "500"], "HTTP 500"),
    (["slow", "slow"], "did not answer within"),
    (["malformed"], "not JSON"),
])
def test_provider_failure_falls_back_to_the_offline_answer_marked(filled, server, memory_keyring, script, why):
    use_server(filled, server, timeout=0.3)
    server.script = list(script)
    server.slow_s = 1.0
    a = ask(filled, "What did I say about the webhook retry cap?")
    assert a.text.startswith("[offline answer: ") and why in a.text.splitlines()[0]
    assert "[webhook-retry-policy, 2026-08-22]" in a.text
    assert a.fallback and why in a.fallback and a.provider == "none"
    assert runs.load(filled.root, a.run_id)["fallback"] == a.fallback
    # a fallback is never cached: the next ask tries the provider again
    server.script = []
    assert ask(filled, "What did I say about the webhook retry cap?").text == server.answer


def test_missing_key_falls_back_and_says_how_to_fix(filled, memory_keyring):
    filled.config.set("llm.provider", "anthropic")
    a = ask(filled, "what did we decide about the job queue")
    assert a.fallback and "aida config set-key anthropic" in a.fallback
    assert "SQS" in a.text


# --- live sources --------------------------------------------------------------------------------

FORECAST = {
    "current_units": {"temperature_2m": "°C", "wind_speed_10m": "km/h"},
    "current": {"time": "2026-08-22T10:00", "temperature_2m": 21.5, "weather_code": 61, "wind_speed_10m": 12.0},
    "daily": {"time": ["2026-08-22", "2026-08-23"], "temperature_2m_min": [15.0, 14.2], "temperature_2m_max": [23.1, 20.0],
              "weather_code": [61, 0], "precipitation_probability_max": [80, 5]},
}
GEOCODE = {"results": [{"name": "Lisbon", "country": "Portugal", "latitude": 38.72, "longitude": -9.14}]}
RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>
<item><title>Rust Foundation announces new grants</title><link>https://x/1</link><pubDate>Sat, 22 Aug 2026</pubDate></item>
<item><title>Markets calm ahead of holiday</title><link>https://x/2</link></item>
</channel></rss>"""


def live_config(brain, server):
    brain.config.set("live.weather.url", server.url + "/v1/forecast")
    brain.config.set("live.weather.geocode_url", server.url + "/v1/search")
    brain.config.set("live.news.feeds", [server.url + "/rss.xml"])
    brain.config.set("live.news.search_url", "")
    brain.config.set("live.timeout", 1)
    brain.config.set("live.retries", 0)
    server.routes["/v1/forecast"] = (200, "application/json", json.dumps(FORECAST).encode())
    server.routes["/v1/search"] = (200, "application/json", json.dumps(GEOCODE).encode())
    server.routes["/rss.xml"] = (200, "application/rss+xml", RSS)


def test_weather_question_goes_to_the_live_source(filled, server, embed_calls):
    live_config(filled, server)
    a = ask(filled, "what's the weather like in Lisbon?", llm=None)
    assert a.route.live == "weather" and a.live.ok and embed_calls == []
    assert "Lisbon, Portugal: now 21.5°C, light rain" in a.text and "chance of rain 80%" in a.text
    gets = [r["path"] for r in server.requests]
    assert gets[0].startswith("/v1/search?name=Lisbon") and "latitude=38.7200" in gets[1]
    assert not ask(filled, "what's the weather like in Lisbon?", llm=None).cached  # live: never cached
    run = runs.load(filled.root, a.run_id)
    assert run["live"]["source"] == "weather" and run["provider"]["name"] == "live:weather"


def test_weather_without_a_place_uses_the_configured_location_or_says_so(filled, server):
    live_config(filled, server)
    a = ask(filled, "is it raining?", llm=None)
    assert not a.live.ok and "live.weather.latitude" in a.text
    filled.config.set("live.weather.latitude", 52.52)
    filled.config.set("live.weather.longitude", 13.41)
    filled.config.set("live.weather.place", "Berlin")
    b = ask(filled, "is it raining?", llm=None)
    assert b.live.ok and b.text.startswith("Berlin: now 21.5°C")


def test_news_from_rss_and_topic_filter(filled, server):
    live_config(filled, server)
    a = ask(filled, "what are today's headlines", llm=None)
    assert a.route.live == "news" and "Rust Foundation announces new grants (Sat, 22 Aug 2026)" in a.text
    b = ask(filled, "any news about the Rust Foundation?", llm=None)
    assert "Rust Foundation" in b.text and "Markets" not in b.text


def test_offline_live_source_says_so_instead_of_guessing(filled, refused_port):
    filled.config.set("live.weather.url", f"http://127.0.0.1:{refused_port}/forecast")
    filled.config.set("live.weather.latitude", 1.0)
    filled.config.set("live.weather.longitude", 2.0)
    filled.config.set("live.news.feeds", [f"http://127.0.0.1:{refused_port}/rss"])
    filled.config.set("live.retries", 0)
    for q in ("will it rain tomorrow", "top stories"):
        a = ask(filled, q, llm=None)
        assert not a.live.ok and "won't guess" in a.text and "could not be reached" in a.text


def test_live_helpers(refused_port):
    assert place_in("what's the weather like in New York today?") == "New York"
    assert place_in("is it raining") is None and place_in("weather for the weekend") is None
    assert topic_in("any news about the EU AI act?") == "EU AI act"
    atom = b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>A</title><link href="u"/></entry></feed>'
    assert parse_feed(atom) == [{"title": "A", "link": "u", "date": "", "summary": ""}]
    bad = answer_live("news", "top stories", source=News(feeds=(f"http://127.0.0.1:{refused_port}/x",), retry=Retry(0.2, 0)))
    assert not bad.ok and "could not be reached" in bad.text
    assert Weather().url.startswith("https://api.open-meteo.com/")


# --- runs ----------------------------------------------------------------------------------------


def test_runs_are_pruned_by_age(filled):
    old = ask(filled, "what did I say about the job queue", llm=None)
    path = filled.root / ".aida" / "runs" / f"{old.run_id}.json"
    month_ago = time.time() - 40 * 86400
    os.utime(path, (month_ago, month_ago))
    new = ask(filled, "what did I say about commit messages", llm=None)
    assert runs.prune(filled.root, 30, force=True) == 1
    assert not path.exists() and runs.load(filled.root, new.run_id)
    with pytest.raises(InvalidInput):
        runs.load(filled.root, old.run_id)


# --- the command line ----------------------------------------------------------------------------


def cli(args, brain, capsys):
    from brain_core.cli import main

    rc = main(["--brain", str(brain.root), *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_route_json_shape(filled, capsys):
    rc, out, _ = cli(["route", "--json", "what did I say recently about the queue"], filled, capsys)
    data = json.loads(out)
    assert rc == 0 and {k: data[k] for k in ("recall", "mode", "time_sensitive", "live")} == {
        "recall": True, "mode": "recency", "time_sensitive": False, "live": None}
    assert "recall:seed" in data["fired"]
    rc, out, _ = cli(["route", "is", "it", "raining"], filled, capsys)
    assert "live source: weather" in out


def test_cli_route_reads_the_brains_router_yaml(filled, capsys):
    (filled.root / "router.yaml").write_text("recall:\n  jira: '\\bticket [a-z]+-\\d+'\n", encoding="utf-8")
    rc, out, _ = cli(["route", "--json", "status of ticket ABC-12"], filled, capsys)
    assert json.loads(out)["recall"] is True


def test_cli_ask_json_explain_and_feedback(filled, capsys):
    rc, out, err = cli(["ask", "--json", "--explain", "what did I say about the webhook retry cap"], filled, capsys)
    data = json.loads(out)
    assert rc == 0 and data["hits"][0]["key"] == "webhook-retry-policy" and data["provider"] == "none"
    assert data["run"]["consulted"][0]["explain"]["bm25"] is not None
    rc, out, err = cli(["ask", "--explain", "what did I say about the webhook retry cap?"], filled, capsys)
    assert "[webhook-retry-policy, 2026-08-22]" in out and "--- run record ---" in out and "feedback" in err
    rc, out, err = cli(["feedback", "down", data["run_id"], "--why", "ten is the old cap"], filled, capsys)
    assert rc == 0 and "webhook-retry-policy" in out
    rc, out, err = cli(["feedback", "up", "nonsense"], filled, capsys)
    assert rc == 2 and "run id" in err
