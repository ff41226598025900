"""This machine's part in a brain shared between machines: a writer, or a reader that only recalls
(``machine.role``), and its name (``machine.name``)."""

from __future__ import annotations

import re
import socket

from brain_core.errors import BrainError, InvalidInput

ROLES = ("writer", "reader")


def machine_role(config) -> str:
    role = str(config.get("machine.role", "writer") or "writer").strip().lower()
    if role not in ROLES:
        raise InvalidInput(f"machine.role is {role!r}; set it to writer or reader with "
                           "`aida config set machine.role writer`.")
    return role


def require_writer(config, doing: str) -> None:
    """Refuse a write on a reader machine, saying how to do it instead."""
    if machine_role(config) != "writer":
        raise BrainError(f"This machine is a reader (machine.role), so it does not {doing}; run it on the writer, "
                         "or use --dry-run to see the plan here.")


def machine_name(config) -> str:
    raw = str(config.get("machine.name", "") or socket.gethostname() or "machine")
    return re.sub(r"[^A-Za-z0-9-]+", "-", raw).strip("-").lower()[:40] or "machine"
