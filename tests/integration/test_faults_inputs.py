"""Bad input, generated: every parser either reads a file or rejects it with a BrainError (never another
exception), and no name, key, profile, tag or transcript field makes Aida write outside the brain."""

from __future__ import annotations

import json
import os
import string
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain_core.errors import BrainError

SETTINGS = settings(max_examples=150, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# -- what bad files look like ------------------------------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True) | st.text(max_size=40)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=5), max_leaves=20)
# field names the parsers look for, so random objects reach past the first check
VOCAB = ("id type key profile tags body source created confidence provenance expires supersedes extra title "
         "terms name aliases recall recency time_sensitive live message content role text parentUuid uuid "
         "sessionId timestamp cwd payload isMeta isSidechain logicalParentUuid toolUseResult tool_use_id "
         "summary customTitle aiTitle input output call_id arguments messages $set $rewindTo toolCalls "
         "result displayName parts functionResponse thoughts startTime lastUpdated projectHash kind "
         "bm25_weight vector_weight fusion rrf_k date_boost source_weight brain identity").split()
known_values = (scalars | st.sampled_from(["user", "assistant", "system", "fact", "note", "event", "lesson",
                                           "session_meta", "response_item", "event_msg", "turn_context",
                                           "message", "function_call", "function_call_output", "gemini", "tool_use",
                                           "tool_result", "text", "user_message", "agent_message", "me",
                                           "20260101-000000000-abcdef", "2026-01-01T00:00:00Z", "a-key"]))
shaped = st.recursive(known_values, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.sampled_from(VOCAB), inner, max_size=8), max_leaves=30)
objects = st.dictionaries(st.sampled_from(VOCAB), shaped, max_size=10)


@st.composite
def json_bytes(draw) -> bytes:
    value = draw(st.one_of(json_values, objects, shaped))
    text = json.dumps(value, allow_nan=True)
    return text.encode("utf-8") if draw(st.booleans()) else text.encode("utf-8")[: draw(st.integers(0, len(text)))]


@st.composite
def jsonl_bytes(draw) -> bytes:
    lines = [json.dumps(v, allow_nan=True) for v in draw(st.lists(st.one_of(objects, shaped), max_size=8))]
    if draw(st.booleans()):
        lines.append(draw(st.text(max_size=30)))  # a torn or foreign line
    return "\n".join(lines).encode("utf-8", "surrogatepass")


@st.composite
def yaml_bytes(draw) -> bytes:
    value = draw(st.one_of(json_values, objects, shaped))
    try:
        text = yaml.safe_dump(value, allow_unicode=True)
    except yaml.YAMLError:
        text = str(value)
    if draw(st.booleans()):
        text += draw(st.text(alphabet=string.printable + "\u00e9\u2028\ufeff", max_size=30))
    return text.encode("utf-8", "surrogatepass")


@st.composite
def front_matter_bytes(draw) -> bytes:
    meta = draw(yaml_bytes()).decode("utf-8", "replace")
    body = draw(st.text(max_size=60))
    close = draw(st.sampled_from(["\n---\n", "\n---", "\n", "\n--- \n", "\r\n---\r\n"]))
    return ("---\n" + meta + close + body).encode("utf-8", "surrogatepass")


anything = st.one_of(st.binary(max_size=600), json_bytes(), jsonl_bytes(), yaml_bytes(), front_matter_bytes())


def reads_or_refuses(fn, *args):
    """Call a parser; a BrainError is a fine answer, anything else fails the test."""
    try:
        return fn(*args)
    except BrainError as e:
        assert str(e).strip(), "a BrainError must say what went wrong"
        return None


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory(prefix="aida-bad-files-") as d:
        yield Path(d)


# -- the parsers -------------------------------------------------------------------------------------------


@SETTINGS
@given(data=anything)
def test_record_parser(data):
    from brain_core.records import Record

    rec = reads_or_refuses(Record.from_bytes, data, "memories/me/x.json")
    if rec is not None:  # what was read is a valid record, written back to the same record
        assert rec.body and rec.type and rec.key and rec.profile and all(isinstance(t, str) for t in rec.tags)
        assert Record.from_bytes(rec.to_json().encode("utf-8"), "memories/me/x.json") == rec


@SETTINGS
@given(data=anything, shelf=st.sampled_from(["memories/me/x.json", "events/me/2026-01/x.json", "lessons/x.json",
                                             "knowledge/page.md"]))
def test_shelf_loader_for_records_and_knowledge_pages(data, shelf):
    from brain_core.store.shelves import load_doc

    doc = reads_or_refuses(load_doc, shelf, data, len(data), 0)
    if doc is not None:
        assert doc.embed_text and doc.text_sha  # what the index needs of it
        assert (doc.path, doc.shelf, doc.size) == (shelf, shelf.split("/", 1)[0], len(data))
        if shelf.endswith(".json"):
            from brain_core.records import Record

            assert doc.record == Record.from_bytes(data, shelf)  # the shelf reads a record as the parser does


