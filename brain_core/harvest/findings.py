"""What the agent found, read offline from the whole session.

The extractive distiller in :mod:`.distill` keeps the person's decision, rule and preference
sentences that carry a cue word, and the person's terse rules and picks (:mod:`.person`). What
the agent says that is worth keeping is mostly its conclusions ("the auto-generated migration uses
ALTER TABLE ... modify, which SQLite doesn't support"; "this is a known compiler bug: aliases used
only inside rescue blocks are reported unused"). This module finds them without a model:

- :func:`agent_findings`: sentences of the agent's replies that state a conclusion about the
  system (a cause, a limitation, where something is kept, what a function returns, which command
  works), anchored on something concrete (a file, a function, a command, a named tool). The
  agent's narration ("Let me ...", "Now I'll ..."), status reports ("All 43 tests pass",
  "Committed"), plans, questions, code, tables and tool output are left out.

It returns scored candidates, one signal among many of :mod:`.selector`, the learned chooser of the
agent's sentences; :func:`sentences` splits a reply into them for both.
"""

from __future__ import annotations

import re

from brain_core.harvest.codeish import code_only
from brain_core.text.sentences import reply_sentences

# ------------------------------------------------------------------------------- sentences
FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE = re.compile(r"`([^`\n]{1,120})`")
EMPH = re.compile(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)")
BULLET = re.compile(r"^\s*(?:[-*•>]|\d+[.)]|[✅❌⚠️🔴🟡🟢✓✗★•]+)\s*")
_EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]")
SKIP_LINE = re.compile(r"^\s*(?:\||#{1,6}\s|[-=_─━*]{3,}|\$ |>>>|Traceback|File \"|\s*at [\w.$<>]+\(|[+-]{1,3}\s|diff |@@)")


def sentences(body: str, shortest: int = 30) -> list[str]:
    """Prose sentences of a reply: code blocks, tables, headings, rules and shell lines dropped,
    bullets and emphasis stripped, inline code kept as its text."""
    body = FENCE.sub("\n", body)
    out = []
    for line in body.splitlines():
        if not line.strip() or SKIP_LINE.match(line):
            continue
        line = _EMOJI.sub("", line)
        line = BULLET.sub("", line).strip()
        line = EMPH.sub("", line).strip()
        for s in reply_sentences(line):
            s = s.strip()
            if shortest <= len(s) <= 400 and len(s.split()) >= (5 if shortest >= 30 else 3):
                out.append(s)
    return out


