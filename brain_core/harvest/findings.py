"""What the agent found and what the person ruled, read offline from the whole session.

The extractive distiller in :mod:`.distill` keeps the person's decision, rule and preference
sentences that carry a cue word. Most of what is worth keeping from a coding session is said
otherwise: the agent's conclusions ("the auto-generated migration uses ALTER TABLE ... modify,
which SQLite doesn't support"; "this is a known compiler bug: aliases used only inside rescue
blocks are reported unused"), and the person's terse corrections ("it's bad idea, performance is
crucial", "TODO is not acceptable"). This module finds both without a model:

- :func:`agent_findings`: sentences of the agent's replies that state a conclusion about the
  system (a cause, a limitation, where something is kept, what a function returns, which command
  works), anchored on something concrete (a file, a function, a command, a named tool). The
  agent's narration ("Let me ...", "Now I'll ..."), status reports ("All 43 tests pass",
  "Committed"), plans, questions, code, tables and tool output are left out.
- :func:`person_rules`: the person's short declarative statements that constrain the work
  ("must", "is crucial", "not acceptable", "there is no need", "we don't control"), which the
  cue-word scorer misses; orders for the task at hand ("push to github", "continue until all are
  done") and pasted material are left out.
- :func:`person_choices`: the person's pick among options the agent offered ("I like Option C",
  "go with 2"), written with the option's own words.

Everything here returns scored candidates. The person's rules and choices go to
:func:`.distill.extractive`, which ranks, merges and caps them; the agent's findings are one signal
among many of :mod:`.selector`, the learned chooser of the agent's sentences.
"""

from __future__ import annotations

import re

from brain_core.harvest.codeish import code_only
from brain_core.text.sentences import reply_sentences

# ------------------------------------------------------------------------------- sentences
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE = re.compile(r"`([^`\n]{1,120})`")
_EMPH = re.compile(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)")
_BULLET = re.compile(r"^\s*(?:[-*•>]|\d+[.)]|[✅❌⚠️🔴🟡🟢✓✗★•]+)\s*")
_EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]")
_SKIP_LINE = re.compile(r"^\s*(?:\||#{1,6}\s|[-=_─━*]{3,}|\$ |>>>|Traceback|File \"|\s*at [\w.$<>]+\(|[+-]{1,3}\s|diff |@@)")


def sentences(body: str, shortest: int = 30) -> list[str]:
    """Prose sentences of a reply: code blocks, tables, headings, rules and shell lines dropped,
    bullets and emphasis stripped, inline code kept as its text."""
    body = _FENCE.sub("\n", body)
    out = []
    for line in body.splitlines():
        if not line.strip() or _SKIP_LINE.match(line):
            continue
        line = _EMOJI.sub("", line)
        line = _BULLET.sub("", line).strip()
        line = _EMPH.sub("", line).strip()
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


# --------------------------------------------------------------------------- person rules
# Constraints said without the usual cue words.
_CONSTRAINT = re.compile(
    r"\bmust(?:n't| not)?\b|\bis crucial\b|\bare crucial\b|\bis critical\b|\bis important\b|\bimportant (?:not )?to\b"
    r"|\bnot acceptable\b|\bis unacceptable\b|\bnot (?:valid|allowed|an option)\b|\bbad idea\b|\bthere is no need\b|\bno need to\b"
    r"|\bthere is a need to\b|\bwe don'?t (?:control|own|use|need)\b|\bkeep in mind\b|\bshould(?:n't| not)? (?:be|have|use|refer)\b"
    r"|\bis (?:the same|redundant)\b|\bexactly the same\b|\bnever\b|\balways\b|\bonly\b[^.]{0,40}\b(?:for|when|if)\b"
    r"|\bthe (?:issue|problem|point) is\b|\bit'?s not\b|\b(?:is|are)(?:n't| not)\b|\balready (?:present|exists?|there|in)\b"
    r"|\bis our\b|\bare our\b|\bwon'?t be broken\b|\bdon'?t (?:overcomplicate|refer)\b",
    re.I,
)
# Orders for the task at hand: the person telling the agent what to do next.
_ORDER = re.compile(
    r"^(?:please )?(?:push|commit|sync|continue|proceed|resume|go on|do|run|show|create|add|update|fix|remove|delete|move|"
    r"open|ssh|install|uninstall|try|make|write|read|check|look|find|review|analy[sz]e|explore|prepare|put|implement|"
    r"start|stop|publish|enable|disable|change|rename|test|build|deploy|explain|tell|give|list|search|generate|use|"
    r"ultrathink|yes|ok|okay|great|good|no)\b",
    re.I,
)