@SETTINGS
@given(data=anything)
def test_glossary_parser(data):
    from brain_core.voice.glossary import correct, parse_glossary

    text = data.decode("utf-8", "replace")
    g = reads_or_refuses(parse_glossary, text, "glossary.yaml")
    if g is not None:  # a parsed glossary is names, written back to the same glossary, and usable
        assert all(isinstance(t.name, str) and t.name.strip() for t in g.terms)
        assert parse_glossary(g.to_yaml(), "glossary.yaml") == g
        c = correct("shivon met the team", g)
        assert all(r.name in g.names for r in c.replacements)
        if not c.replacements:
            assert c.text == "shivon met the team"


@SETTINGS
@given(data=anything)
def test_router_yaml(data, scratch):
    from brain_core.answer.router import load_router

    (scratch / "router.yaml").write_bytes(data)
    router = reads_or_refuses(load_router, scratch)
    if router is not None:
        r = router.decide("what did we decide about the retry cap last week?")
        labels = {p.label for group in router.patterns.values() for p in group}
        assert set(r.fired) <= labels and r.mode in ("semantic", "recency")
        assert r.recall == any(f.startswith("recall:") for f in r.fired)


settings_sections = st.dictionaries(
    st.sampled_from(["recall", "embed", "index", "identity", "machine", "llm"]),
    shaped | st.dictionaries(st.sampled_from(["fusion", "bm25_weight", "vector_weight", "rrf_k", "candidates",
                                              "source_weight", "date_boost", "half_life_days", "decay_floor",
                                              "key_weight", "tags_weight"]), known_values, max_size=6),
    max_size=4)


@SETTINGS
@given(data=st.one_of(anything, settings_sections.map(lambda d: yaml.safe_dump(d).encode())))
def test_settings_file(data, scratch):
    from brain_core.config import Config
    from brain_core.recall.hybrid import RecallParams

    (scratch / "config.yaml").write_bytes(data)
    cfg = reads_or_refuses(Config.load, scratch / "config.yaml")
    if cfg is not None:
        assert isinstance(cfg.data, dict)
        params = reads_or_refuses(RecallParams.from_config, cfg)
        if params is not None:  # every value read is a finite number of its field's type, fusion a known one
            import math

            assert params.fusion in ("score", "rrf")
            for f in params.__dataclass_fields__:
                v = getattr(params, f)
                assert f == "fusion" or (type(v) is type(getattr(RecallParams, f)) and math.isfinite(v))


@pytest.mark.parametrize("value", [5, {"path": "x"}, ["a"]])
def test_a_brain_setting_that_is_not_a_path(value, tmp_path):
    from brain_core.config import Config

    with pytest.raises(BrainError, match="must be a folder path"):
        Config(path=tmp_path / "c.yaml", data={"brain": value}).brain_path()


@pytest.mark.parametrize("agent,name", [("claude", "0a1b2c3d.jsonl"),
                                        ("codex", "rollout-2026-01-01T00-00-00-x.jsonl"),
                                        ("codex", "rollout-2026-01-01T00-00-00-x.jsonl.zst"),
                                        ("gemini", "session-2026-01-01T00-00-abcd1234.jsonl"),
                                        ("gemini", "session-2026-01-01T00-00-abcd1234.json")])
def test_agent_transcripts(agent, name, scratch):
    import importlib

    mod = importlib.import_module(f"brain_core.harvest.sources.{agent}")
    folder = scratch / agent / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name

    @SETTINGS
    @given(data=anything)
    def check(data):
        path.write_bytes(data)
        session = reads_or_refuses(mod.parse, path)
        if session is not None:  # what the harvester reads next
            assert session.tool == agent and session.path == path and isinstance(session.id, str)
            assert isinstance(session.transcript(), str)
            assert session.project is None or isinstance(session.project, str)
            assert all(t.role != "tool" for t in session.conversation())

    check()


# -- paths: nothing lands outside the brain ----------------------------------------------------------------------

nasty_parts = st.sampled_from(["..", ".", "", "/", "\\", "\x00", "~", "C:", "/etc/passwd", "../../outside",
                               ".git", ".aida", "memories", "me", "x.json", "%2e%2e", "\u2025", "con", "a" * 300])
nasty = st.lists(nasty_parts | st.text(max_size=12), min_size=1, max_size=6).map("/".join) | st.text(max_size=40)


def _outside_snapshot(base: Path) -> set[str]:
    return {str(p.relative_to(base)) for p in base.rglob("*") if "brain" not in p.relative_to(base).parts[:1]}


@SETTINGS
@given(key=nasty, profile=nasty, tag=nasty, source=nasty)
def test_no_key_profile_tag_or_source_writes_outside(brain, key, profile, tag, source):
    base = brain.root.parent
    before = _outside_snapshot(base)
    try:
        rec = brain.remember("A note that must stay inside the brain.", key=key or None, profile=profile or "me",
                             tags=[tag] if tag else [], source=source)
    except BrainError:
        rec = None
    assert _outside_snapshot(base) == before
    if rec is not None:
        path = brain.root / "memories" / rec.profile / f"{rec.key}.json"
        assert path.resolve().is_relative_to(brain.root.resolve()) and path.exists()


