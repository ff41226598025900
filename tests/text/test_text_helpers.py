"""brain_core keeps its lists of ignored words and its slugs in text/ (text/stopwords.py, text/slug.py),
so two modules cannot drift apart on what a stop word or a project tag is. This test fails on a word
list named like a stop list defined anywhere else, and checks the helpers that replaced the copies."""

from __future__ import annotations

import ast
from pathlib import Path

from brain_core.records import origin
from brain_core.text.slug import kebab, project_tag, slugify
from brain_core.text.stopwords import ANSWER_STOP, FUNCTION_WORDS, KEY_FILLER, SUMMARY_STOP
from tests.helpers.paths import REPO

PKG = REPO / "brain_core"
# gitleaks' rules carry a list of their own named STOPWORDS (vendored, not English words).
ALLOWED = {"redact/gitleaks.py", "redact/vendor.py"}


def _stop_lists(path: Path) -> list[str]:
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Name) and "STOP" in t.id.upper():
                found.append(f"{t.id} (line {node.lineno})")
    return found


def test_stop_lists_live_in_text():
    outside = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).as_posix()
        if rel.startswith("text/") or rel in ALLOWED:
            continue
        names = _stop_lists(path)
        if names:
            outside[rel] = names
    assert not outside, f"stop-word lists outside brain_core/text/: {outside}"


def test_the_lists_are_views_of_one_base():
    # The key filler is a subset of the function words (keys keep every other word).
    assert KEY_FILLER < FUNCTION_WORDS
    # The offline answer ignores the words of asking Aida to keep something, and keeps "also".
    assert {"note", "save", "please", "remember"} <= ANSWER_STOP and "also" not in ANSWER_STOP
    assert {"may", "must"} <= SUMMARY_STOP and "because" not in SUMMARY_STOP


def test_slugs():
    assert slugify("Use Redis for the session cache") == "use-redis-session-cache"
    assert kebab("Billing API / v2 --", 40) == "billing-api-v2"
    # A cut that lands on a dash leaves none at the end.
    assert kebab("a" * 39 + " b", 40) == "a" * 39
    assert project_tag("Damage Control") == "project:damage-control"
    assert project_tag("!!!") == "project:unknown"


def test_one_origin_for_answers_and_overview():
    from types import SimpleNamespace

    from brain_core.answer.offline import origin as answer_origin
    from brain_core.lifecycle.overview import origin as overview_origin

    rec = SimpleNamespace(source="gemini:session:abc", created="2026-11-02T10:00:00Z", profile="gemini")
    assert origin(rec.source, rec.created) == "from a Gemini CLI session on 2026-11-02"
    assert answer_origin(rec) == overview_origin(rec) == origin(rec.source, rec.created)
    memory = SimpleNamespace(source="claude:memory:~/.claude/CLAUDE.md", created="2026-11-02", profile="claude")
    assert answer_origin(memory) == overview_origin(memory) == "from a Claude Code memory file"
    by_hand = SimpleNamespace(source="cli", created="2026-11-02", profile="me")
    assert answer_origin(by_hand) == "" and overview_origin(by_hand) == "from you on 2026-11-02"


def test_sentence_splitters_live_in_text():
    # A sentence end written as a look-behind on . ! ? is a sentence splitter: text/sentences.py has them.
    outside = [f"{p.relative_to(PKG).as_posix()}:{i}" for p in PKG.rglob("*.py") if not p.relative_to(PKG).as_posix().startswith("text/")
               for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "(?<=[.!?]" in line or "(?<=[^.]\\." in line]
    assert not outside, f"sentence splitters outside brain_core/text/sentences.py: {outside}"


def test_the_sentence_splitters():
    from brain_core.text.sentences import prose_sentences, reply_sentences, sentences

    assert sentences("Ask Dr. Okafor, e.g. by mail. She knows.\nNext line") == ["Ask Dr. Okafor, e.g. by mail.", "She knows.", "Next line"]
    assert sentences("Totally agree, Mel. Family is everything.") == ["Totally agree, Mel.", "Family is everything."]
    assert prose_sentences("Use v1.2 now. Then deploy.\n- first item\n- second item") == \
        ["Use v1.2 now.", "Then deploy.", "- first item", "- second item"]
    assert [s.strip() for s in reply_sentences("Checking... Found it. Root cause: `fetch` ignores helpers.")] == \
        ["Checking... Found it.", "Root cause:", "`fetch` ignores helpers."]
