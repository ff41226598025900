"""The person's pick among the options the agent offered, however it is typed ("A", "Option 1.
Should we ...", "yes, option a, but ..."), written with the option's words, and its description when
the option is a heading; a numbered list of next steps is no set of options, and a choice of how to
carry out the work at hand ("Subagent-Driven (this session)") is not kept."""

from __future__ import annotations

from brain_core.harvest.person import person_choices

OFFER = [
    ("user", "How should the archive be opened?"),
    ("assistant", "I read the viewer code first.\n\nSources:\n- the viewer's README"),
    ("assistant", "Two ways to open it:\n\n**Option A: Serve it locally**\nA `python3 -m http.server` in the archive folder.\n"
                  "Works in every browser.\n\n**Option B: Inline everything**\nOne HTML file with the data embedded.\n\n"
                  "Which do you prefer?"),
]


def chosen(answer: str, offer=OFFER) -> list[str]:
    return [text for _, _, text, _ in person_choices(offer + [("user", answer), ("assistant", "Good.")])]


def test_a_pick_however_it_is_typed():
    for answer in ("A", "Option A.", "option a, and keep the README short", "yes, option A, but check Safari too",
                   "I like option A"):
        got = chosen(answer)
        assert got and got[0].startswith("Chose Option A: Serve it locally"), (answer, got)


def test_a_heading_option_keeps_its_description():
    got = chosen("A")
    assert got and "http.server" in got[0] and "Inline" not in got[0], got


def test_the_label_is_a_list_items_not_a_words_first_letter():
    offer = [("user", "What now?"), ("assistant", "Perfect! Done.\n\n6 conversations, 3,889 messages in the archive.")]
    assert not chosen("P", offer) and not chosen("6", offer)


def test_next_steps_asked_as_a_list_are_no_options():
    offer = [("user", "Anything else?"),
             ("assistant", "Option 2: keep the old parser.\n\nWould you like me to:\n\n1. **Fix the redaction bug**?\n"
                           "2. **Set up pytest**?\n3. **All of the above** in priority order?")]
    assert not chosen("2", offer)


def test_a_description_stops_at_the_next_bulleted_option():
    offer = [("user", "Which look?"),
             ("assistant", "Three looks:\n\n- **A. Modern SaaS** (Linear/Vercel): a dark theme with a blue accent and card-based pages\n"
                           "- **B. Utility** (GitHub/Stripe): light mode, system font\n\nWhich do you prefer?")]
    got = chosen("A", offer)
    assert got and "Modern SaaS" in got[0] and "Utility" not in got[0], got


def test_a_choice_of_how_to_carry_out_the_work_at_hand_is_not_kept():
    offer = [("user", "The plan is written."),
             ("assistant", "Plan complete. Two execution options:\n\n**1. Subagent-Driven (this session)** - I dispatch a fresh "
                           "subagent per task, review between tasks.\n\n**2. Parallel Session (separate)** - open a new session "
                           "with the plan.\n\nWhich approach?")]
    assert not chosen("1", offer)
    offer = [("user", "main is red."),
             ("assistant", "Two options:\n\n1. Drive-by fix in this PR: delete the dead line as a separate commit.\n"
                           "2. A follow-up PR with its own review.\n\nWhich one?")]
    assert not chosen("1", offer)
    assert chosen("2", offer) == ["Chose Option 2: A follow-up PR with its own review."]
