"""Comparing what a speech model heard with what was said, allowing what a different CPU or a model
update may change: case, punctuation, hyphens, numerals for number words ("6" / "six", "2am" /
"two am"), and a word or two inserted or misheard inside a phrase. Long passages are compared by
word error rate against the script that was spoken.

tiny.en's int8 decoding differs between CPUs (another machine heard "retry the six attempts" or "6
attempts" where this one hears "retries at six attempts"), so tests assert facts and names with
these helpers instead of exact sentences.
"""

from __future__ import annotations

import re

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}


def number_words(n: int) -> list[str]:
    if n < 20:
        return [_ONES[n]]
    if n < 100:
        tens, ones = divmod(n, 10)
        return [_TENS[tens]] + ([_ONES[ones]] if ones else [])
    return [str(n)]


def words(text: str) -> list[str]:
    """Lowercase words, punctuation and hyphens dropped, numerals spelt out ("2am" -> two am)."""
    text = text.lower().replace("-", " ")
    text = re.sub(r"(\d+)([a-z]+)", r"\1 \2", text)  # 2am -> 2 am
    out: list[str] = []
    for w in re.findall(r"[a-z0-9']+", text):
        w = w.strip("'")
        if not w:
            continue
        if w.isdigit():
            out.extend(number_words(int(w)))
        else:
            out.append(w)
    return out


def says(text: str, phrase: str, slack: int = 1) -> bool:
    """Whether ``phrase``'s words occur in ``text`` in order, with at most ``slack`` other words
    between the first and the last ("retry the six attempts" says "six attempts"; "capped at
    six" does not say "six attempts")."""
    heard, want = words(text), words(phrase)
    if not want:
        return True
    for start, w in enumerate(heard):
        if w != want[0]:
            continue
        i, end = 1, start + 1
        limit = start + len(want) + slack
        while i < len(want) and end < min(limit, len(heard)):
            if heard[end] == want[i]:
                i += 1
            end += 1
        if i == len(want):
            return True
    return False


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + deletions + insertions) / words of the reference, on normalised words."""
    ref, hyp = words(reference), words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1] / len(ref)


# What the fixture recordings say (tests/fixtures/audio/README.md): the scripts espeak-ng spoke.
MEETING_SCRIPT = (
    "Good morning, everyone. This is the damage-control weekly sync. Siobhan, can you start with the staging "
    "database? Sure. The staging database restores from Sunday's snapshot every night at 2 am. Anything written "
    "now is gone by morning, so test data must be reseeded. Thanks, Siobhan. Tomasz, walk us through the webhook "
    "retries. We decided to cap webhook retries at six attempts with exponential backoff. Owen will add a dead "
    "letter queue instead of raising the cap. Great. Action item: Owen owns the dead letter queue, due next "
    "Friday. Let's wrap up."
)
QUESTION_SCRIPT = "What did I decide about the webhook retry policy for damage control?"
WEATHER_SCRIPT = "Is it going to rain in Lisbon this afternoon?"
# The facts of the meeting, each as it must survive any CPU's decoding.
MEETING_FACTS = ("staging database", "six attempts", "raising the cap", "action item", "next friday", "wrap up")
