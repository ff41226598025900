"""Write-time abstracts: the short tier of a long record (about 100 tokens), so an agent can take
many memories per token and open the full body only when it needs it.

Extractive and offline: the record's opening sentence, then the sentences that share the most
content words with the whole body, in their original order, until about ``MAX_WORDS`` words. A
record of a few sentences needs none: its body already is its abstract.
"""

from __future__ import annotations

import re
from collections import Counter

from brain_core.text.sentences import prose_sentences as sentences
from brain_core.text.stopwords import SUMMARY_STOP

MAX_WORDS = 75          # about 100 tokens of English
MIN_SENTENCES = 4       # a body of fewer sentences ...
MIN_WORDS = 90          # ... and fewer words than this carries no abstract
DEPTHS = ("abstract", "full")

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]+")


def needs_abstract(body: str) -> bool:
    words = len(body.split())
    return words > MAX_WORDS and (words >= MIN_WORDS or len(sentences(body)) >= MIN_SENTENCES)


def make_abstract(body: str, max_words: int = MAX_WORDS) -> str | None:
    """The abstract of ``body``, or None when the body is short enough to be its own."""
    if not isinstance(body, str) or not needs_abstract(body):
        return None
    sents = sentences(body)
    content = [[w.lower() for w in _WORD.findall(s) if w.lower() not in SUMMARY_STOP] for s in sents]
    weight = Counter(w for ws in content for w in set(ws))
    scored = sorted(range(1, len(sents)),
                    key=lambda i: (-sum(weight[w] for w in set(content[i])) / (1 + len(content[i])) ** 0.5, i))
    chosen, used = [0], len(sents[0].split())
    for i in scored:
        n = len(sents[i].split())
        if used + n > max_words:
            continue
        chosen.append(i)
        used += n
    text = " ".join(" ".join(sents[i].split()) for i in sorted(chosen))
    words = text.split()
    if len(words) > max_words:  # one long opening sentence: cut it at a word
        text = " ".join(words[:max_words]) + " …"
    return text


def tokens(text: str) -> int:
    """A rough token count (words and punctuation marks), the same for every compared context."""
    return len(re.findall(r"\w+|[^\w\s]", text or ""))
