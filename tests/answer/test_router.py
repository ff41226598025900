"""The router, table-driven: phrasings that must gate in, and coding questions that must stay out."""

from __future__ import annotations

import json

import pytest

from brain_core.answer.router import Router, default_patterns, load_router, route

# (question, recall, mode, time_sensitive, live)
TABLE = [
    # --- the seed pattern gates in
    ("What do you know about the webhook retry policy?", True, "semantic", False, None),
    ("what do you remember about my dentist", True, "semantic", False, None),
    ("What did I say about Postgres vacuum settings?", True, "semantic", False, None),
    ("what did you save about the billing migration", True, "semantic", False, None),
    ("What did I tell you about my sister's birthday?", True, "semantic", False, None),
    ("what did i note on the flaky e2e tests", True, "semantic", False, None),
    ("what did I build for the damage-control project", True, "semantic", False, None),
    ("Do you remember the name of that rust crate?", True, "semantic", False, None),
    ("did I mention the staging password rotation?", True, "semantic", False, None),
    ("did I set up the cron job for backups", True, "semantic", False, None),
    ("my preferences on code review comments", True, "semantic", False, None),
    ("what are my notes about the Q3 roadmap", True, "semantic", False, None),
    ("show my latest memory", True, "recency", False, None),
    ("what's the last claude memory", True, "recency", False, None),
    ("remind me what we chose for the queue", True, "semantic", False, None),
    # --- phrasings the seed misses, now gated in
    ("What was my decision on the ORM?", True, "semantic", False, None),
    ("what was our plan for the launch", True, "semantic", False, None),
    ("Why did we pick SQLite over Postgres?", True, "semantic", False, None),
    ("why did I switch the tests to pytest-xdist", True, "semantic", False, None),
    ("what did we decide about the API versioning?", True, "semantic", False, None),
    ("did we agree on tabs or spaces", True, "semantic", False, None),
    ("how did I fix the CORS error last time?", True, "recency", False, None),
    ("how did we deploy the docs site", True, "semantic", False, None),
    ("where did I put the signing keys backup", True, "semantic", False, None),
    ("when did we decide to drop Python 3.9", True, "semantic", False, None),
    ("have I ever mentioned my allergy?", True, "semantic", False, None),
    ("check my notes for the vendor contact", True, "semantic", False, None),
    ("according to our notes, who owns billing?", True, "semantic", False, None),
    ("what do I prefer for commit messages", True, "semantic", False, None),
    ("what's my usual branch naming", True, "semantic", False, None),
    ("our convention for error messages", True, "semantic", False, None),
    ("remember when we moved off Heroku?", True, "semantic", False, None),
    ("remind me, who is on call", True, "semantic", False, None),
    ("what came up in the planning meeting with Dana's team", True, "semantic", False, None),
    ("what did we discuss in yesterday's standup", True, "semantic", True, None),
    ("who told me about the new VPN", True, "semantic", False, None),
    ("what was the name of the tool that we used for load tests", True, "semantic", False, None),
    ("what are the latest decisions I made", True, "recency", False, None),
    ("my most recent notes", True, "recency", False, None),
    ("what do I know about the invoice service", True, "semantic", False, None),
    ("what did I save this week", True, "semantic", True, None),
    ("what did I say yesterday about the outage", True, "semantic", True, None),
    ("what did we decide today", True, "semantic", True, None),
    ("what did I say recently about hiring", True, "recency", False, None),
    ("what did I say about the weather app", True, "semantic", False, None),
    ("do you remember the news about the acquisition", True, "semantic", False, None),
    ("what did I say about the weather in Lisbon", True, "semantic", False, None),  # recall wins over live
    # --- whole words only: "blast" holds "last", "elastic" holds "last", "todays" is not "today"
    ("what did I say about the blast radius", True, "semantic", False, None),
    ("what did we decide about the elastic search cluster", True, "semantic", False, None),
    ("what did I note about the dynamite blasting permit", True, "semantic", False, None),
    # --- plain questions stay out (no embedding lookup)
    ("How do I reverse a list in Python?", False, "semantic", False, None),
    ("what is a closure in JavaScript", False, "semantic", False, None),
    ("why does my test fail with KeyError", False, "semantic", False, None),
    ("why did I get a segfault in this C code", False, "semantic", False, None),
    ("explain the difference between TCP and UDP", False, "semantic", False, None),
    ("write a bash loop over files", False, "semantic", False, None),
    ("what's the latest version of React", False, "recency", False, None),
    ("how do I get the most recent commit hash", False, "recency", False, None),
    ("sort a dict by value", False, "semantic", False, None),
    ("my code throws a NullPointerException", False, "semantic", False, None),
    ("what does git rebase --onto do", False, "semantic", False, None),
    ("convert a date string to a datetime", False, "semantic", False, None),
    ("how do I parse the weather api response in python", False, "semantic", False, None),
    ("how to forecast sales with prophet", False, "semantic", False, None),
    ("what's the temperature parameter in the openai api", False, "semantic", False, None),
    ("how do I style a headline in CSS", False, "semantic", False, None),
    ("remind me to buy milk", False, "semantic", False, None),
    ("how do I recall a saved model in keras", False, "semantic", False, None),
    ("what's the difference between my and our in SQL aliases", False, "semantic", False, None),
    ("generate a regex for email addresses", False, "semantic", False, None),
    ("what time zone is UTC+2", False, "semantic", False, None),
    ("summarise this stack trace", False, "semantic", False, None),
    # --- time-sensitive, not memory
    ("what is on my calendar today", False, "semantic", True, None),
    ("how many commits this week", False, "semantic", True, None),
    ("revenue year to date", False, "semantic", True, None),
    ("what's happening right now in the build", False, "semantic", True, None),
    ("what changed 3 hours ago", False, "semantic", True, None),
    ("tomorrow's standup agenda", False, "semantic", True, None),
    # --- live sources
    ("what are today's headlines", False, "semantic", True, "news"),
    ("any news about the Rust foundation?", False, "semantic", True, "news"),
    ("what's in the news", False, "semantic", True, "news"),
    ("latest news on the EU AI act", False, "recency", True, "news"),
    ("top stories", False, "semantic", True, "news"),
    ("what's the weather like in Lisbon", False, "semantic", True, "weather"),
    ("is it raining?", False, "semantic", True, "weather"),
    ("will it rain tomorrow", False, "semantic", True, "weather"),
    ("what's the forecast for this weekend", False, "semantic", True, "weather"),
    ("weather forecast", False, "semantic", True, "weather"),
    ("what's the temperature outside", False, "semantic", True, "weather"),
    ("how cold is it", False, "semantic", True, "weather"),
    ("do I need an umbrella", False, "semantic", True, "weather"),
    ("do I need raincoats for the kids today", False, "semantic", True, "weather"),
    # --- each pattern is needed: questions only that pattern gates in (tools/mutate.py router-yaml)
    ("what is the team's plan for the migration", True, "semantic", False, None),
    ("what are the team's takeaways from the offsite", True, "semantic", False, None),
    ("so did we agree on the offsite date?", True, "semantic", False, None),
    ("so have we picked a venue for the offsite", True, "semantic", False, None),
    ("what was the name of the company that I founded", True, "semantic", False, None),
    ("so have we ever tried pair programming?", True, "semantic", False, None),
    ("is the plumber's number in my notes?", True, "semantic", False, None),
    ("how do I usually take my coffee", True, "semantic", False, None),
    ("remind me of the wifi password", True, "semantic", False, None),
    ("remind me tonight's dinner reservation", True, "semantic", True, None),  # "tonight" is not "to"
    ("what have we learned about flaky tests", True, "semantic", False, None),
    ("do I need a coating of sealant on the deck", True, "semantic", False, None),  # not a coat
    ("is the weather appropriate for a picnic today", False, "semantic", True, "weather"),  # not an app
    # --- each \b keeps a word whole: a pattern's words inside longer words fire nothing
    ("write anatomy notes on the human heart", False, "semantic", False, None),
    ("how do I back up my notes online", False, "semantic", False, None),
    ("why did Wells Fargo get fined", False, "semantic", False, None),
    ("why did I startle awake in the night", False, "semantic", False, None),
    ("how do I pin my notes to the top in Obsidian", False, "semantic", False, None),
    ("how do I add a new page in my journaling app", False, "semantic", False, None),
    ("what are the taxonomy conventions in biology", False, "semantic", False, None),
    ("how do I tenderize a steak", False, "semantic", False, None),
    ("who is the academy favourite for best picture", False, "semantic", False, None),
    ("how do I export my favorites from Chrome", False, "semantic", False, None),
    ("what is your policy on refunds", False, "semantic", False, None),
    ("how do I put our policy online", False, "semantic", False, None),
    ("why do people misremember what they saw", False, "semantic", False, None),
    ("how can I remember whatever I read", False, "semantic", False, None),
    ("how do I remind members about dues in Slack", False, "semantic", False, None),
    ("how should I begin the retro", False, "semantic", False, None),
    ("how do I handle errors in the callback", False, "semantic", False, None),
    ("how to run a meeting without an agenda", False, "semantic", False, None),
    ("who said measure twice, cut once", False, "semantic", False, None),
    ("how do I select the four latest records in SQL", False, "recency", False, None),
    ("how do I edit my latest recording in Audacity", False, "recency", False, None),
    ("when did India become independent", False, "semantic", False, None),
    ("who is Mycroft in Sherlock Holmes", False, "semantic", False, None),
    ("how do I show long lines wrapped in my editor", False, "semantic", False, None),
    ("how many minutes are in an hour", False, "semantic", False, None),
    ("I feel somewhat dizzy should I see a doctor", False, "semantic", False, None),
    ("what is an American I-9 form", False, "semantic", False, None),
    ("what do Italians eat for breakfast", False, "semantic", False, None),
    ("what do I need to typeset a thesis in LaTeX", False, "semantic", False, None),
    ("what is MySQL", False, "semantic", False, None),
    ("where is Iceland", False, "semantic", False, None),
    ("what is a lasting power of attorney", False, "semantic", False, None),
    ("how much are Tomorrowland tickets", False, "semantic", False, None),
    ("what is the next weekday after Friday", False, "semantic", False, None),
    ("how do I convert a month to datetime in pandas", False, "semantic", False, None),
    ("how do I run tasks concurrently in Python", False, "semantic", False, None),
    ("how do I look at the momentum of a falling object", False, "semantic", False, None),
    ("how do I style subheadlines in CSS", False, "semantic", False, None),
    ("how do I turn headlines into slugs", False, "semantic", False, None),
    ("how do I stop headlines wrapping in CSS", False, "semantic", False, None),
    ("tips for writing company news posts", False, "semantic", False, None),
    ("how do I start the newsletter", False, "semantic", False, None),
    ("how do I check if the certificate renews on its own", False, "semantic", False, None),
    ("best sites to read news online", False, "semantic", False, None),
    ("how do I make wood look weathered", False, "semantic", False, None),
    ("how do I build a weather application", False, "semantic", False, None),
    # the user's own headlines to write are no news; an insurance "umbrella" is no weather; "the moment
    # of impact" is no clock; a reminder to set is no recall
    ("how do I write the headlines for my blog", False, "semantic", False, None),
    ("draft three headlines for the launch post", False, "semantic", False, None),
    ("what are the headlines about the election", False, "semantic", True, "news"),
    ("headlines from Brazil", False, "semantic", True, "news"),
    ("do I need an umbrella insurance policy", True, "semantic", False, None),
    ("should I bring a jacket", False, "semantic", True, "weather"),
    ("should we bring the projector", True, "semantic", False, None),
    ("what is the force at the moment of impact", False, "semantic", False, None),
    ("what is the price of bitcoin at the moment?", False, "semantic", True, None),
    ("remind me tomorrow about the dentist", False, "semantic", True, None),
    ("remind me at 5 about the call", False, "semantic", False, None),
    ("remind me later about the invoice", False, "semantic", False, None),
    ("remind me everything we know about the vendor", True, "semantic", False, None),  # "every", not "everything"
    ("what are the underwriting industry's top headlines", False, "semantic", True, "news"),  # not "writing"
    ("what are the editorial board's top headlines", False, "semantic", True, "news"),  # not "edit"
    ("top headlines about the rewrite of subheadlines in the style guide", False, "semantic", True, "news"),
    ("design a weather database schema", False, "semantic", False, None),
    ("is it hotter in Madrid or Seville in July", False, "semantic", False, None),
    ("will it snowball into a bigger problem", False, "semantic", False, None),
    ("what's the forecasted revenue growth", False, "semantic", False, None),
    ("what does the USDA grain forecast say about wheat", False, "semantic", False, None),
    ("how does rain forecasting work", False, "semantic", False, None),
    ("how do I chart the sales forecast for this weekly report", False, "semantic", False, None),
    ("how hot is Italy in August", False, "semantic", False, None),
    ("is the average summer temperature nowadays higher than in the 90s", False, "semantic", True, None),
    ("for the deck, do I need a coating of sealant", False, "semantic", False, None),
]