_QUOTED = re.compile(r"\"[^\"]{1,80}\"|\u201c[^\u201d]{1,80}\u201d")


def person_rules(turns: list[tuple[str, str]]) -> list[tuple[float, str, str, int]]:
    """The person's terse rules and corrections, one candidate per turn: the turn's statements
    (its orders for the task at hand left out) when one of them constrains the work."""
    out = []
    first = next((n for n, (role, _) in enumerate(turns) if role == "user"), None)
    for n, (role, body) in enumerate(turns):
        if role != "user" or n == first or len(body) > 1200:
            continue  # the opening request states the task at hand
        if PASTED_OUTPUT.search(body):
            continue  # a turn carrying a terminal session, a log or a trace reports, it does not rule
        keep, cues = [], 0
        said = _person_sentences(body)
        if any(_REPORTED.search(s) for s in said):
            continue  # what the person saw go wrong, and the rest of the turn says more of it
        for s in said:
            low = s.lower().strip()
            if (s.rstrip().endswith("?") or code_only(s) or _ORDER.match(low) or _LOCAL.search(low)
                    or _PERSON_STATE.search(low) or _UNSURE.search(low) or not_a_rule(s)):
                continue
            keep.append(s)
            cues += len(_CONSTRAINT.findall(_QUOTED.sub('""', s)))  # a quoted phrase names something
        if not cues or not keep:
            continue
        text = ". ".join(keep)
        if len(text) > 500:
            continue
        out.append((2.0 + 0.25 * min(cues, 4), "instruction", text[0].upper() + text[1:] + ".", n))
    return out


# A person's sentence that reads as a rule but is none: a request for the change at hand in a few
# words ("The file should be untracked.", "They should have borders around them."), a thought left
# unfinished ("... that are multimodal..."), a reply that leans on the agent's last message ("Ah but
# ...", "in fact, I prefer u dont", "Only when clear and useful."), a review finding's severity label
# ("Medium: the APIs no longer reject ..."), text a tool wrote to an agent ("... your user's approval"),
# a tentative pick ("I'd go with ..."), an order for a thing just shown ("Make them look distinct ...").
_SHOULD = re.compile(r"\bshould(?:n't| not)? (?:be|have)\b", re.I)
_NOT_A_RULE = re.compile(
    r"(?:\.\.\.|…)\W*$|^(?:ah|oh|hm+|well|in fact)(?![\w-])|^only (?:when|if)\b[^,;]{0,60}$"
    r"|^(?:\*\*)?(?:high|medium|low|critical|major|minor)(?: severity| priority)?(?:\*\*)?\s*:"
    r"|\byour user(?:'s)?\b|\bi(?:'d| would) go with\b|^just say\b",
    re.I,
)
_FOR_THIS = re.compile(r"^(?:just |please )?(?:make|fix|move|put|change|give|set)\s+(?:it|them|this|that|these|those)\b", re.I)
_GENERAL = re.compile(r"\b(?:always|never|every|whenever|all|because|since|so that|otherwise|from now on|going forward"
                      r"|policy|rule|convention|default)\b", re.I)


def not_a_rule(sentence: str) -> bool:
    """Whether a person's sentence, though worded like one, is no rule to remember (see _NOT_A_RULE)."""
    s = sentence.strip()
    if _NOT_A_RULE.search(s):
        return True
    if _GENERAL.search(s):
        return False  # "Make that the team policy from now on.", "They should always be hidden."
    return bool(_FOR_THIS.match(s)) or (len(s.split()) <= 8 and bool(_SHOULD.search(s)))


