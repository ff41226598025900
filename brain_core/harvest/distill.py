"""The distiller: from a transcript, 0 to 5 records worth keeping.

One interface, two implementations. With no model (the default), an extractive distiller keeps
the person's decisions, rules, preferences and choices and the agent's findings, as sentences of the
session, never anything from tool output; what it keeps is tagged ``harvest:offline`` with a
``confidence`` of 0.5 (:mod:`brain_core.marks`), since no model or person has read it. With a
provider, the model is asked for the same (what the agent found that stays true, the person's rules,
preferences and choices, decisions with their reasons), only as the transcript says it, and its
answer must pass a strict schema; an answer that does not is rejected whole (a
:class:`ProviderError`), never partly written (:mod:`.model_answer`).
Either may return nothing: most sessions hold nothing durable, and an empty harvest is a correct one.

The voice pipeline distills meeting transcripts through the same :func:`distill`; text without
``[user]``/``[assistant]`` markers is read as plain speech.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from brain_core.harvest import person as _person
from brain_core.harvest.codeish import code_only
from brain_core.harvest.compaction import unfold
from brain_core.harvest.guard import standing_order
from brain_core.harvest.model_answer import MAX_RECORDS, base_tags, with_llm
from brain_core.harvest.privacy import identity, mask_user
from brain_core.marks import OFFLINE_CONFIDENCE, OFFLINE_TAG
from brain_core.text.sentences import prose_sentences
from brain_core.text.slug import kebab
from brain_core.text.stopwords import STATEMENT_STOP


def distill(text: str, *, profile: str, source: str, context: dict | None = None, llm=None,
            refused: list[str] | None = None) -> list[dict]:
    """Propose 0..5 records (dicts with type, key, tags, body, profile, source) from ``text``.

    ``context`` may hold ``project`` (becomes a ``project:<name>`` tag), ``title``, ``tags`` and
    ``cwd`` (the session's folder: the user's name in it is masked before text goes to a model).
    ``llm`` is a provider from :func:`brain_core.llm.make_provider`; ``None`` or the ``none``
    provider selects the extractive distiller.
    """
    context = dict(context or {})
    if llm is None or getattr(llm, "name", "none") == "none":
        return extractive(text, profile=profile, source=source, context=context, refused=refused)
    return with_llm(text, llm, profile=profile, source=source, context=context, refused=refused)


# =============================================================================== extractive
_ROLE_MARK = re.compile(r"(?m)^\[(user|assistant|tool|plan)\] ")
# A Markdown link to a file of the session's own checkout ("[store.ts](/Users/<name>/src/app/store.ts#L42)",
# as Codex writes them): the file's name is what the sentence says; the path is where it lay that day.
_LOCAL_LINK = re.compile(r"\[([^\]\n]{1,120})\]\((?![a-z][a-z0-9+.-]*:(?![\\/])|#)[^)\s]{1,400}\)", re.I)
# A Codex directive, a line of its own: "::code-comment{title=... body=...}" (a review comment),
# "::git-commit{cwd=...}". What the agent's tools are told, not what it says.
_DIRECTIVE = re.compile(r"::[a-z][\w-]*\{[^\n]*\}(?=[ \t]*$)", re.M)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_SPEAKER = re.compile(r"^\s*(?:\[[\d:.,\s-]+\]\s*)?(?:[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}:\s+)?")
_EMPHASIS = re.compile(r"\*\*|__")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_CODE_LINE = re.compile(r"^(?:\s{4,}|\t|[+@>$#]|\*\*\*|diff |Traceback|File \"|\s*at [\w.$]+\()")

_Cue = tuple[str, re.Pattern, float]
# Strong cues say the statement outlives the session; weak ones ("don't", "must", "I want") are as
# often an order for the task at hand, so they need a reason ("because ...") to count.
CUES: tuple[_Cue, ...] = (
    ("decision", re.compile(r"\bwe(?:'ve| have)? (?:decided|agreed|settled|chosen)\b|\bdecided (?:to|that|on|against)\b"
                            r"|\b(?:the )?decision (?:is|was)\b|\bdecision:|\blet'?s go with\b|^go with\b|\bgo with\b"
                            r"|\bwe(?:'ll| will) (?:go with|use|stick with|keep)\b|\bsettled on\b|\bopted (?:to|for)\b"
                            r"|\b(?:team|project|house) (?:policy|rule|convention)\b|\bfrom now on\b|\bgoing forward\b"
                            r"|\bthe plan is\b|\bwe(?:'re| are) (?:going with|moving to|going to (?:use|switch|move|adopt|keep|stick|drop|replace|migrate))\b"), 3.0),
    ("instruction", re.compile(r"\balways\b|\bnever\b|\b(?:don'?t|do not) ever\b|\bshould (?:always|never)\b|\bthe rule is\b|\bremember (?:to|that)\b"
                               r"|\bin (?:the )?future\b|\bno more\b|\bstop (?:using|doing)\b"), 2.0),
    ("instruction", re.compile(r"\b(?:don'?t|do not|never)\b[^.]{0,100}\binstead\b"), 2.0),
    # A rule said as a condition or a boundary: "without my explicit approval", "make sure you never
    # ...", "keep X out of here"; a preference as a restriction: "I only want ...".
    ("instruction", re.compile(r"\bwithout (?:my|our) (?:explicit |express )?(?:approval|permission|consent|go-ahead|ok)\b"
                               r"|\bmake sure (?:you |to )?(?:do not|don'?t|never)\b|\bkeep [\w' -]{2,40} out of\b"
                               r"|\bbe careful (?:to|not|never)\b"), 2.0),
    ("preference", re.compile(r"\bi only (?:want|use|need|care about)\b"), 2.0),
    ("fact", re.compile(r"\b(?:i|we) (?:sign in|log in|authenticate|host|deploy) (?:with|on|via|to)\b"), 2.0),
    ("instruction", re.compile(r"\bmust(?:n't| not)?\b|\bdon'?t\b|\bdo not\b|\bmake sure (?:to|that|you)\b|\bshould not\b"
                               r"|\bavoid\b"), 1.5),
    ("preference", re.compile(r"\bi (?:really )?(?:prefer|like|hate|dislike)\b|\bi'?d rather\b|\bi would rather\b"
                              r"|\bprefer(?:s|red)?\b|\bmy preference\b|\buse\b(?:\W+\w+){1,6}?\W+instead of\b"), 2.0),
    ("preference", re.compile(r"\bi (?:really )?want\b|\bplease (?:use|keep|avoid|write)\b"), 1.5),
)
_REASON = re.compile(r"\bbecause\b|\bsince\b|\bso that\b|\botherwise\b|\bthe reason\b|\bdue to\b|\bwhich means\b|\bto avoid\b")
# A doubt, or a request for the task at hand ("can we add that ..."): no rule.
_HEDGE = re.compile(_person.DOUBT_OR_REQUEST + r"|\bmight\b|\bshould we\b")
_TEMPORARY = re.compile(r"\bfor now\b|\bthis time\b|\bjust this once\b|\btemporar(?:y|ily)\b|\bright now\b|\bfor this (?:run|test|session)\b"
                        r"|\bas of now\b")
# An order for the task at hand, not a standing rule.
_TASK = re.compile(r"\buntil\b|\bwhen you(?:'re| are) (?:done|finished)\b|\bthen stop\b|\bbefore you (?:stop|finish)\b"
                   r"|\b(?:this|that) (?:file|function|pr|branch|test|task|change|commit|ticket|bug|issue|step|bead)\b"
                   r"|\bin this (?:repo|pr|session|file)\b|\bstart with\b|\bcontinue (?:with|until)\b")
_NARRATION = re.compile(r"^(?:let me|i'll|i will|i'm going to|i am going to|now i|next,? i|first,? i|i've|i have)\b")
_SKIP = re.compile(r"\bnever mind\b|\bnevermind\b|\[REDACTED:|^(?:ok|okay|thanks|thank you|yes|no|sure)\b[.!]?$")
_ANAPHOR = re.compile(r"^(?:that|this|it|these|those|make that|make this|so|and|which)\b", re.I)
_REASON_LEAD = re.compile(r"^(?:because|that'?s because|the reason|this is because|since|otherwise)\b", re.I)
# Pasted material in a person's turn: log lines, file:line references, review comments.
_LOG_LINE = re.compile(r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[ T]\d|\d{2}:\d{2}:\d{2}\b|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|CRITICAL)\b"
                       r"|[\w./-]+\.(?:py|ts|tsx|js|go|rs|rb|java|kt|ex|exs|c|cc|cpp|h|swift|php|cs)[:(]\d+)")
_REVIEW = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*|__)?(?:nit|nitpick|suggestion|issue|blocker|praise|question|thought|chore|todo|"
                     r"high|medium|low|major|minor|critical|security|bug|p[0-3])(?:\*\*|__)?\s*(?:\([^)]*\))?\s*[:\]]"
                     r"|^\s*(?:[-*]\s*)?\[(?:P[0-3]|nit|blocking|non-blocking)\]"
                     r"|\b(?:code review|review comments?|reviewer|LGTM|requested changes|pull request #?\d+)\b", re.I)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
PASTED_CHARS = 900  # a person's turn longer than this with a pasted look is skipped whole
# Only what the person said counts: the agent's text is narration, plans and echoes (a rule the
# person confirms is in the person's own turn).
ROLE_WEIGHT = {"user": 1.0, "plain": 1.0}
THRESHOLD = 2.0


@dataclass
class _Sentence:
    text: str
    role: str
    turn: int
    index: int  # position within its turn
    score: float = 0.0
    type: str = ""


def extractive(text: str, *, profile: str, source: str, context: dict | None = None,
               refused: list[str] | None = None) -> list[dict]:
    """The offline distiller: decision, rule and preference sentences, grouped per statement."""
    context = dict(context or {})
    turns = unfold(_split_turns(text))  # a compacted session's summary read as the turns it stands for
    sentences: list[list[_Sentence]] = []
    for n, (role, body) in enumerate(turns):
        if ROLE_WEIGHT.get(role, 0.0) <= 0 or _pasted(body):
            sentences.append([])
            continue
        items = [_Sentence(s, role, n, i) for i, s in enumerate(_sentences(body))]
        for s in items:
            _score(s)
            if refused is not None and s.type == "refused":
                refused.append(s.text)
        sentences.append(items)

    groups: list[tuple[float, str, list[_Sentence]]] = []
    for items in sentences:
        chosen = [s for s in items if s.score >= THRESHOLD]
        for s in chosen:
            group = [s]
            prev = items[s.index - 1] if s.index > 0 else None
            if prev is not None and _ANAPHOR.match(s.text) and not prev.text.endswith("?"):
                group.insert(0, prev)
            nxt = items[s.index + 1] if s.index + 1 < len(items) else None
            if nxt is not None and _REASON_LEAD.match(nxt.text):
                group.append(nxt)
            groups.append((s.score, s.type, group))
    merged = _merge_groups(groups)
    merged.sort(key=lambda g: -g[0])
    candidates = [(score, rtype, " ".join(s.text for s in group)) for score, rtype, group in merged]
    rules, found, beyond = _whole_session(turns, refused)
    candidates += rules
    first_found = len(candidates)  # from here on the agent's findings
    candidates += found
    completing = len(candidates)  # from here on a candidate may only complete a kept record
    candidates += beyond
    # No home folder and no login name in a record: the brain is a git repository, often pushed. (The
    # names are this machine's and the session folder's; reading the whole transcript for more cost a fifth
    # of the distiller's time.)
    names, _ = identity("", cwd=context.get("cwd"))
    candidates = [(score, rtype, mask_user(body, names=names)) for score, rtype, body in candidates]

    records: list[dict] = []
    kept_words: list[set[str]] = []
    for n, (score, rtype, body) in enumerate(candidates):
        words = _content_words(body)
        if not words or code_only(body) or any(_jaccard(words, w) >= 0.6 or _said_in(words, w) for w in kept_words):
            continue
        if n >= first_found and any(len(words & w) >= RESTATED * len(words) for w in kept_words):
            continue  # the agent saying again what a kept record says ("Done: ... now retries with ...")
        same = _same_finding(body, words, records, kept_words)
        if same is not None:  # another wording of a kept record's finding: one record says both or one
            old = kept_words[same]
            if len(old - words) < SAID_MORE * len(old) and len(words - old) >= SAID_MORE * len(words):
                records[same].update(body=body, key=make_key(body))  # the kept one said nothing more: this one says it
                kept_words[same] = words
            elif len(words - old) >= SAID_MORE * len(words) and len(records[same]["body"]) + len(body) < MERGED_CHARS:
                records[same]["body"] = f"{records[same]['body'].rstrip()} {body}"
                kept_words[same] |= words
            continue
        if len(records) == MAX_RECORDS or n >= completing:
            continue  # full, or past the cap: a later candidate may still complete a kept record
        kept_words.append(words)
        records.append({
            "type": rtype, "key": make_key(body), "tags": base_tags(context) + [OFFLINE_TAG],
            "body": body, "profile": profile, "source": source, "confidence": OFFLINE_CONFIDENCE,
        })
    return records


# Two candidates of one session that name the same two things (a file, a flag, a tool, an
# identifier) state one finding: "SunGather can't find `registers-sungrow.yaml` because ..." and
# "The service is running, but SunGather can't find the `registers-sungrow.yaml` file." The later
# one joins the kept record when it says something more (at least this share of its words new),
# and the two fit in this many characters; it takes the kept record's place when that one says
# nothing more (less than this share of its words are not the later one's); otherwise it is dropped.
SAID_MORE = 0.4
MERGED_CHARS = 600
# An agent's finding whose words are mostly (this share) a kept record's restates it: the person's
# decision reported back as done, or the finding said again in the closing summary.
RESTATED = 2 / 3
_NAMED_THING = re.compile(r"`([^`\n]{2,80})`|(?<![\w-])([A-Za-z][\w-]*(?:[./][\w-]+)+|[a-z]+_\w+|--?[a-z][\w-]+"
                          r"|[a-z]+[A-Z]\w*|[A-Z]\w*[A-Z]\w*|[A-Z][a-z]{2,}\w*)(?![\w-])")


# Capitalised words that start a sentence without naming anything.
_LEADS = frozenset("however currently now actually first next finally note yes no ok okay great perfect good "
                   "done both some once while if then instead still even the this that these those there here "
                   "it its i'll i've i'm we're you're they".split())


def _named_things(body: str) -> set[str]:
    out = set()
    for m in _NAMED_THING.finditer(body):
        name = (m.group(1) or m.group(2)).lower().strip()
        if name and name not in STATEMENT_STOP and name not in _LEADS:
            out.add(name)
    return out


def _same_finding(body: str, words: set[str], records: list[dict], kept_words: list[set[str]]) -> int | None:
    names = _named_things(body)
    if len(names) < 2:
        return None
    for i, rec in enumerate(records):
        if len(names & _named_things(rec["body"])) >= 2 and _jaccard(words, kept_words[i]) > 0.0:
            return i
    return None


# The person's terse rules (one per turn) kept from one session, beside what the agent found (chosen
# by .selector, which also caps them).
MAX_RULES = 4
PAST_CAP = 3  # findings past the cap that may still complete a kept record


def _whole_session(turns: list[tuple[str, str]], refused: list[str] | None) -> tuple[list, list, list]:
    """Candidates beyond the person's cue-word sentences, best first, each (score, type, text): the
    person's choices among options offered and their terse rules; the agent's findings; and the next
    few findings past the cap, which may only complete a kept record (see :func:`extractive`)."""
    from brain_core.harvest.person import person_choices, person_rules
    from brain_core.harvest.selector import fitted, select

    if not any(role == "assistant" for role, _ in turns):
        return [], [], []  # plain speech (a meeting) or the person alone: nothing found by an agent
    out: list[tuple[float, str, str]] = []
    for score, rtype, text, _ in person_choices(turns) + person_rules(turns):
        if standing_order(text):
            if refused is not None:
                refused.append(text)
            continue
        if score >= THRESHOLD:
            out.append((score, rtype, text))
    out = sorted(out, key=lambda c: -c[0])[:MAX_RULES]
    # A finding ranks among the candidates above the cue-word threshold, by its chance.
    found = [(THRESHOLD + chance, "fact", text) for chance, text in select(turns, more=PAST_CAP)
             if not standing_order(text)]
    keep = fitted()["keep"]
    # The person's own rules first (they outrank what the agent concluded), then the findings.
    return out, found[:keep], found[keep:]


def _split_turns(text: str) -> list[tuple[str, str]]:
    text = text.replace("\u2019", "'").replace("\u2018", "'")  # "I’ll", "don’t" (Codex's) read as "I'll", "don't"
    text = _DIRECTIVE.sub("", _LOCAL_LINK.sub(_link_name, text))
    marks = list(_ROLE_MARK.finditer(text))
    if not marks:
        return [("plain", text)]
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.append((m.group(1), text[m.end():end]))
    return out


def _link_name(m: re.Match) -> str:
    name = m.group(1).strip()
    return name if "`" in name or " " in name else f"`{name}`"


def _pasted(body: str) -> bool:
    """Whether a person's turn is mostly something pasted (a review, a log, a document)."""
    if len(body) < PASTED_CHARS and not _REVIEW.search(body):
        return False
    lines = [ln for ln in body.splitlines() if ln.strip()]
    if not lines:
        return False
    headings = sum(1 for ln in lines if _HEADING.match(ln))
    machine = sum(1 for ln in lines if _LOG_LINE.match(ln) or _CODE_LINE.match(ln) or _REVIEW.search(ln))
    return headings >= 2 or machine >= max(2, len(lines) // 4) or len(body) >= 4 * PASTED_CHARS


# A person typing in lower case ends a sentence all the same: "review the work. we have a lot of
# bugs. do not open a pr without my approval." (three letters before the stop: "e.g. this" stays whole).
_LOWER_END = re.compile(r"(?<=[a-z]{3}[.!?])\s+(?=[a-z])")


def _sentences(body: str) -> list[str]:
    body = _FENCE.sub("\n", body)
    out: list[str] = []
    for line in body.splitlines():
        if (not line.strip() or _CODE_LINE.match(line) or _LOG_LINE.match(line) or _REVIEW.search(line)
                or _person.PASTED_OUTPUT.search(line)):
            continue
        line = _BULLET.sub("", _SPEAKER.sub("", line, count=1), count=1).strip()
        for s in (part for sentence in prose_sentences(line) for part in _LOWER_END.split(sentence)):
            s = _EMPHASIS.sub("", s).strip()
            if len(s) >= 20 and len(s.split()) >= 4 and len(s) <= 600:
                out.append(s)
    return out


_QUOTED = _person.QUOTED
_IMPERATIVE = re.compile(r"^(?:please |and |so |also )?(?:never|always|don'?t|do not|make sure|avoid|keep|use|stop)\b")


def _score(s: _Sentence) -> None:
    low = s.text.lower()
    if standing_order(s.text):
        s.type = "refused"  # an order aimed at the assistant: never a memory
        return
    if s.text.rstrip().endswith("?") or _SKIP.search(s.text) or _SKIP.search(low):
        return
    if _person.PERSON_STATE.search(low) or _person.not_a_rule(s.text):
        return  # what the program does now, where the work stands, or what only reads as a rule
    if _person.REPORTED.search(low) and not _IMPERATIVE.match(low):
        return  # what the person saw go wrong ("the rest never loads"), not a rule ("never load ...")
    best, score = "", 0.0
    said = _QUOTED.sub('""', low)  # a quoted phrase names something ("profiling never enabled"): no cue in it
    for rtype, rx, weight in CUES:
        if rx.search(said):
            score += weight if not best else 0.5
            best = best or rtype
    if not best:
        return
    if _REASON.search(low):
        score += 1.0
    if _HEDGE.search(low):
        score -= 2.0
    if _TEMPORARY.search(low):
        score -= 2.0
    if _NARRATION.match(low):
        score -= 2.0
    if _TASK.search(low):
        score -= 2.0
    s.score = score * ROLE_WEIGHT.get(s.role, 0.0)
    s.type = best


def _merge_groups(groups):
    """Statements built from overlapping sentences become one record (the best score wins)."""
    merged: list[tuple[float, str, list[_Sentence]]] = []
    for score, rtype, group in groups:
        ids = {(s.turn, s.index) for s in group}
        for i, (mscore, mtype, mgroup) in enumerate(merged):
            mids = {(s.turn, s.index) for s in mgroup}
            if ids & mids or _adjacent(ids, mids):
                union = sorted({(s.turn, s.index): s for s in mgroup + group}.values(), key=lambda s: (s.turn, s.index))
                if len(union) <= 3:
                    best = (mscore, mtype) if mscore >= score else (score, rtype)
                    merged[i] = (max(mscore, score) + 0.5, best[1], union)
                    break
        else:
            merged.append((score, rtype, list(group)))
    return merged


def _adjacent(a: set, b: set) -> bool:
    return any((t, i + 1) in b or (t, i - 1) in b for t, i in a)




def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STATEMENT_STOP and len(w) > 1}


def _said_in(words: set, kept: set) -> bool:
    """Whether one of the two says (nearly) all the other says: a sentence of a kept record on its own,
    or a kept record again with more around it (the person's turn it came from)."""
    return len(words - kept) <= 0.1 * len(words) or len(kept - words) <= 0.1 * len(kept)


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / max(1, len(a | b))


def make_key(text: str, words: int = 6) -> str:
    """A stable kebab-case key from the statement's first content words: the same statement
    harvested twice gets the same key, so the second write supersedes (or no-ops) the first.
    Keys become file names, which are not masked on write: the text is redacted first."""
    from brain_core.redact import redact

    picked = []
    for w in re.findall(r"[a-z0-9]+", redact(text).text.lower()):
        if w in STATEMENT_STOP or len(w) < 2 or w in picked:
            continue
        picked.append(w)
        if len(picked) == words:
            break
    return kebab("-".join(picked), 60) or "note"