# ------------------------------------------------------------------------- agent findings
# A statement of how the system is (a cause, a limit, a location, a behaviour), as opposed to what
# the agent is doing or did.
# A cause or a limit of the system: what breaks, what is missing, what does not work.
_STRONG = re.compile(
    r"\b(?:root cause|turns out|it turns out"
    r"|(?:is|was) a known|known (?:bug|issue|limitation|conflict)|(?:a|the) (?:real )?bug in"
    r"|does(?:n't| not) (?:support|exist|work|include|contain|handle|render|recogni[sz]e|have|expose|pass|persist)"
    r"|do(?:n't| not) (?:support|exist|work|have|expose)|(?:is|are)(?:n't| not) (?:supported|available|tracked|recogni[sz]ed|running|populated)"
    r"|can(?:'t|not) (?:access|be|see|find|import|reach|use|ssh|resolve)|fails? (?:on|when|if|because)"
    r"|(?:is|are) (?:gitignored|ignored)\b|^no \S+ (?:module|file|config|installers?|support|tests?)\b|\b(?:is|are) missing\b"
    r"|\bthere (?:is|are) no\b|\bas a (?:test |dev )?dependency\b|\bdefault \w+ is\b|\bis (?:set|hard-?coded) to\b"
    r"|(?:is|are)(?:n't| not) (?:installed|set|configured|found|present)\b|\bwhen \S+ is not installed\b"
    r"|(?:is|are) (?:manually )?(?:registered|hard-?coded|duplicated|exposed|unencrypted)\b|\bdrops? the\b"
    r"|\bflaw\b|\bprevents?\b|^needs? \S+ (?:as a )?(?:test |dev )?dependency\b)",
    re.I,
)
# More causes and limits, each a general statement about a named thing: a module removed or deprecated
# in a version, an identifier that is not unique, a field never used, an assumption a command makes.
_STRONG_MORE = re.compile(
    r"\b(?:was|were|been|is|are) (?:removed|deprecated|dropped) (?:in|since|from)\b"
    r"|\b(?:is|are)(?:n't| not) (?:unique|linked|read|loaded|persisted|inherited|shared)\b"
    r"|\b(?:assumes?|presumes?) (?:that |the |a |an )?\S+ (?:is|are|has|have|was)\b"
    r"|\bnever (?:uses?|reads?|calls?|sets?|links?|gets?)\b|\bonly (?:supports?|applies|affects|for new)\b"
    r"|\bwon'?t (?:work|run|load|start)\b|\b(?:is|are) (?:located|stored|kept) (?:in|at|under)\b|\b(?:which|this|that) is why\b",
    re.I,
)
# How a named thing behaves that surprises: an event's order, a value changed without a word, text
# read as markup, a type declared, who owns a file, a login of its own, a failure's cause.
_STRONG_HOW = re.compile(
    r"\b(?:occurs|happens|fails|breaks|crashes) because\b|\bfires? (?:before|after)\b"
    r"|\bsilently (?:coerced|ignored|dropped|converted|truncated|skipped|discarded|cast)\b"
    r"|\b(?:is|are) (?:being )?(?:auto-?)?escaped\b|\b(?:is|are) typed as\b|\b(?:is|are) owned by\b"
    r"|\b(?:with|has|have) its own (?:separate )?\w+|\binterprets? (?:\S+ ){1,3}as\b",
    re.I,
)
# Where something is, how it behaves, why: findings too, but as often the agent's running commentary.
_WEAK = re.compile(
    r"\b(?:the fix (?:is|was)|false positive|(?:is|are) (?:tracked|stored|kept|located|defined|configured|generated|reported|cached|provider-dependent)"
    r"|(?:lives|live|stored|kept) (?:in|under|at)|resolves? to|points? to|returns? (?:a|an|the|\{|`|:)|instead of|requires?"
    r"|needs? (?:to be|a|an|the)|must be|only (?:works|runs|applies|tracks|when)|expects?|auto-?generates?|picks? (?:up|the)"
    r"|(?:confirmed|verified|discovered) that|key (?:finding|insight|discovery)|found the (?:issue|problem|cause)"
    r"|because|since (?:the|it|this)|which (?:means|causes|is why|breaks)|so that"
    r"|(?:is|are) (?:implemented|provided|handled|done) (?:through|by|via|in|with)|in plain ?text"
    r"|(?:creates|writes|appends|records|generates) (?:a|an|the|its|new|short-lived)|stops? being|, not (?:the|a|an)\b)\b",
    re.I,
)
# The agent talking about its own work, not about the system.
_NARRATE = re.compile(
    r"^(?:i\b|let me|let's|i'll|i will|i'm going|i am going|now (?:i|let|let's|the|add|update|run|create)|next,? |first,? "
    r"|then,? |i need to|i should|i can|i have|i've|i had|i see|i found|i think|i'm|ok|okay|good|great|perfect|excellent"
    r"|done|all (?:done|green|clean|tests|set)|right|understood|got it|sure|yes|no\b|now\b|here(?:'s| is| are)|this (?:is|was) (?:a|the) (?:summary|plan)"
    r"|you(?:'re| are) (?:absolutely |right)|would you|do you|want me|shall i|should i|should we|ready to|looking at)",
    re.I,
)
_REPORT = re.compile(
    r"\b(?:tests? pass|passing|0 failures|all green|credo clean|committed|pushed|clean compile|compiles? cleanly|"
    r"successfully|(?:i|we) (?:just )?(?:added|created|updated|removed|fixed|implemented|wrote|moved|changed|ran|installed)|has been (?:added|created|updated)|"
    r"have been (?:added|created|updated)|was (?:added|created|updated)|task (?:is )?complete|is complete|completed|"
    r"next steps?|would you like|let me know|epic|bead|(?:issues?|problems?|things?) to (?:fix|address|solve)"
    r"|already (?:done|updated|fixed|handled|covered|in place)|(?:is|are) (?:properly|correctly) (?:registered|configured|set|installed|wired))\b",
    re.I,
)
# Something concrete the statement is about: inline code, a path, a dotted or snake_case or CamelCase
# name, a command line, a version, a port. Case matters: with case folded, any long word is "CamelCase".
_ANCHOR = re.compile(
    r"`[^`]+`|[\w.-]+/[\w./-]+|\b\w+\.(?:py|ex|exs|ts|js|json|jsonl|toml|yaml|yml|md|css|sh|rs|go|lock|conf)\b"
    r"|\b[a-z]+_[a-z_]+\b|\b[A-Z][a-z]+[A-Z]\w+\b|\b[a-z]+[A-Z]\w+\b|\b\w+\.\w+\(|:\w+\b|--[a-z][\w-]+|\b\d{2,5}\b",
)
# A named thing mid-sentence (a product, a tool, a component: "SQLite", "LiveView", "Credo", "API"),
# told by its shape: a capital letter after the sentence has begun, or an acronym.
_NAMED = re.compile(r"(?<=[a-z,;:(] )[A-Z][A-Za-z0-9]+(?:[ .-][A-Z][A-Za-z0-9]+)*|\b[A-Z]{2,}[a-z]?s?\b")
_VAGUE = re.compile(r"^(?:this|that|it|these|those|which|so|and|but|also)\b", re.I)
# Not a finding: a guess, a condition, advice to the reader, a change just made, an expected
# intermediate state, an imperative.
_HEDGED = re.compile(r"\b(?:may|might|maybe|perhaps|probably|likely|possibly|could|should(?:n't)?|seems?|appears? to|i think|i guess|"
                     r"for now|ideally|to (?:commit|push|stage)\b|now|expected|would(?:n't)?|will|won't|going to|"
                     r"you (?:mentioned|said|asked|noted|wanted)|as you|(?:i|we|it|you|they|that|this)'ll|my guess|i suspect)\b", re.I)
