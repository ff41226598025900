"""The kind of answer a question asks for, and the records that hold one.

"When did we move the CI?" is answered by a record that names a time ("we moved it last week",
"since March"), more than by one that only shares its words ("the CI is slow"); "how many retries?"
by one with a number in it. Recall lifts the records that hold the kind asked for by
``recall.kind_boost`` (0.4: they count 1.4 times), after the other lifts. Only the two kinds that
can be told from the words alone: a time for "when ..." questions, a number for "how many / much /
long / old / often". A question of any other kind lifts nothing.
"""

from __future__ import annotations

import re

_UNITS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|week|month|year|night|morning|" \
         "afternoon|evening|summer|winter|spring|autumn"
# "May" the month only with its capital, so that "it may fail" names no time
_MONTHS = "january|february|march|april|june|july|august|september|october|november|december|(?-i:May)"
TIME = re.compile(rf"\b(yesterday|today|tomorrow|tonight|recently|ago|(?:last|next|this|past|every) (?:\w+ )?(?:{_UNITS})"
                  rf"|(?:{_UNITS})s?|{_MONTHS}|(?:19|20)\d\d|\d{{1,2}}(?:am|pm|:\d\d))\b", re.I)
NUMBER = re.compile(r"\b(\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
                    r"twenty|thirty|forty|fifty|hundred|thousand|million|dozen|couple|few|several|once|twice)\b", re.I)
ASKS_WHEN = re.compile(r"^\s*(?:when\b|what (?:time|date|day|year|month)\b|which (?:day|year|month)\b|how long ago\b)",
                       re.I)
ASKS_NUMBER = re.compile(r"\bhow (?:many|much|long|old|often)\b", re.I)


def wanted(question: str) -> re.Pattern | None:
    """What a record must name to hold the kind of answer ``question`` asks for (None: no kind)."""
    if ASKS_WHEN.search(question):
        return TIME
    if ASKS_NUMBER.search(question):
        return NUMBER
    return None


def with_kind(scores: dict[int, float], bodies: dict[int, str], kind: re.Pattern | None,
              boost: float) -> tuple[dict[int, float], set[int]]:
    """``(scores, holders)``: the records whose body holds ``kind`` count ``1 + boost`` times."""
    if kind is None or boost <= 0:
        return scores, set()
    holders = {r for r in scores if kind.search(bodies.get(r) or "")}
    return {r: s * (1 + boost) if r in holders else s for r, s in scores.items()}, holders
