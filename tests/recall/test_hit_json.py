"""The JSON form of a recall hit (``aida brain recall --json``, the MCP tools): the contract in
docs/DESIGN.md, field by field."""

from __future__ import annotations

from brain_core.recall.hybrid import Hit
from brain_core.records import Record

BASE = {"id": "20260301-090000000-ab12", "key": "deploy-window", "type": "decision", "profile": "me",
        "tags": ["ops"], "path": "memories/me/deploy-window.json", "created": "2026-03-01T09:00:00Z",
        "source": "claude:session:s1"}
LONG = "The deploy window is Tuesday to Thursday. " * 12


def _hit(**kw) -> Hit:
    rec = Record(id=BASE["id"], type=BASE["type"], key=BASE["key"], profile=BASE["profile"], body=kw.pop("body", "Short."),
                 tags=list(BASE["tags"]), source=BASE["source"], created=BASE["created"],
                 expires=kw.pop("expires", None), abstract=kw.pop("abstract", None))
    return Hit(record=rec, path=BASE["path"], score=kw.pop("score", 0.123456789), **kw)


def test_a_plain_hit_has_exactly_the_documented_fields():
    assert _hit().to_json() == {**BASE, "body": "Short.", "score": 0.123457}


def test_depth_abstract_gives_the_abstract_and_says_so_and_full_gives_the_body():
    h = _hit(body=LONG, abstract="Deploys: Tuesday to Thursday.")
    assert h.to_json()["body"] == LONG and "depth" not in h.to_json()
    short = h.to_json("abstract")
    assert short["body"] == "Deploys: Tuesday to Thursday." and short["depth"] == "abstract"
    no_abstract = _hit(body="Short.").to_json("abstract")
    assert no_abstract["body"] == "Short." and no_abstract["depth"] == "full"
    assert _hit(body=LONG, abstract="A.").to_json("full") == {**BASE, "body": LONG, "score": 0.123457}


def test_expiry_explain_also_and_confidence_appear_only_when_there():
    h = _hit(expires="2026-04-01T00:00:00Z", stale=True, explain={"bm25": None}, also=[{"key": "dup"}],
             confidence="weak")
    out = h.to_json()
    assert out == {**BASE, "body": "Short.", "score": 0.123457, "expires": "2026-04-01T00:00:00Z", "stale": True,
                   "explain": {"bm25": None}, "also": [{"key": "dup"}], "confidence": "weak"}
    fresh = _hit(expires="2027-01-01T00:00:00Z").to_json()
    assert fresh["stale"] is False and "confidence" not in fresh and "also" not in fresh and "explain" not in fresh