def test_table_is_big_enough_both_ways():
    assert len(TABLE) >= 60
    assert sum(1 for row in TABLE if row[1]) >= 25
    assert sum(1 for row in TABLE if not row[1]) >= 25


@pytest.mark.parametrize("question,recall,mode,time_sensitive,live", TABLE, ids=[r[0][:40] for r in TABLE])
def test_table(question, recall, mode, time_sensitive, live):
    r = route(question)
    assert (r.recall, r.mode, r.time_sensitive, r.live) == (recall, mode, time_sensitive, live), r.fired


def test_json_shape_and_fired_names():
    r = route("what did I say recently about the outage")
    out = r.to_json()
    assert set(out) == {"recall", "mode", "time_sensitive", "live", "fired"}
    json.dumps(out)
    assert "recall:seed" in out["fired"] and "recency:newest" in out["fired"]
    assert route("is it raining").fired == ("live:weather:rain",)
    assert route("sort a list").fired == ()


def test_seed_misses_what_extensions_catch():
    """The seed pattern alone leaves these out; the shipped extensions gate them in."""
    seed_only = Router({"recall": {"seed": default_patterns()["recall"]["seed"]}})
    for q in ("what was my decision on the ORM", "why did we pick SQLite", "what did we decide about versioning"):
        assert seed_only.decide(q).recall is False
        assert route(q).recall is True


