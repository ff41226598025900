"""``aida mcp``: the brain as an MCP server over stdio, for coding agents.

Four tools: ``recall`` (hybrid search, best first), ``remember`` (the brain's one write path:
redacted, superseding by key, committed), ``recent`` (newest records first) and ``forget``
(archive a wrong record, with a reason: :mod:`brain_core.lifecycle.forget`). The server
speaks on stdout, so nothing else may print there; errors reach the agent as tool errors with
the brain's one-sentence message.

The ``mcp`` package is imported here only when the server starts (2.x names the server class
``MCPServer``; 1.x called it ``FastMCP``, still accepted).
"""


import threading
from pathlib import Path

from brain_core.errors import BrainError, InvalidInput, MissingDependency

INSTRUCTIONS = (
    "Aida is the user's long-term memory, shared by all their coding agents and meetings. "
    "Call recall before answering questions about past decisions, conventions or preferences; "
    "call remember when the user states a durable decision, rule or preference (with its reason)."
)
RECORD_TYPES = ("fact", "instruction", "preference", "decision", "note")
# MCP client names -> the profile a record written through them gets.
CLIENT_PROFILES = {"claude-code": "claude", "claude": "claude", "codex": "codex", "codex-mcp-client": "codex",
                   "gemini-cli": "gemini", "gemini": "gemini"}


def _sdk():
    """(server class, Context class, ToolError) from whichever ``mcp`` major is installed."""
    try:
        from mcp.server.mcpserver import Context, MCPServer
        from mcp.server.mcpserver.exceptions import ToolError

        return MCPServer, Context, ToolError
    except ImportError:
        pass
    try:
        from mcp.server.fastmcp import Context, FastMCP
        from mcp.server.fastmcp.exceptions import ToolError

        return FastMCP, Context, ToolError
    except ImportError:
        raise MissingDependency("The MCP server needs the `mcp` package; install it with `pip install mcp`.") from None


class BrainTools:
    """The tools' behaviour, apart from the protocol (so it can be called directly too). One lock:
    the MCP runtime calls sync tools from worker threads, and the brain's catalog connection is
    shared."""

    def __init__(self, brain) -> None:
        self.brain = brain
        self._lock = threading.Lock()

    def recall(self, query: str, k: int = 5, profile: str | None = None, type: str | None = None,
               tag: str | None = None, depth: str = "abstract", include_unrelated: bool = False,
               project: str | None = None) -> list[dict]:
        """Hits with their ``confidence``; ``none`` ones (not about the query: an agent handed one
        acts on it) only with ``include_unrelated``. Near-duplicates come as one hit with ``also``.
        ``project``: that project's records are lifted (``recall.project_boost``), never filtered."""
        from brain_core.brain.dedupe import collapse_hits

        k = max(1, min(int(k), 50))
        depth = _depth(depth)
        with self._lock:
            hits = self.brain.recall(query, k=k, profile=profile or None, type=type or None, tag=tag or None,
                                     project=project or "")
            if not include_unrelated:
                hits = [h for h in hits if h.confidence != "none"]
            hits = collapse_hits(hits, self.brain.index)
            from brain_core.brain.conflicts import mark_hits

            hits = mark_hits(hits, self.brain)  # records that disagree: both, the standing one first
        return [h.to_json(depth=depth) for h in hits]

    def recent(self, k: int = 10, profile: str | None = None, type: str | None = None,
               tag: str | None = None, depth: str = "abstract") -> list[dict]:
        k = max(1, min(int(k), 50))
        depth = _depth(depth)
        with self._lock:
            hits = self.brain.recall("", k=k, profile=profile or None, type=type or None, tag=tag or None, recent=True)
        return [h.to_json(depth=depth) for h in hits]

    def remember(self, body: str, type: str = "fact", key: str | None = None, tags: list[str] | None = None,
                 profile: str = "agent", source: str = "") -> dict:
        with self._lock:
            rec = self.brain.remember(body, type=type, key=key or None, profile=profile, tags=tags or (),
                                      source=source or "mcp")
        q = rec.extra.get("quarantine")
        if isinstance(q, dict):  # a standing order (guard.py): held for the user, served to no one
            return {"id": rec.id, "key": rec.key, "type": rec.type, "profile": rec.profile,
                    "path": f"quarantine/{rec.profile}/{rec.key}.json", "quarantined": True,
                    "why": f"Held for the user's review, not remembered: {q['why']} ({q['category']}).",
                    "body": rec.body}
        return {"id": rec.id, "key": rec.key, "type": rec.type, "profile": rec.profile,
                "path": f"memories/{rec.profile}/{rec.key}.json", "supersedes": rec.supersedes, "body": rec.body}


    def forget(self, key: str, reason: str = "", by: str = "mcp") -> dict:
        """Archive a wrong or stale record (nothing is deleted; ``aida brain restore`` undoes it)."""
        from brain_core.lifecycle.forget import forget

        with self._lock:
            moved = forget(self.brain, key, reason=reason, by=by)
        return moved.to_json()


def _depth(depth) -> str:
    from brain_core.text.abstract import DEPTHS

    depth = depth or "abstract"
    if depth not in DEPTHS:
        raise InvalidInput(f"depth is 'abstract' (a long record's ~100-token summary) or 'full', not {depth!r}.")
    return depth


