"""A continued session's compaction summary is read as the turns it stands for: the person's quoted
messages as their turns, "Errors and fixes" as the agent's findings; the analysis, intent, files and
pending tasks (the task at hand) are left out."""

from __future__ import annotations

from brain_core.harvest import selector
from brain_core.harvest.compaction import unfold
from brain_core.harvest.distill import _split_turns, extractive

SUMMARY = """This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
The user wanted a seeded room system, and the most recent work was fixing a compile error.

Summary:
1. Primary Request and Intent:
   - Seed a room with a starting message
   - Fix excessive room creation

4. Errors and fixes:
   - **Excessive Room Creation**: Root cause was `ChatAgent.create_room()` in `mount/3` creating rooms on every page load. Fixed by assigning `nil` instead.
   - **Main .gitignore blocking lib/ directories**:
     - The `lib/` line meant for Python was catching the Elixir sources.

6. All user messages:
   - "Seed a room for me and a companion."
   - "We always keep personal configuration out of source control, it goes in a gitignored yaml file."

7. Pending Tasks:
   - Add the no-rooms billboard
"""


def test_the_summary_becomes_the_persons_messages_and_the_agents_findings():
    turns = unfold([("user", SUMMARY), ("assistant", "Continuing with the billboard.")])
    people = [body for role, body in turns if role == "user"]
    assert people == ["Seed a room for me and a companion.",
                      "We always keep personal configuration out of source control, it goes in a gitignored yaml file."]
    replies = "\n".join(body for role, body in turns if role == "assistant")
    assert "Root cause" in replies and "Pending" not in replies and "billboard" in replies  # the live reply stays
    assert "Seed a room with a starting message" not in replies  # the intent is the task at hand


def test_a_continued_session_keeps_its_rule_and_its_root_cause():
    text = f"[user] {SUMMARY}\n\n[assistant] Continuing with the billboard."
    bodies = [r["body"] for r in extractive(text, profile="claude", source="claude:session:x")]
    assert any("personal configuration out of source control" in b for b in bodies), bodies
    assert not any("billboard" in b for b in bodies), bodies
    # The summary's root cause reaches the chooser, first of the agent's sentences; a bug the session
    # fixed is one a reader mostly would not keep, so whether it clears the threshold is the weights' call.
    turns = unfold(_split_turns(text))
    best = max(selector.candidates(turns), key=lambda c: selector.chance(c.x, selector.fitted()))
    assert "mount/3" in best.text and "every page load" in best.text, best.text


def test_a_session_without_a_summary_is_left_as_it_is():
    turns = [("user", "Why does the export fail?"), ("assistant", "The `cgi` module was removed in Python 3.13.")]
    assert unfold(turns) == turns
