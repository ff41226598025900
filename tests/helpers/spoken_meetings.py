"""A labelled set for action items: short meetings spoken by espeak-ng, each line another voice.

Used by ``tests/voice/test_meeting_actions.py`` and ``benchmarks/bench_action_items.py``. Action items
are said the ways people say them: with and without "action item", "<name> will ...", "<name> to
... by <day>", a question put to someone with a due date and their agreement, fillers ("um",
"uh"), and sentences cut in two (a line ending mid-sentence, the rest spoken after a pause, as
the recogniser splits them). Each meeting also says something that is no task ("Owen will be out
next week"). Meetings are said on Monday 2026-11-30. The ``tune`` meetings were looked at while
writing the patterns; the ``held`` ones were not.

An item is (owner, a word of the thing to do, the due date as an ISO date).
"""

from __future__ import annotations

DATE = "2026-11-30"  # a Monday

MEETINGS = [
    {"half": "tune", "title": "Export job review", "attendees": ["Ngozi", "Tomasz", "Siobhan"],
     "lines": ["Good morning. This is the export job review.",
               "The nightly export failed twice last week because the disk filled up.",
               "Action item Ngozi writes the runbook for the export job", "by Wednesday.",
               "Tomasz, can you add an alert on disk usage by Friday?", "Sure, will do.",
               "Um, Siobhan will, uh, clean up the old exports", "before Thursday.",
               "Thanks everyone."],
     "items": [("Ngozi", "runbook", "2026-12-02"), ("Tomasz", "alert", "2026-12-04"),
               ("Siobhan", "exports", "2026-12-03")]},
    {"half": "tune", "title": "Billing sync", "attendees": ["Priya", "Joaquim", "Owen"],
     "lines": ["Okay, let's start the billing sync.",
               "Priya to migrate the invoice tables by next Monday.",
               "We agreed to keep the old tables for a month.",
               "Joaquim, could you review the refund script by tomorrow?", "Yes, no problem.",
               "Action item: Owen owns the billing dashboard, due next Friday.",
               "Owen will be out next week, so start early."],
     "items": [("Priya", "invoice", "2026-12-07"), ("Joaquim", "refund", "2026-12-01"),
               ("Owen", "dashboard", "2026-12-11")]},
    {"half": "tune", "title": "Mobile release", "attendees": ["Niamh", "Dmitri", "Saoirse"],
     "lines": ["Morning all. A quick sync on the mobile release.",
               "So, action item, Dmitri writes the release notes", "by Thursday.",
               "Niamh, can you update the screenshots by Friday?", "Okay, I'll do it.",
               "Saoirse will test the login flow on older phones by the end of the week.",
               "Can we ship on Thursday? I think so."],
     "items": [("Dmitri", "notes", "2026-12-03"), ("Niamh", "screenshots", "2026-12-04"),
               ("Saoirse", "login", "2026-12-04")]},
    {"half": "tune", "title": "Infrastructure", "attendees": ["Hiroshi", "Rhiannon", "Oluwaseun"],
     "lines": ["Let's start. The staging cluster runs out of disk every week.",
               "Rhiannon to tune the alert thresholds by Wednesday.",
               "Action item. Hiroshi, uh, moves the logs to cold storage.", "Due next Tuesday.",
               "Oluwaseun, can you check the backup restore test by tomorrow?", "Sure.",
               "Great, thank you all."],
     "items": [("Rhiannon", "thresholds", "2026-12-02"), ("Hiroshi", "logs", "2026-12-08"),
               ("Oluwaseun", "backup", "2026-12-01")]},
    {"half": "held", "title": "Search relevance", "attendees": ["Siobhan", "Owen", "Priya"],
     "lines": ["Hi everyone, this is the search relevance meeting.",
               "Siobhan will rebuild the search index by Thursday.",
               "Owen, would you label fifty queries by next Wednesday?", "Yeah, I can do that.",
               "Action item Priya compares the two ranking models", "due Friday.",
               "That's it for today."],
     "items": [("Siobhan", "index", "2026-12-03"), ("Owen", "queries", "2026-12-09"),
               ("Priya", "ranking", "2026-12-04")]},
    {"half": "held", "title": "Security review", "attendees": ["Tomasz", "Ngozi", "Dmitri"],
     "lines": ["Welcome to the security review.",
               "Tomasz to rotate the database passwords by tomorrow.",
               "Ngozi, can you audit the admin accounts by the end of the week?", "Of course.",
               "Um, action item, Dmitri enables two factor login for the team", "by next Monday.",
               "Dmitri will be on holiday in January."],
     "items": [("Tomasz", "passwords", "2026-12-01"), ("Ngozi", "admin", "2026-12-04"),
               ("Dmitri", "factor", "2026-12-07")]},
    {"half": "held", "title": "Data platform", "attendees": ["Joaquim", "Niamh", "Hiroshi"],
     "lines": ["Good afternoon, this is the data platform sync.",
               "Joaquim will archive the old event tables", "by Friday.",
               "Niamh, could you write the schema docs by Thursday?", "Sure, happy to.",
               "Action item: Hiroshi owns the pipeline alerts, due next Friday.",
               "Thanks, that's all."],
     "items": [("Joaquim", "tables", "2026-12-04"), ("Niamh", "schema", "2026-12-03"),
               ("Hiroshi", "pipeline", "2026-12-11")]},
    {"half": "held", "title": "Support rota", "attendees": ["Rhiannon", "Saoirse", "Oluwaseun"],
     "lines": ["Let's go through the support rota.",
               "Rhiannon is going to draft the new rota by Wednesday.",
               "Saoirse, can you answer the open tickets by tomorrow?", "Okay.",
               "Action item Oluwaseun updates the escalation guide", "by next Tuesday.",
               "Can someone check the pager? No, not today."],
     "items": [("Rhiannon", "rota", "2026-12-02"), ("Saoirse", "tickets", "2026-12-01"),
               ("Oluwaseun", "escalation", "2026-12-08")]},
]

VOICES = (("en-us", 165), ("en-gb", 150), ("en-gb-scotland", 160), ("en-029", 145))


def spoken_lines(meeting: dict) -> list[tuple[str, str, int]]:
    """(text, voice, speed) per line: a new speaker every line, except that the rest of a
    sentence cut in two is said by the same voice."""
    out, speaker = [], -1
    for i, line in enumerate(meeting["lines"]):
        cut = i > 0 and not meeting["lines"][i - 1].rstrip().endswith((".", "?", "!"))
        speaker = speaker if cut else speaker + 1
        out.append((line, *VOICES[speaker % len(VOICES)]))
    return out


def score(meeting: dict, tasks: list[dict]) -> dict:
    """found: an expected item has a task with its owner or its thing; owner and due right of
    those; junk: tasks that match no expected item."""
    matched: set[int] = set()
    found = owner = due = 0
    for who, thing, when in meeting["items"]:
        best, rank = None, 0
        for k, t in enumerate(tasks):
            r = 2 * (t.get("owner") == who) + (thing in t.get("body", "").lower())
            if r > rank and k not in matched:
                best, rank = k, r
        if best is None:
            continue
        matched.add(best)
        found += 1
        owner += tasks[best].get("owner") == who
        due += tasks[best].get("due") == when
    return {"items": len(meeting["items"]), "found": found, "owner_right": owner, "due_right": due,
            "junk": [t.get("body", "") for k, t in enumerate(tasks) if k not in matched]}
