"""The record format on its own: keys from text, times, tags, parsing with named errors, the file's bytes."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest

from brain_core.errors import InvalidInput, MalformedRecord
from brain_core.records import (
    ID_RE,
    MAX_BODY_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    Record,
    clean_tags,
    new_id,
    parse_time,
    validate_new,
)
from brain_core.text.slug import slugify

GOOD = {"id": "20260822-194402117-c81e2f", "type": "fact", "key": "retry-cap", "profile": "me", "body": "Six."}


@pytest.mark.parametrize("text, slug", [
    ("The retry cap is six attempts.", "retry-cap-six-attempts"),
    ("Crème brûlée at Café Zoë", "creme-brulee-cafe-zoe"),
    ("the and of", "the-and-of"),  # only stop words: kept rather than nothing
    ("!!!", "note"),
    ("one two three four five six seven eight", "one-two-three-four-five-six"),
    ("a" * 70, "a" * 60),
    ("x " + "b" * 59 + " c", "x-" + "b" * 58),  # cut at 60, no trailing hyphen
])
def test_slugify(text, slug):
    assert slugify(text) == slug


def test_slugify_limits_are_arguments():
    assert slugify("one two three", max_words=2) == "one-two"
    assert slugify("abcdef ghij", max_len=7) == "abcdef"


@pytest.mark.parametrize("value, expected", [
    ("2026-08-22T19:44:02Z", datetime(2026, 8, 22, 19, 44, 2, tzinfo=timezone.utc)),
    (" 2026-08-22T21:44:02+02:00 ", datetime(2026, 8, 22, 19, 44, 2, tzinfo=timezone.utc)),
    ("2026-08-22", datetime(2026, 8, 22, tzinfo=timezone.utc)),
    ("2026-08-22T19:44:02", datetime(2026, 8, 22, 19, 44, 2, tzinfo=timezone.utc)),  # naive means UTC
    ("yesterday", None), ("", None), (None, None), (20260822, None),
])
def test_parse_time(value, expected):
    got = parse_time(value)
    assert got == expected
    if got is not None:
        assert got.utcoffset().total_seconds() == 0


def test_new_id_is_time_ordered_and_unique():
    when = datetime(2026, 8, 22, 19, 44, 2, 1000, tzinfo=timezone.utc)
    a, b = new_id(when), new_id(when)
    assert a[:19] == b[:19] == "20260822-194402001-" and a != b
    assert ID_RE.match(a) and ID_RE.match(new_id())


@pytest.mark.parametrize("tags, expected", [
    (None, []), ([], []), ("ops, infra,ops", ["ops", "infra"]), ([" a ", "", "  ", "a", "b\x00c"], ["a", "bc"]),
    (("x",), ["x"]), (["t" * MAX_TAG_CHARS], ["t" * MAX_TAG_CHARS]),
    ([f"t{i}" for i in range(MAX_TAGS)], [f"t{i}" for i in range(MAX_TAGS)]),
])
def test_clean_tags(tags, expected):
    assert clean_tags(tags) == expected


@pytest.mark.parametrize("tags, message", [
    (5, "Tags must be a list of strings."), ({"a": 1}, "Tags must be a list of strings."),
    (["a", 3], "Tags must be a list of strings."),
    (["t" * (MAX_TAG_CHARS + 1)], f"The tag 'tttttttttttttttttttt'... is longer than {MAX_TAG_CHARS} characters."),
    ([f"t{i}" for i in range(MAX_TAGS + 1)], f"A record takes at most {MAX_TAGS} tags."),
])
def test_bad_tags_are_refused_by_name(tags, message):
    with pytest.raises(InvalidInput) as e:
        clean_tags(tags)
    assert str(e.value) == message


def test_a_record_file_is_sorted_json_with_a_newline_and_keeps_unknown_fields():
    rec = Record.from_dict({**GOOD, "tags": ["a"], "source": "s", "created": "2026-08-22T19:44:02Z",
                            "confidence": 0.5, "provenance": ["p1"], "expires": "2027-01-01", "supersedes": "old",
                            "mood": "sunny", "n": 3}, "memories/me/retry-cap.json")
    assert rec.extra == {"mood": "sunny", "n": 3}
    text = rec.to_json()
    assert text.endswith("}\n") and text.startswith('{\n  "body": "Six.",')
    d = json.loads(text)
    assert list(d) == sorted(d)
    assert d == {**GOOD, "tags": ["a"], "source": "s", "created": "2026-08-22T19:44:02Z", "confidence": 0.5,
                 "provenance": ["p1"], "expires": "2027-01-01", "supersedes": "old", "mood": "sunny", "n": 3}
    assert Record.from_bytes(text.encode(), "x.json") == rec
    assert rec.created_dt == datetime(2026, 8, 22, 19, 44, 2, tzinfo=timezone.utc)


def test_a_minimal_record_gets_the_defaults():
    rec = Record.from_dict(dict(GOOD))
    assert (rec.tags, rec.source, rec.created, rec.confidence, rec.provenance, rec.expires, rec.supersedes, rec.extra) \
        == ([], "", "", 1, [], None, None, {})
    d = rec.to_dict()
    assert "supersedes" not in d and d["expires"] is None
    assert json.loads("\u00e9" and Record.from_dict({**GOOD, "body": "café"}).to_json())["body"] == "café"
    assert "café" in Record.from_dict({**GOOD, "body": "café"}).to_json()  # UTF-8 kept, not escaped


@pytest.mark.parametrize("change, message", [
    ("[]", "not a JSON object"),
    ({"id": None}, "missing field(s): id"),
    ({"id": None, "body": None}, "missing field(s): id, body"),
    ({"key": 5}, "field 'key' is not a string"),
    ({"type": "opinion"}, "unknown type 'opinion' (one of fact, instruction, preference, decision, event, lesson, note, task)"),
    ({"key": "Retry Cap"}, "key 'Retry Cap' is not a kebab-case slug"),
    ({"key": "-retry"}, "key '-retry' is not a kebab-case slug"),
    ({"key": "k" * 81}, "key 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk' is not a kebab-case slug"),
    ({"profile": "Me"}, "profile 'Me' is not a simple name"),
    ({"profile": "p" * 41}, "profile 'pppppppppppppppppppppppppppppppppppppppp' is not a simple name"),
    ({"body": "x" * (MAX_BODY_CHARS + 1)}, f"body has {MAX_BODY_CHARS + 1} characters (limit {MAX_BODY_CHARS})"),
    ({"tags": [1]}, "Tags must be a list of strings."),
    ({"provenance": "p1"}, "provenance is not a list of ids"),
    ({"provenance": ["p1", 2]}, "provenance is not a list of ids"),
    ({"source": 1}, "field 'source' is not a string"),
    ({"created": 1}, "field 'created' is not a string"),
    ({"expires": []}, "field 'expires' is not a string"),
    ({"supersedes": 7}, "field 'supersedes' is not a string"),
    ({"confidence": "high"}, "confidence is not a number"),
    ({"confidence": True}, "confidence is not a number"),
])
def test_malformed_records_say_what_is_wrong(change, message):
    if change == "[]":
        data = []
    else:
        data = {**GOOD, **change}
        data = {k: v for k, v in data.items() if not (k in change and change[k] is None and k in GOOD)}
    with pytest.raises(MalformedRecord) as e:
        Record.from_dict(data, "memories/me/x.json")
    if "kebab-case" in message or "simple name" in message:
        assert str(e.value) == f"memories/me/x.json: {message}"
    else:
        assert (e.value.path, e.value.reason) == ("memories/me/x.json", message)


def test_a_record_without_a_path_is_named_as_such():
    with pytest.raises(MalformedRecord) as e:
        Record.from_dict([])
    assert str(e.value) == "<record>: not a JSON object"


def test_edge_values_that_are_allowed():
    assert Record.from_dict({**GOOD, "key": "k" * 80, "profile": "p" * 40, "body": "x" * MAX_BODY_CHARS,
                             "confidence": 0, "source": None, "created": None}).key == "k" * 80
    assert Record.from_dict({**GOOD, "key": "9-lives", "profile": "team_a-1"}).profile == "team_a-1"


@pytest.mark.parametrize("data, message", [
    (b"\xff\xfe", "not UTF-8 text"), (b"{", "invalid JSON (Expecting property name enclosed in double quotes)"),
    (b"[" * 100_000, "invalid JSON (too deeply nested)"), (b"[]", "not a JSON object")])
def test_unreadable_bytes(data, message):
    with pytest.raises(MalformedRecord) as e:
        Record.from_bytes(data, "memories/me/x.json")
    assert str(e.value) == f"memories/me/x.json: {message}"


def test_validate_new_cleans_and_refuses():
    assert validate_new("  Six.  ", "fact", None, "me") == ("Six.", "fact", "six")
    assert validate_new("Six.", "note", "", "me") == ("Six.", "note", "six")
    assert validate_new("Six.", "fact", "k" * 80, "p" * 40)[2] == "k" * 80
    assert validate_new("x" * MAX_BODY_CHARS, "fact", "k", "me")[0] == "x" * MAX_BODY_CHARS
    for args, message in [
        (("", "fact", None, "me"), "Nothing to remember: the body is empty."),
        ((None, "fact", None, "me"), "Nothing to remember: the body is empty."),
        (("x" * (MAX_BODY_CHARS + 1), "fact", None, "me"), f"The body has {MAX_BODY_CHARS + 1} characters; a record "
                                                             f"holds at most {MAX_BODY_CHARS} (keep long documents in knowledge/ pages)."),
        (("a\x00b", "fact", None, "me"), "The body contains a NUL byte."),
        (("x", "opinion", None, "me"), "Unknown type 'opinion'; use one of fact, instruction, preference, decision, "
                                       "event, lesson, note, task."),
        (("x", "fact", None, "Me"), "The profile 'Me' is not a simple lowercase name (letters, digits, - and _)."),
        (("x", "fact", None, 5), "The profile 5 is not a simple lowercase name (letters, digits, - and _)."),
        (("x", "fact", "Bad Key", "me"), "The key 'Bad Key' is not a kebab-case slug (lowercase letters, digits and -, "
                                         "at most 80 characters)."),
        (("x", "fact", 7, "me"), "The key 7 is not a kebab-case slug (lowercase letters, digits and -, at most 80 characters)."),
        (("x", "fact", "k" * 81, "me"), "is not a kebab-case slug"),
    ]:
        with pytest.raises(InvalidInput) as e:
            validate_new(*args)
        assert str(e.value) == message or (message.startswith("is not") and message in str(e.value)), str(e.value)
    assert re.fullmatch(r"[a-z0-9-]+", validate_new("Über Straße", "fact", None, "me")[2])


def test_times_are_utc_whatever_the_machine_s_zone(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert parse_time("2026-08-22T19:44:02") == datetime(2026, 8, 22, 19, 44, 2, tzinfo=timezone.utc)
        assert parse_time("2026-08-22T19:44:02Z").utcoffset().total_seconds() == 0
        before = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M")
        made = new_id()[:13]
        after = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M")
        assert made in (before, after)  # the id's clock is UTC, not New York's
    finally:
        monkeypatch.undo()
        time.tzset()


def test_now_is_utc_to_the_second():
    from brain_core.records import now_iso

    before = datetime.now(timezone.utc).replace(microsecond=0)
    stamp = now_iso()
    after = datetime.now(timezone.utc)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp)
    assert before <= parse_time(stamp) <= after