# The state of the work, not of the system: "doesn't exist yet", "isn't there locally".
_TRANSIENT = re.compile(r"\b(?:yet|locally|at the moment|right now|so far|still)\b")
# A finding is one claim: a sentence this long is a summary or a list run together.
LONGEST_FINDING = 260
_NOT_CLAIM = re.compile(r"^(?:if|when you|you|your|once|after|before|to |try|run|use|add|restart|create|install|open|set|make|"
                        r"check|see|note|cannot|can't|could|tested|verified|fixed|removed|added|updated|enabled|disabled|"
                        r"increased|reduced|stopped|supporting|adding|modify|provide|consider|replace|move|keep|update|remove|delete|"
                        r"returns|handles|tracks|shows|uses|runs|works|leverage|implement|instead|prevents?|eliminates?|ensures?|allows?|"
                        r"fix|rewrite|refactor|revert|rename|switch|change|convert|escape|wrap|pass|call|apply|clean|simplify|"
                        r"investigate|debug|verify|confirm|test|document|expose|extract|merge|split|drop|skip|ignore)\b", re.I)
# A reply the person turned down ("it's bad idea", "no, ...") holds proposals, not findings.
_REJECT = re.compile(r"^\W*(?:no\b|nope\b|wrong\b|incorrect\b|not (?:right|correct|what)|that'?s not\b|this is not\b|i don'?t (?:think|agree|like))"
                     r"|\bbad idea\b|\bnot acceptable\b|\bnot accep\w*|\bnot valid\b|\bnot what i\b", re.I)
_TITLED = re.compile(r"^[A-Z][\w./-]*(?: [\w./-]+){0,5} [-–—] ")  # "Gitleaks config updated - ...": a status line
# "`x.md` — Updated to ...", "[segment_test.go](src/...): new table case ...": a row of what was changed
_STATUS_ROW = re.compile(r"[—–]\s*(?:updated|added|created|fixed|removed|implemented|rewrote|rewritten|moved)\b"
                         r"|^\[[^\]]+\]\([^)]+\)\s*[:—–-]\s*(?:new|added|updated|removed|fixed|renamed|moved)\b", re.I)
_STATUS_LABEL = re.compile(r"^[A-Z]{3,}(?: [A-Z]{2,})*\s*[-–—:]\s")  # "BROKEN - ...", "FIXED: ...": a row of a status list
_YOURS = re.compile(r"^you\b|\byou (?:can|could|should|need|must|may|might|will)\b", re.I)  # advice to the reader
_LEAD = re.compile(r"^(?:however|also|additionally|note|so|and|but|actually|importantly|unfortunately|got it)\s*[,:—–-]?\s+", re.I)
# "The issue is that ..." names the bug being worked on now (task at hand); it counts only with a
# cause or limit of its own after it.
_ISSUE_IS = re.compile(r"^(?:the |this |that )?(?:real |main )?(?:issue|problem|bug|culprit|reason|error)(?: here)? (?:is|was)(?: clear)?\b[^\w`]*(?:that\b)?\s*", re.I)
_LABELLED = re.compile(r"^(?:(?:issue|problem|root cause|cause|finding|key finding|gotcha|caveat|limitation|bug)s?"
                       r"|(?:tested|checked|confirmed|verified)(?: (?:this|it))?(?: directly)?)\s*:\s*", re.I)