def test_whitespace_and_case_are_ignored():
    assert route("  WHAT   DID I\nSAY about   x ").recall is True


def test_brain_router_yaml_adds_overrides_and_disables(tmp_path):
    (tmp_path / "router.yaml").write_text(
        "recall:\n"
        "  jira: '\\bticket [A-Z]+-\\d+\\b'\n"
        "  why-did-we: null\n"
        "recency:\n"
        "  newest: '\\b(newest)\\b'\n"
        "live:\n"
        "  news:hn: '\\bhacker news\\b'\n",
        encoding="utf-8",
    )
    r = load_router(tmp_path)
    assert r.decide("status of ticket ABC-123").recall is True
    assert "recall:jira" in r.decide("status of ticket ABC-123").fired
    assert r.decide("why did we go with Kafka").recall is False  # default switched off
    assert r.decide("what's the latest version").mode == "semantic"  # overridden
    assert r.decide("what's the newest version").mode == "recency"
    assert r.decide("top of hacker news").live == "news"
    assert load_router(None).decide("why did we go with Kafka").recall is True  # defaults untouched


@pytest.mark.parametrize(
    "text",
    [
        "recall:\n  bad: '(unclosed'\n",
        "nonsense:\n  x: 'a'\n",
        "live:\n  stocks:price: 'price of'\n",
        "recall:\n  empty: ''\n",
        "- just\n- a list\n",
    ],
)
def test_bad_router_yaml_is_reported_and_skipped(tmp_path, text):
    (tmp_path / "router.yaml").write_text(text, encoding="utf-8")
    told = []
    router = load_router(tmp_path, notice=told.append)
    assert len(told) == 1 and "router.yaml" in told[0] and router.problems
    assert router.decide("why did we go with Kafka").recall is True  # the defaults keep routing


# --- the phrasing table: forms people use about their own facts, and general questions ------------

from tests.helpers.router_phrasings import IN, OUT  # noqa: E402


def test_phrasing_table_is_big_enough_both_ways():
    assert len(IN) + len(OUT) >= 150 and len(IN) >= 60 and len(OUT) >= 60
    assert len(set(IN) | set(OUT)) == len(IN) + len(OUT)


@pytest.mark.parametrize("question", IN, ids=[q[:40] for q in IN])
def test_own_fact_forms_gate_in(question):
    assert route(question).recall is True


@pytest.mark.parametrize("question", OUT, ids=[q[:40] for q in OUT])
def test_general_questions_stay_out(question):
    r = route(question)
    assert r.recall is False, r.fired


def test_own_forms_are_whole_words():
    """The new forms match words, not pieces of words: "whom", "ourselves", "wheneverwe" do not fire them."""
    for q in ("somewhen is my build", "whoever is on call", "ourwhere do we", "a dowe i thing"):
        assert not any(f.startswith("recall:own-") for f in route(q).fired), q
    assert "recall:own-when" in route("when is my dentist appointment").fired