def build_server(brain):
    """An MCP server exposing :class:`BrainTools` over ``brain``."""
    Server, Context, ToolError = _sdk()
    tools = BrainTools(brain)
    from brain_core import __version__

    try:
        server = Server("aida", instructions=INSTRUCTIONS, version=__version__)
    except TypeError:  # 1.x takes no version: its low-level server carries it
        server = Server("aida", instructions=INSTRUCTIONS)
        if getattr(server, "_mcp_server", None) is not None:
            server._mcp_server.version = __version__

    def guarded(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BrainError as e:
            raise ToolError(str(e)) from None
        except Exception as e:  # noqa: BLE001 - a full disk or a read-only brain: one sentence, not a trace
            from brain_core.catalog.diskfail import explain, low_level_errors

            if not isinstance(e, low_level_errors()):
                raise
            raise ToolError(str(explain(e, brain.root, "The brain's files"))) from None

    @server.tool(description="Search the user's memory (decisions, rules, preferences, facts), best match first. "
                             "Each hit has a confidence: strong (it answers the query), weak (only the closest "
                             "there is; say so if you use it). A hit tagged harvest:offline is sentences lifted from "
                             "a past session without a model (unchecked): verify it before relying on it. "
                             "Unrelated records are left out unless "
                             "include_unrelated is true; an empty list means the memory has nothing on it. "
                             "Filters: profile (claude, codex, gemini, meeting, me), type, tag (e.g. project:billing). "
                             "A long record comes as its ~100-token abstract (depth 'abstract'); depth 'full' gives "
                             "whole bodies. The records of the project you work in (from your roots, else the "
                             "server's folder) come first when they match; project names another, all_projects "
                             "ranks every project alike.")
    async def recall(query: str, ctx: Context, k: int = 5, profile: str | None = None, type: str | None = None,
                     tag: str | None = None, depth: str = "abstract", include_unrelated: bool = False,
                     project: str | None = None, all_projects: bool = False) -> list[dict]:
        import anyio

        from brain_core.harvest.projects import clean_project

        if all_projects:
            where = None
        elif project:
            where = guarded(clean_project, project)
        else:
            where = await client_project(ctx)
        return await anyio.to_thread.run_sync(lambda: guarded(
            tools.recall, query, k=k, profile=profile, type=type, tag=tag, depth=depth,
            include_unrelated=include_unrelated, project=where))

    @server.tool(description="Write a durable memory: a decision with its reason, a rule, a preference or a fact. "
                             "The same key replaces the earlier record. Secrets are masked before writing.")
    def remember(body: str, ctx: Context, type: str = "fact", key: str | None = None,
                 tags: list[str] | None = None, source: str = "") -> dict:
        if type not in RECORD_TYPES:
            raise ToolError(f"type must be one of {', '.join(RECORD_TYPES)}.")
        return guarded(tools.remember, body, type=type, key=key, tags=tags, profile=_profile(ctx), source=source)

    @server.tool(description="The newest memories first, optionally filtered by profile, type or tag "
                             "(depth: 'abstract' by default, or 'full').")
    def recent(k: int = 10, profile: str | None = None, type: str | None = None, tag: str | None = None,
               depth: str = "abstract") -> list[dict]:
        return guarded(tools.recent, k=k, profile=profile, type=type, tag=tag, depth=depth)

    @server.tool(description="Forget a memory that is wrong or stale: it is archived (never deleted) with the "
                             "reason, and recall no longer returns it. key is the record's key (or its path) from "
                             "a recall hit; say why in reason. Writing the right version with remember and the "
                             "same key afterwards records it as a correction.")
    def forget(key: str, ctx: Context, reason: str = "") -> dict:
        return guarded(tools.forget, key, reason=reason, by=f"mcp:{_profile(ctx)}")

    return server


async def client_project(ctx) -> str | None:
    """The project the client works in: its first ``file://`` root that names one (when the client
    offers roots), else the server's working folder (agents start it in the project)."""
    import os
    from urllib.parse import unquote, urlparse

    from brain_core.harvest.projects import project_of

    session = getattr(ctx, "session", None) or getattr(getattr(ctx, "request_context", None), "session", None)
    params = getattr(session, "client_params", None)
    caps = getattr(params, "capabilities", None)
    if session is not None and getattr(caps, "roots", None) is not None:
        try:
            import warnings

            with warnings.catch_warnings():  # roots are deprecated in newer specs, still what clients send
                warnings.simplefilter("ignore")
                listed = await session.list_roots()
            for root in listed.roots:
                uri = urlparse(str(root.uri))
                if uri.scheme == "file":
                    name = project_of(unquote(uri.path))
                    if name:
                        return name
        except Exception:  # noqa: BLE001 - a client that fails to list its roots: fall back to the folder
            pass
    try:
        return project_of(os.getcwd())
    except OSError:
        return None


def _profile(ctx) -> str:
    """The calling agent's profile, from the client name it sent at initialisation (``agent``
    when it sent none this server knows)."""
    session = getattr(getattr(ctx, "request_context", None), "session", None)
    params = getattr(session, "client_params", None)
    info = getattr(params, "client_info", None) or getattr(params, "clientInfo", None)
    name = str(getattr(info, "name", "") or "")
    return CLIENT_PROFILES.get(name.lower(), "agent")


def serve(brain_path: Path, config=None) -> None:
    """Open the brain and serve until the client closes stdin."""
    from brain_core.brain import Brain

    brain = Brain.open(brain_path, config=config)
    try:
        build_server(brain).run()
    finally:
        brain.close()