# What the person saw go wrong ("it still doesn't work", "the button does not do anything", "I get an
# error"): a report of the present state, not a rule for the work.
_REPORTED = re.compile(
    r"\b(?:does(?:n't| not)|do(?:n't| not)|did(?:n't| not)|is(?:n't| not)|are(?:n't| not)|was(?:n't| not)|not|never|nothing)"
    r"\s+(?:\w+\s+)?(?:work(?:s|ing|ed)?|load(?:s|ing|ed)?|show(?:s|ing|n)?|display\w*|visible|happen\w*|do(?:es|ing)? (?:anything|nothing)"
    r"|run(?:s|ning)?|start\w*|respond\w*|appear\w*|updat\w*|sav\w*|persist\w*|maintained|preserved|there)\b"
    r"|\b(?:still|again)\b[^.]{0,40}\b(?:broken|fail\w*|error|wrong|happening)\b|\bi (?:see|get|got|saw)\b|\bit says\b"
    r"|\b(?:an?|the|this|that|same|this) error\b|\berror (?:message|says)\b|\b(?:is|are|was|still|it'?s) broken\b|\bregress\w*"
    r"|\bseems? to (?:work|be working|fail)\b|\bdoes(?:n't| not) seem to\b|\bsomehow\b|\bit seems\b|\bworks (?:perfectly|fine|now|well)\b"
    # what the person shows or judges of the work at hand ("you see that the box isn't wrapping", "this is
    # not what I wanted", "'likely obsolete' is not good enough"), a guess at the past ("must have been
    # missed"), what a thing does ("a crate it never touches", "sometimes the old info persists"), an
    # error's place ("at line 2 column 102")
    r"|\byou see that\b|\bhere is an example\b|\bnot what i (?:wanted|asked for|meant)\b|\bnot good enough\b"
    r"|\bmust have (?:been|\w+ed)\b|\b(?:it|which|that) never\b|\bat line \d+\b|\bsometimes\b",
    re.I,
)
# What the person says the program does now ("Now, the export always ...", "Currently it ..."), a
# question put as a statement ("... in the manifest right"), where the work stands ("we are still at
# the stage of ..."), what they see it do ("when I press r it ...") and a feature asked for ("I should
# be able to toggle ..."): the state of the task, not a rule.
_PERSON_STATE = re.compile(r"^(?:now|currently|right now|at the moment|so far)\b|\bright\W*$|,\s*right\b|\w right,\s"
                           r"|\b(?:we are|we're|i am|i'm) (?:still|currently|not \w+ing)\b"
                           r"|^when i (?:press|click|hit|type|tap|open|select|run|scroll|load)\b"
                           r"|^i (?:want to|need to|would like to|'d like to) be able to\b|\bshould be able to\b"
                           r"|^it would be (?:nice|good|great)\b")
# Material pasted into a turn: a shell prompt line, a command run with a variable set ("GOCACHE=/tmp/go
# go test ./..."), a log line ("[ActiveJob] [Jobs::Agent] Performed ..."), an error ("Error: ..."), a stack
# trace, a tool's banner, a JSON message ('{"type":"idle_notification", ...').
PASTED_OUTPUT = re.compile(
    r"(?m)^\s*(?:\(\S+\)\s+)?\S+@\S+\s+\S*\s*[%$#]\s|^\s*\$ \S|\[\d{1,2}/\w{3}/\d{4}|^\s*Traceback \(|^\s*File \"|"
    r"^\s*(?:[Ee]nv\s+)?[A-Z][A-Z0-9_]{2,}=\S+\s+\S|\{\"[\w-]+\":|^\s*\w*(?:Error|Exception):|^\s*\[[\w:.-]+\]\s*\[[\w:.-]+\]|^\s*\d{1,3}(?:\.\d{1,3}){3} - - |<command-(?:name|message|args)>|<local-command|^Caveat: ")

_LOCAL = re.compile(r"\b(?:this|that) (?:file|pr|branch|commit|step|document|doc|table)\b|\bfor now\b|\bthis time\b"
                    r"|\bonly stop\b|\bdon'?t stop\b|\bstop (?:only )?(?:if|when|once) you\b|\bthe plan\b"
                    r"|\b(?:phase|step|task) \d+(?:\.\d+)*\b"
                    r"|^(?:it'?s good|great|good|ok|okay|thanks|nice|perfect|yes|no)\W*$")


# Not a rule: a thought the person is unsure of, a request for the task ("can we add ..."), a judgement
# left to the agent. DOUBT_OR_REQUEST is shared with the cue-word scorer's hedges (distill._HEDGE).
DOUBT_OR_REQUEST = (r"\b(?:maybe|perhaps|not sure|wondering|i guess|i think|i'?m thinking|im thinking|i imagine|idk)\b"
                    r"|\b(?:can|could|would) (?:you|we)\b|\b(?:looks|seems) like\b")
_UNSURE = re.compile(DOUBT_OR_REQUEST + r"|\bi thought\b|\buse your (?:own )?judge?ment\b|\bas of now\b")


def _person_sentences(body: str) -> list[str]:
    body = _FENCE.sub("\n", body)
    out = []
    for line in body.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line or _SKIP_LINE.match(line):
            continue
        for s in re.split(r"(?<=[.!?;])(?<!i\.e\.)(?<!e\.g\.)\s+|,\s+(?=(?:also|however|but|and) )", line):
            s = s.strip(" .")
            if len(s) >= 16 and len(s.split()) >= 3:
                out.append(s)
    return out