# The sentence after a finding that names its fix ("I need to use `:auto` mode") completes it.
_FIX = re.compile(r"^(?:i need to|we need to|the fix is|the solution is|so i|so we|i'll use|use|the workaround is)\b", re.I)


def agent_findings(turns: list[tuple[str, str]]) -> list[tuple[float, str, str, int]]:
    """(score, type, sentence, turn index) for the agent's conclusions, best first."""
    out = []
    for n, (role, body) in enumerate(turns):
        if role != "assistant" or _turned_down(turns, n):
            continue
        said = sentences(body, shortest=12)
        for k, raw in enumerate(said):
            score = finding_score(raw)
            if not score:
                continue
            out.append((score, "fact", as_record(as_said(raw), said[k + 1] if k + 1 < len(said) else ""), n))
    out.sort(key=lambda x: -x[0])
    return out


def finding_score(raw: str, said: str | None = None, counted: tuple[int, ...] | None = None) -> float:
    """How surely one sentence of the agent's states a finding by the hand-set rules (2.0 and up),
    or 0.0 when it does not. ``said`` (the sentence as :func:`as_said` gives it) and ``counted``
    (its :func:`marks`) spare a caller that has them the work."""
    s = as_said(raw) if said is None else said
    if len(s) < 20 or len(s) > LONGEST_FINDING or len(s.split()) < 4 or _YOURS.search(s):
        return 0.0
    if _STATUS_LABEL.match(s) or _STATUS_ROW.search(s):
        return 0.0
    if _TITLED.match(s) and not _STRONG.search(s) and not re.search(r"\b(?:is|are|was|were)\b", s.split("—")[0].split(" - ")[0]):
        return 0.0
    low = s.lower()
    if (s.rstrip()[-1:] in "?!" or _NARRATE.match(low) or _REPORT.search(low) or _TRANSIENT.search(low)
            or _HEDGED.search(re.sub(r"\([^)]*\)", "", low)) or _NOT_CLAIM.match(low)):
        return 0.0
    n_strong, n_more, n_how, weak, n_anchor, n_named = counted or marks(s)
    strong = n_strong + n_more + n_how + bool(_LABELLED.match(raw))
    anchors = n_anchor + n_named
    # The shape of a finding: a cause or a limit of something named, or two where-and-why
    # marks about two named things. Anything less is commentary.
    if not ((strong and anchors) or (weak >= 2 and anchors >= 2)) or code_only(s):
        return 0.0
    score = 2.0 + min(strong, 2) * 1.0 + min(weak, 2) * 0.25 + min(anchors, 3) * 0.25
    return score - 0.75 if _VAGUE.match(s) else score


def marks(s: str) -> tuple[int, int, int, int, int, int]:
    """How many marks of a finding a sentence holds: strong ones (a cause, a limit, how a thing
    works), weak ones, anchors (where) and named things."""
    return (len(_STRONG.findall(s)), len(_STRONG_MORE.findall(s)), len(_STRONG_HOW.findall(s)),
            len(_WEAK.findall(s)), len(_ANCHOR.findall(s)), len(_NAMED.findall(s)))


def as_record(s: str, nxt: str) -> str:
    """A finding (as :func:`as_said` gives it) as its record says it: without the colon of a list it
    introduced, and completed by the fix in the sentence after it (``nxt``: "The workaround is ...")."""
    if s.endswith(":"):
        s = s[:-1].rstrip() + "."
    if nxt and _FIX.match(nxt) and len(nxt) <= 200 and not code_only(nxt):
        s = f"{s} {nxt}"
    return s


def as_said(s: str) -> str:
    """A sentence of the agent's as a record would say it: a label ("Root cause:"), a lead
    ("However, ") and "The issue is that" dropped, the first letter upper case."""
    s = _LEAD.sub("", _LABELLED.sub("", s))
    if _ISSUE_IS.match(s):  # "The error is because the `cgi` module was removed": the cause alone
        s = re.sub(r"^because\s+", "", _ISSUE_IS.sub("", s), flags=re.I)
    return s[:1].upper() + s[1:]


def _turned_down(turns, n: int) -> bool:
    """Whether the person's next turn after reply ``n`` rejects it."""
    for role, body in turns[n + 1:]:
        if role == "user":
            return bool(_REJECT.search(body[:300]))
        if role == "assistant":
            return False
    return False
