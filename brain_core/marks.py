"""The marks Aida itself puts on a record (a plain module: the session-start hook reads them and must
start fast).

A record the offline distiller wrote (harvest with no model) is sentences lifted from a session that no
model and no person has read as a memory. It is trusted less: its ``confidence`` is
:data:`OFFLINE_CONFIDENCE`, which the nightly pass weighs, and the tag :data:`OFFLINE_TAG` says so where
the confidence is not kept (the card catalog, an agent's hit, INDEX.md's order, the session-start
block). ``aida brain confirm`` takes both off; ``aida brain backfill --relearn`` reads the session again
with a model and replaces the record.
"""

OFFLINE_TAG = "harvest:offline"
OFFLINE_CONFIDENCE = 0.5
# A model's record that names what its session never says (harvest/grounded.py) carries the names under
# this field of its ``extra`` to the write path, which holds it in quarantine/ (brain/quarantine.py).
UNSAID = "unsaid"


def unchecked(rec) -> bool:
    """Whether ``rec`` (a record) carries the offline distiller's mark."""
    return OFFLINE_TAG in rec.tags


def check(rec) -> None:
    """Take the offline distiller's marks off ``rec``, in place: a person confirmed it, or a model
    wrote the same thing."""
    rec.tags = [t for t in rec.tags if t != OFFLINE_TAG]
    rec.confidence = 1