# ------------------------------------------------------------------------- person choices
_PICK = re.compile(
    r"^\s*(?:(?:yes|ok|okay|sure)\W+)?"
    r"(?:i (?:really )?(?:like|prefer|pick|choose|want)|let'?s (?:go with|do|take)|go with|(?:we'?ll )?take|choose|pick)\s+"
    r"(?:the\s+)?(?:option|approach|variant|choice|plan)?\s*#?\s*([A-Za-z0-9]{1,2})\b"
    # "Option 1.", "yes, option a, but ...", "option B please": the pick first, more may follow
    r"|^\s*(?:(?:yes|ok|okay|sure)\W+)?(?:option|approach)\s+#?([A-Za-z0-9]{1,2})\b(?=\s*(?:[.!,;:]|please\b|$))"
    r"|^\s*([A-Za-z]|[1-9])\s*[.!]?\s*$",  # the label alone: "A", "2"
    re.I,
)


def person_choices(turns: list[tuple[str, str]]) -> list[tuple[float, str, str, int]]:
    """The person's pick of an option the agent just offered, in the option's words."""
    out = []
    for n, (role, body) in enumerate(turns):
        if role != "user" or n == 0 or len(body) > 200:
            continue
        m = _PICK.match(body.strip())
        if not m:
            continue
        label = (m.group(1) or m.group(2) or m.group(3) or "").upper()
        offered = _last_assistant(turns, n)
        if m.group(3) and not (offered and _OFFERED.search(offered)):
            continue  # a bare "2" after a list of next steps is an order, not a choice
        text = _option_text(offered, label) if offered else None
        if text and not code_only(text) and not _LOCAL.search(text.lower()) and not _HOW_TO_WORK.search(text):
            out.append((3.0, "decision", f"Chose Option {label}: {text}", n))
    return out


# An option for how or where the work at hand is done ("Subagent-Driven (this session)", "a drive-by
# fix in this PR" (_LOCAL), "then I can push the rock"): a choice for the session, not one to remember.
_HOW_TO_WORK = re.compile(r"\bthis session\b|\bsubagent-driven\b|\bparallel session\b|\bimplement the plan\b|\bdrive-by\b"
                          r"|\bthen i (?:can|will)\b|\bthen i'll\b", re.I)

# The agent's reply offers options (not a list of next steps to pick from).
_OFFERED = re.compile(r"\b(?:options?|approach(?:es)?|alternatives?|variants?)\b|\bwhich (?:one|do you prefer|would you prefer)\b"
                      r"|\bwhat would you prefer\b", re.I)


def _last_assistant(turns, n):
    """What the agent said since the person's previous turn (its messages joined: the options are
    often in an earlier message than the question or the sources list that ends the reply)."""
    said = []
    for role, body in reversed(turns[:n]):
        if role == "user":
            break
        if role == "assistant":
            said.append(body)
    return "\n".join(reversed(said)) or None


def _option_text(body: str, label: str) -> str | None:
    # The label as a list item's: "Option B: ...", "**2.** ...", "(a) ...", "A) ..."; never the first
    # letter of a word ("Perfect!") nor a number that starts a sentence ("6 conversations").
    lab = re.escape(label)
    rx = re.compile(rf"^\s*(?:[-*#]+\s*)?(?:\*\*)?\s*(?:(?:option|approach|variant)\s+\(?{lab}\)?(?![\w])|\(?{lab}[).:\]])"
                    rf"(?:\*\*)?\s*[:.)\-–—]?\s*(.+)$", re.I)
    lines = body.splitlines()
    for k in range(len(lines) - 1, -1, -1):  # the list nearest the question
        m = rx.match(lines[k])
        if not m:
            continue
        text = _EMPH.sub("", m.group(1)).strip(" :-–—")
        if text.endswith("?"):
            return None  # the nearest list asks what to do next: a task, not options
        if len(text.split()) < 2:
            continue
        # A heading option ("**Option A: Use pymodbus**") says what it is on the lines below it.
        for more in lines[k + 1:]:
            more = more.strip()
            if not more or more.startswith("```") or _OPTION_START.match(more) or len(text) >= 200:
                break
            more = _EMPH.sub("", _BULLET.sub("", more)).strip()
            if more and not _SKIP_LINE.match(more):
                text = f"{text.rstrip('.')}; {more}" if not text.endswith((":", ";")) else f"{text} {more}"
        return text[:300]
    return None


_OPTION_START = re.compile(r"^(?:[-*#]+\s*)?(?:\*\*)?\s*(?:(?:option|approach|variant)\b|\(?[A-Za-z0-9][).:\]]\s)", re.I)
