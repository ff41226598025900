"""Dates a question names ("in May 2023", "on October 13, 2023", "2024-03-01"), for recall.

A record carries the date it was made (``created``). When a question names a calendar date,
month or year, the records made then are more likely the ones meant, so recall gives them a
bounded lift (``recall.date_boost``) and leaves the date's words out of the keyword query, where
"may", "13" or "2023" would only match unrelated text. Only absolute dates are read: a relative
one ("last week") is the router's business (recency mode), and a wrong guess here would cost more
than it buys. A bare month counts only after a preposition ("in June"), so "may" the verb is not
a month.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
_MON = r"(january|february|march|april|may|june|july|august|september|october|november|december|" \
       r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_PATTERNS = (
    ("ymd", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MON},?\s+{_YEAR}\b", re.I)),
    ("mdy", re.compile(rf"\b{_MON}\s+{_DAY},?\s+{_YEAR}\b", re.I)),
    ("my", re.compile(rf"\b{_MON},?\s+(?:of\s+)?{_YEAR}\b", re.I)),
    ("m", re.compile(rf"\b(?:in|during|since|throughout|of|early|late|mid-?)\s+(?:the\s+month\s+of\s+)?{_MON}(?!\w)", re.I)),
    ("y", re.compile(rf"\b(?:in|during|since|throughout|of|early|late|mid-?)\s+{_YEAR}\b", re.I)),
)


@dataclass(frozen=True)
class DateSpan:
    """A named date: a day (with a day of slack either side, for time zones), a month or a year;
    ``year`` None means that month in any year."""

    year: int | None
    month: int | None = None
    day: int | None = None

    def contains(self, ts: float) -> bool:
        if not ts:
            return False
        when = datetime.fromtimestamp(ts, tz=timezone.utc)
        if self.day is not None and self.year is not None and self.month is not None:
            try:
                centre = datetime(self.year, self.month, self.day, 12, tzinfo=timezone.utc)
            except ValueError:
                return False
            return abs(when - centre) <= timedelta(hours=36)
        if self.year is not None and when.year != self.year:
            return False
        return self.month is None or when.month == self.month


def find_dates(text: str) -> tuple[list[DateSpan], str]:
    """The dates ``text`` names, and the text with those dates taken out."""
    spans: list[DateSpan] = []
    rest = text
    for kind, pat in _PATTERNS:
        def take(m: re.Match) -> str:
            span = _span(kind, m.groups())
            if span is None:
                return m.group(0)
            spans.append(span)
            # keep the preposition of a bare month or year ("in"): it is a stopword anyway
            return " "
        rest = pat.sub(take, rest)
    return spans, rest


def _span(kind: str, g: tuple) -> DateSpan | None:
    try:
        if kind == "ymd":
            y, m, d = int(g[0]), int(g[1]), int(g[2])
        elif kind == "dmy":
            d, m, y = int(g[0]), MONTHS[g[1].lower()], int(g[2])
        elif kind == "mdy":
            m, d, y = MONTHS[g[0].lower()], int(g[1]), int(g[2])
        elif kind == "my":
            return DateSpan(int(g[1]), MONTHS[g[0].lower()])
        elif kind == "m":
            return DateSpan(None, MONTHS[g[0].lower()])
        else:
            return DateSpan(int(g[0]))
        datetime(y, m, d)
    except (KeyError, ValueError):
        return None
    return DateSpan(y, m, d)