@SETTINGS
@given(rel=nasty)
def test_no_relative_path_writes_or_reads_outside(brain, rel):
    base = brain.root.parent
    before = _outside_snapshot(base)
    for call in (lambda: brain.write_text(rel, "text", "a file"), lambda: brain.read_text(rel),
                 lambda: brain.get(rel), lambda: brain.move([(rel, "archive/x.json")], "move"),
                 lambda: brain.move([("glossary.yaml", rel)], "move")):
        try:
            call()
        except (BrainError, OSError):  # a name the file system itself refuses is not an escape
            pass
    assert _outside_snapshot(base) == before


@pytest.mark.parametrize("link", ["memories/evil", "events/evil", "lessons", "knowledge", "harvest"])
def test_a_symlink_inside_the_brain_never_leads_a_write_out(brain, tmp_path, link):
    from brain_core.errors import InvalidInput

    outside = tmp_path / "outside"
    outside.mkdir()
    target = brain.root / link
    if target.exists():
        target.rename(brain.root / f"{link}.real")
    target.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, target, target_is_directory=True)
    attempts = {
        "memories/evil": lambda: brain.remember("Into the link?", key="k", profile="evil"),
        "events/evil": lambda: brain.remember("Into the link?", type="event", profile="evil"),
        "lessons": lambda: brain.remember("Into the link?", type="lesson"),
        "knowledge": lambda: brain.write_text("knowledge/page.md", "# page\n", "page"),
        "harvest": lambda: brain.write_text("harvest/claude.json", "{}", "watermark"),
    }
    with pytest.raises(InvalidInput):
        attempts[link]()
    assert list(outside.iterdir()) == []


def test_a_symlinked_record_file_is_not_written_through(brain, tmp_path):
    from brain_core.errors import InvalidInput

    outside = tmp_path / "victim.json"
    outside.write_text("precious")
    (brain.root / "memories/me").mkdir(parents=True, exist_ok=True)
    os.symlink(outside, brain.root / "memories/me/trap.json")
    os.symlink(tmp_path / "does-not-exist.json", brain.root / "memories/me/dangling.json")
    for key in ("trap", "dangling"):
        with pytest.raises(InvalidInput):
            brain.remember("Overwrite through a link?", key=key)
    assert outside.read_text() == "precious" and not (tmp_path / "does-not-exist.json").exists()


def test_agent_memory_files_with_hostile_names_stay_inside(brain, tmp_path):
    """The mirror turns the agents' memory files into records: project folder names, file names and
    front matter are the transcript fields that become keys, tags and sources."""
    from brain_core.harvest.run import run_mirror

    claude = tmp_path / "claude"
    hostile = ["-..-..-..-etc", "..", "-tmp-x\x01y", "%2e%2e%2fescape", "a" * 200]
    for i, proj in enumerate(hostile):
        if proj == "..":
            continue
        mem = claude / "projects" / proj / "memory"
        mem.mkdir(parents=True)
        (mem / "MEMORY.md").write_text("- [x](../../../../../outside.md)\n")
        (mem / f"topic-{i}.md").write_text(f"---\nname: ../../../../outside-{i}\ntype: ../../user\n"
                                           f"description: /etc/passwd\n---\nRemember the lighthouse {i}.\n")
    before = _outside_snapshot(tmp_path)
    run_mirror(brain, sources=("claude",), roots={"claude": claude})
    assert _outside_snapshot(tmp_path) == before
    tracked = subprocess_out(brain.root, "git", "ls-files")
    assert all(not p.startswith(("/", "..")) for p in tracked)
    assert any(p.startswith("memories/claude/") for p in tracked)


def subprocess_out(cwd: Path, *cmd: str) -> list[str]:
    import subprocess

    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=True).stdout.splitlines()


@SETTINGS
@given(title=nasty, dropped=nasty, date=st.one_of(st.none(), nasty, st.dates().map(str)))
def test_a_dropped_recording_title_or_date_cannot_name_a_path_outside(brain, title, dropped, date):
    """A recording dropped on the tray becomes meetings/<date>-<slug of its title or file name>.md."""
    from brain_core.store.fsutil import contained
    from brain_core.voice import meeting

    try:
        day = meeting._meeting_date(date, Path(__file__))
    except BrainError:
        return
    for name in (title.strip() or meeting._title_from(Path(dropped.replace("\x00", "") + ".wav")),
                 meeting._title_from(Path(dropped.replace("\x00", "") + ".m4a"))):
        rel = meeting._free_path(brain, meeting.page_path(day, name))
        assert contained(brain.root, rel).resolve().is_relative_to(brain.root.resolve())
        assert rel.count("/") == 1 and rel.startswith("meetings/")
