"""What the person ruled and chose, read offline from the whole session.

The cue-word scorer of :mod:`.distill` keeps the person's sentences that say "always", "never",
"we decided". The person's terse corrections say it otherwise ("it's bad idea, performance is
crucial", "TODO is not acceptable"), and a pick among options the agent offered names no rule at
all ("I like Option C"). This module finds both without a model:

- :func:`person_rules`: the person's short declarative statements that constrain the work
  ("must", "is crucial", "not acceptable", "there is no need", "we don't control"); orders for the
  task at hand ("push to github", "continue until all are done"), reports of what went wrong, and
  pasted material are left out.
- :func:`person_choices`: the person's pick among options the agent offered ("I like Option C",
  "go with 2"), written with the option's own words.
- :func:`not_a_rule`: a person's sentence that reads as a rule but is none, which the cue-word
  scorer leaves out too.

The first two return scored candidates, which :func:`.distill.extractive` ranks, merges and caps.
"""

from __future__ import annotations

import re

from brain_core.harvest.codeish import code_only
from brain_core.harvest.findings import BULLET, EMPH, FENCE, SKIP_LINE

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


QUOTED = re.compile(r"\"[^\"]{1,80}\"|\u201c[^\u201d]{1,80}\u201d")


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
        if any(REPORTED.search(s) for s in said):
            continue  # what the person saw go wrong, and the rest of the turn says more of it
        for s in said:
            low = s.lower().strip()
            if (s.rstrip().endswith("?") or code_only(s) or _ORDER.match(low) or _LOCAL.search(low)
                    or PERSON_STATE.search(low) or _UNSURE.search(low) or not_a_rule(s)):
                continue
            keep.append(s)
            cues += len(_CONSTRAINT.findall(QUOTED.sub('""', s)))  # a quoted phrase names something
        if not cues or not keep:
            continue
        text = ". ".join(keep)
        if len(text) > 500:
            continue
        out.append((2.0 + 0.25 * min(cues, 4), "instruction", text[0].upper() + text[1:] + ".", n))
    return out


# A person's sentence that reads as a rule but is none: a review finding's severity label ("Medium: the
# APIs no longer reject ..."), text a tool wrote to an agent ("... your user's approval"), a tentative
# pick ("I'd go with ..."), a wording for the text at hand ("Just say code of conduct"); and, unless it
# says it holds for good or records a decision, a request for the change at hand in a few words ("The
# file should be untracked.", "They should have borders around them."), an order for a thing just shown
# ("Make them look distinct ..."), a thought left unfinished ("... that are multimodal..."), a reply that
# leans on the agent's last message ("Ah but ...", "in fact, I prefer u dont", "Only when clear and
# useful."). "Well, we decided to ship on Thursday." (a meeting's way of saying it) stays a decision.
_NOT_A_RULE = re.compile(
    r"^(?:\*\*)?(?:high|medium|low|critical|major|minor)(?: severity| priority)?(?:\*\*)?\s*:"
    r"|\byour user(?:'s)?\b|\bi(?:'d| would) go with\b|^just say\b",
    re.I,
)
_SHOULD = re.compile(r"\bshould(?:n't| not)? (?:be|have)\b", re.I)
_FOR_THIS = re.compile(r"^(?:just |please )?(?:make|fix|move|put|change|give|set)\s+(?:it|them|this|that|these|those)\b", re.I)
_ASIDE = re.compile(r"(?:\.\.\.|…)\W*$|^(?:ah|oh|hm+|well|in fact)(?![\w-])|^only (?:when|if)\b[^,;]{0,60}$", re.I)
_GENERAL = re.compile(r"\b(?:always|never|every|whenever|all|because|since|so that|otherwise|from now on|going forward"
                      r"|policy|rule|convention|default)\b"
                      r"|\b(?:decided|agreed|settled on|opted (?:to|for)|let'?s go with|we(?:'ll| will) go with)\b", re.I)


def not_a_rule(sentence: str) -> bool:
    """Whether a person's sentence, though worded like one, is no rule to remember (see _NOT_A_RULE)."""
    s = sentence.strip()
    if _NOT_A_RULE.search(s):
        return True
    if _GENERAL.search(s):
        return False  # "Make that the team policy from now on.", "They should always be hidden."
    return bool(_FOR_THIS.match(s) or _ASIDE.search(s)) or (len(s.split()) <= 8 and bool(_SHOULD.search(s)))


# What the person saw go wrong ("it still doesn't work", "the button does not do anything", "I get an
# error"): a report of the present state, not a rule for the work.
REPORTED = re.compile(
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
PERSON_STATE = re.compile(r"^(?:now|currently|right now|at the moment|so far)\b|\bright\W*$|,\s*right\b|\w right,\s"
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
    body = FENCE.sub("\n", body)
    out = []
    for line in body.splitlines():
        line = BULLET.sub("", line).strip()
        if not line or SKIP_LINE.match(line):
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
        text = EMPH.sub("", m.group(1)).strip(" :-–—")
        if text.endswith("?"):
            return None  # the nearest list asks what to do next: a task, not options
        if len(text.split()) < 2:
            continue
        # A heading option ("**Option A: Use pymodbus**") says what it is on the lines below it.
        for more in lines[k + 1:]:
            more = more.strip()
            if not more or more.startswith("```") or _OPTION_START.match(more) or len(text) >= 200:
                break
            more = EMPH.sub("", BULLET.sub("", more)).strip()
            if more and not SKIP_LINE.match(more):
                text = f"{text.rstrip('.')}; {more}" if not text.endswith((":", ";")) else f"{text} {more}"
        return text[:300]
    return None


_OPTION_START = re.compile(r"^(?:[-*#]+\s*)?(?:\*\*)?\s*(?:(?:option|approach|variant)\b|\(?[A-Za-z0-9][).:\]]\s)", re.I)
