"""Several quiet sessions in one model call: what an agent-CLI provider's budget is best spent on.

A call to ``claude -p`` costs seconds of start-up and a share of the user's plan, whatever its
size, and most sessions are short. :func:`groups` packs sessions (in their order) into groups of
at most ``limit`` characters; :func:`distill_batch` sends one group as numbered transcripts and
asks for ``{"sessions": {"S1": {"records": [...]}, ...}}``. Each session's part passes the same
strict schema as a single call (:func:`.model_answer.validate`) and the same checks after it; an
answer that does not is a :class:`ProviderError` for the whole group, which the sweep then
retries session by session.
"""

from __future__ import annotations

import json

from brain_core.errors import ProviderError
from brain_core.harvest.grounded import mark
from brain_core.harvest.model_answer import SYSTEM_PROMPT, header, records_from, validate
from brain_core.harvest.privacy import identity, mask

BATCH_PROMPT = SYSTEM_PROMPT + """

This time the input holds several transcripts, each under its own heading "=== S1 ===", "=== S2 ===" and so on; they are separate sessions, and a record comes from one of them only.
Answer with one JSON object of exactly this shape, one entry per transcript, even when its list is empty:
{"sessions": {"S1": {"records": [...]}, "S2": {"records": [...]}}}"""


def groups(sizes: list[int], limit: int) -> list[list[int]]:
    """Indexes of ``sizes`` packed in order into groups of at most ``limit`` characters (a session
    larger than ``limit`` goes alone)."""
    out: list[list[int]] = []
    used = 0
    for i, n in enumerate(sizes):
        if out and limit > 0 and used + n <= limit and len(out[-1]) < 8:
            out[-1].append(i)
            used += n
        else:
            out.append([i])
            used = n
    return out


def distill_batch(items: list[tuple[str, dict]], llm, *, profile: str, sources: list[str],
                  refused: list[list[str]] | None = None) -> list[list[dict]]:
    """Records per session for ``items`` (text, context), in one call."""
    parts = []
    for n, (text, context) in enumerate(items, 1):
        parts.append("\n".join([f"=== S{n} ===", *header(context), "", "Transcript:", text]))
    user = "\n\n".join(parts)
    names, hosts = identity(user, cwd="\n".join(str(c.get("cwd") or "") for _, c in items))
    user = mask(user, names=names, hosts=hosts)
    answer = llm.complete(BATCH_PROMPT, user, json=True, max_tokens=400 + 600 * len(items))
    try:
        data = json.loads(answer)
    except (TypeError, ValueError):
        raise ProviderError("The model's batched distillation was not JSON; the sessions are read one by one.") from None
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, dict) or set(sessions) != {f"S{n}" for n in range(1, len(items) + 1)}:
        raise ProviderError("The model's batched distillation did not answer for each session; "
                            "the sessions are read one by one.")
    out: list[list[dict]] = []
    for n, ((_, context), source) in enumerate(zip(items, sources), 1):
        part = sessions[f"S{n}"]
        found = validate(json.dumps(part if isinstance(part, dict) else {"records": part}))
        records = records_from(found, context, profile=profile, source=source, names=names, hosts=hosts,
                               refused=refused[n - 1] if refused is not None else None)
        out.append(mark(records, mask(parts[n - 1], names=names, hosts=hosts)))  # what it says of this session
    return out
