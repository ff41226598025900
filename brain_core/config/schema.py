"""Every setting Aida reads, declared once: its type, default, allowed values and what it does.

``aida config get | list | set``, ``aida doctor``, the check made when the settings file is loaded
and the README's settings table are all built from :data:`SETTINGS`. Code keeps reading values
with ``config.get("dotted.key", default)``; a test walks ``brain_core/`` and ``app/`` and fails
when a key read there is not declared here, or when a literal default there disagrees with this
table, so the two cannot drift apart.

A value is checked by :func:`check`, which returns it in its proper type (``"5"`` becomes 5 for an
integer setting) or raises :class:`BadSetting` with one sentence naming the key and the fix.
"""

from __future__ import annotations

import difflib
import functools
import math
from dataclasses import dataclass
from typing import Any, Iterator

from brain_core.errors import InvalidInput
from brain_core.records import RECORD_TYPES

PROVIDERS = ("none", "auto", "claude-code", "codex", "gemini-cli", "openai", "anthropic", "ollama", "llamacpp", "vllm",
             "lmstudio", "openai-compatible")
# Other spellings the provider factory accepts (brain_core/llm/factory.py ALIASES).
PROVIDER_ALIASES = ("openai_compat", "openai-compat", "llama.cpp", "llama-cpp", "claude", "off", "offline",
                    "claude-cli", "claude_code", "gemini", "codex-cli")


class BadSetting(InvalidInput):
    """A setting's name or value was refused; the message names the key and how to fix it."""


@dataclass(frozen=True)
class Setting:
    """One setting. ``kind`` is bool, int, float, str, choice, path, list or map."""

    key: str
    kind: str
    default: Any
    help: str
    choices: tuple = ()
    minimum: float | None = None
    maximum: float | None = None
    nullable: bool = False       # the default is "unset" (code decides); null is always allowed
    keep_numbers: bool = False   # a str setting that may also be a number (a device index)
    extra_choices: tuple = ()    # accepted but not advertised (aliases)
    shown_default: str | None = None  # how the README shows a default that is computed

    def allowed(self) -> str:
        """The allowed values in words, for help and error messages."""
        if self.kind == "choice":
            return " | ".join(self.choices)
        if self.kind in ("int", "float"):
            word = "integer" if self.kind == "int" else "number"
            lo, hi = self.minimum, self.maximum
            if lo is not None and hi is not None:
                return f"{word} {_num(lo)} to {_num(hi)}"
            if lo is not None:
                return f"{word} >= {_num(lo)}"
            return word
        return {"bool": "true | false", "str": "text", "path": "a folder path", "list": "a list",
                "map": "a mapping"}[self.kind]

    def default_text(self) -> str:
        if self.shown_default is not None:
            return self.shown_default
        return show(self.default)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def show(value: Any) -> str:
    """A value as the user would type it back (YAML spelling)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    return str(value)


def _s(key, kind, default, help, **kw) -> Setting:
    return Setting(key, kind, default, help, **kw)


SETTINGS: tuple[Setting, ...] = (
    # -- the brain and who writes it ---------------------------------------------------------------------
    _s("brain", "path", None, "the brain folder ($AIDA_BRAIN and --brain win over it)", nullable=True,
       shown_default="user data folder"),
    _s("identity.name", "str", "Aida", "the name Aida commits under in the brain"),
    _s("identity.email", "str", "aida@brain.invalid", "the e-mail Aida commits under in the brain"),
    _s("machine.role", "choice", "writer", "`reader` never harvests or consolidates (for a second machine)",
       choices=("writer", "reader")),
    _s("machine.name", "str", "", "this machine's name in task counters (empty: the host name)"),
    _s("counters", "map", {"task": {}}, "numbers unique across machines: name -> {field, start}"),
    # -- recall ------------------------------------------------------------------------------------------
    _s("recall.fusion", "choice", "score", "how keyword and meaning matches combine: normalised scores or "
       "reciprocal ranks", choices=("score", "rrf")),
    _s("recall.bm25_weight", "float", 1.0, "weight of the keyword (bm25) stage in fusion", minimum=0),
    _s("recall.vector_weight", "float", 0.5, "weight of the meaning (vector) stage in fusion", minimum=0),
    _s("recall.rrf_k", "int", 60, "the k of reciprocal rank fusion (recall.fusion: rrf)", minimum=1),
    _s("recall.candidates", "int", 200, "how many matches each stage passes to fusion", minimum=1),
    _s("recall.use_lift", "float", 0.1, "the most a record's uses (cited, opened, copied, thumbs-up) lift it "
       "(0: off)", minimum=0),
    _s("recall.source_weight", "float", 0.3, "lift from other matches of the same source (0: off)", minimum=0),
    _s("recall.neighbour_weight", "float", 0.2, "lift for the records written next to a match in its source "
       "(0: off)", minimum=0),
    _s("recall.answer_weight", "float", 0.5, "lift for the record right after a match that asks, its answer "
       "(0: off)", minimum=0),
    _s("recall.question_weight", "float", 0.7, "what a record that asks (ends in a question mark) counts "
       "(1: as much as any other)", minimum=0, maximum=1),
    _s("recall.date_boost", "float", 1.0, "lift for records made on a date the question names (0: off)",
       minimum=0),
    _s("recall.kind_boost", "float", 0.4, "lift for records that hold the kind of answer asked for: a time "
       "for 'when', a number for 'how many' (0: off)", minimum=0),
    _s("recall.project_boost", "float", 0.3, "lift for the records of the project you are in (its folder's "
       "project:<name> tag) in CLI recall and ask and over MCP; a lift, never a filter (0: off)", minimum=0),
    _s("recall.half_life_days", "float", 180, "an unused record loses half its weight in this many days "
       "(0: no decay)", minimum=0),
    _s("recall.decay_floor", "float", 0.6, "the least weight decay leaves a record (never hidden)",
       minimum=0, maximum=1),
    _s("recall.key_weight", "float", 1.0, "bm25 weight of a record's key (the body weighs 1)", minimum=0),
    _s("recall.tags_weight", "float", 0.5, "bm25 weight of a record's tags", minimum=0),
    _s("embed.model", "str", "all-MiniLM-L6-v2-int8", "the embedding model (the one that ships with Aida)"),
    _s("embed.threads", "int", 0, "CPU threads for embedding (0: onnxruntime decides)", minimum=0),
    _s("index.backend", "choice", "sqlite", "where the card catalog lives: sqlite (.aida/index.sqlite) or postgres "
       "(index.dsn; docs/POSTGRES.md)", choices=("sqlite", "postgres")),
    _s("index.dsn", "str", "", "the PostgreSQL catalog's libpq connection string, without the password "
       "(PGPASSWORD or `aida config set-key postgres`)"),
    _s("index.brain_id", "str", "", "the brain's name on the catalog server (empty: its first commit)"),
    _s("index.build_memory", "str", "auto", "memory a PostgreSQL rebuild asks the server for while it builds "
       "the search indexes (maintenance_work_mem): auto sizes it to the vector graph, a size like 2GB, or "
       "server (the server's own setting)"),
    _s("index.ef_search", "int", 200, "how many candidates a PostgreSQL catalog's vector search keeps while "
       "it walks the HNSW graph (hnsw.ef_search): more finds the true nearest records more often and takes "
       "longer (docs/POSTGRES.md)", minimum=1, maximum=1000),
    _s("index.catch_up_limit", "int", 64, "files changed behind the index that recall catches up at once; "
       "more start a background rebuild", minimum=0),
    _s("index.vector_cache_mb", "int", 256, "memory a process that recalls more than once may hold the "
       "catalog's vectors in, for exact search in one step (0: always search the file)", minimum=0),
    # -- ask and the LLM ---------------------------------------------------------------------------------
    _s("ask.k", "int", 5, "how many records `aida ask` consults", minimum=1),
    _s("ask.cache", "bool", True, "repeat the answer to a repeated question while the brain is unchanged"),
    _s("ask.lesson_similarity", "float", 0.7, "how close a question must be for a lesson to apply",
       minimum=0, maximum=1),
    _s("ask.runs_keep_days", "float", 30.0, "days run records stay in .aida/runs/", minimum=0),
    _s("llm.provider", "choice", "none", "the LLM that distils and answers (none: offline, extractive)",
       choices=PROVIDERS, extra_choices=PROVIDER_ALIASES),
    _s("llm.model", "str", "", "the model name (empty: the provider's default)"),
    _s("llm.base_url", "str", "", "where the provider's server is (empty: the provider's default)"),
    _s("llm.timeout", "float", 30.0, "seconds per attempt", minimum=0),
    _s("llm.retries", "int", 2, "extra attempts after a failure", minimum=0),
    _s("llm.backoff", "float", 0.5, "first pause between attempts in seconds (doubling)", minimum=0),
    _s("llm.max_tokens_field", "choice", "max_tokens", "the request field for the answer's length "
       "(max_completion_tokens for OpenAI reasoning models)", choices=("max_tokens", "max_completion_tokens")),
    _s("llm.cli.timeout", "float", 180.0, "seconds one call to an agent's CLI (claude-code, codex, gemini-cli) may take",
       minimum=0),
    _s("llm.cli.calls_per_hour", "int", 30, "the most calls to an agent's CLI in an hour (0: no limit)", minimum=0),
    _s("llm.cli.calls_per_day", "int", 200, "the most calls to an agent's CLI in a day (0: no limit)", minimum=0),
    _s("llm.cli.batch_chars", "int", 24000, "quiet sessions are sent to an agent's CLI together up to this many "
       "characters (0: one session per call)", minimum=0),
    _s("llm.cli.executable", "str", "", "the agent's command, if not claude, codex or gemini on PATH"),
    _s("llm.price.input_per_mtok", "float", None, "USD per million input tokens, for the cost in run records",
       minimum=0, nullable=True),
    _s("llm.price.output_per_mtok", "float", None, "USD per million output tokens", minimum=0, nullable=True),
    _s("live.timeout", "float", 8.0, "seconds per request to a live source (weather, news)", minimum=0),
    _s("live.retries", "int", 1, "extra attempts for a live source", minimum=0),
    _s("live.weather.place", "str", "", "where \"the weather\" means when the question names no place"),
    _s("live.weather.latitude", "float", None, "latitude for the weather (instead of a place)",
       minimum=-90, maximum=90, nullable=True),
    _s("live.weather.longitude", "float", None, "longitude for the weather", minimum=-180, maximum=180,
       nullable=True),
    _s("live.weather.units", "choice", "metric", "units for the weather", choices=("metric", "imperial")),
    _s("live.weather.url", "str", "https://api.open-meteo.com/v1/forecast", "the weather service"),
    _s("live.weather.geocode_url", "str", "https://geocoding-api.open-meteo.com/v1/search",
       "the place-name lookup for the weather"),
    _s("live.news.feeds", "list", ["https://feeds.bbci.co.uk/news/rss.xml"], "RSS feeds for \"the news\""),
    _s("live.news.search_url", "str", "https://news.google.com/rss/search?q={query}&hl=en-US&gl=US&ceid=US:en",
       "RSS search for news on a topic ({query} is replaced)"),
    # -- voice -------------------------------------------------------------------------------------------
    _s("voice.model", "str", "tiny.en", "the speech model: tiny.en (bundled), base, small, large-v3 or a "
       "model folder"),
    _s("voice.device", "choice", "auto", "where speech recognition runs (auto: CUDA when present)",
       choices=("auto", "cpu", "cuda")),
    _s("voice.compute_type", "choice", "auto", "the model's number format (auto: float16 on CUDA, int8 on CPU)",
       choices=("auto", "int8", "int8_float16", "int8_float32", "int16", "float16", "bfloat16", "float32")),
    _s("voice.threads", "int", 0, "CPU threads for speech recognition (0: decided for you)", minimum=0),
    _s("voice.beam_size", "int", 5, "beam search width (1 is fastest)", minimum=1),
    _s("voice.language", "str", None, "the spoken language, e.g. en (unset: English for .en models, else "
       "detected)", nullable=True),
    _s("voice.vad", "bool", True, "skip silence with the voice activity filter"),
    _s("voice.hotwords", "bool", True, "bias decoding towards the glossary's names (two decodes, merged where a "
       "name explains the difference)"),
    _s("voice.glossary_threshold", "float", None, "how close a heard word must be to a glossary name to be "
       "corrected (unset: 0.82; 1 turns fuzzy matching off)", minimum=0, maximum=1, nullable=True,
       shown_default="0.82"),
    _s("voice.input_device", "str", None, "the microphone, by name or number (unset: the system default)",
       nullable=True, keep_numbers=True),
    # -- harvest -----------------------------------------------------------------------------------------
    _s("harvest.quiet_minutes", "float", 10, "how long a session must be quiet before it is harvested",
       minimum=0),
    _s("harvest.exclude", "list", [], "folders whose sessions are never read (globs such as ~/work/secret-*); "
       "a repository with an .aidaignore file is left out too"),
    _s("harvest.roots", "map", {}, "where each agent keeps its sessions, if not the usual place: "
       "claude|codex|gemini -> folder"),
    # -- the tray ----------------------------------------------------------------------------------------
    _s("tray.hotkeys.enabled", "bool", True, "listen for global hotkeys"),
    _s("tray.hotkeys.recall", "str", "Ctrl+Alt+Space", "the global hotkey for the quick-recall popup"),
    _s("tray.hotkeys.ptt", "str", "Ctrl+Alt+A", "the push-to-talk hotkey (hold to speak)"),
    _s("tray.sweep_minutes", "int", 5, "minutes between harvest sweeps (0: off)", minimum=0),
    _s("tray.harvest_paused", "bool", False, "Pause harvesting: the agents' hooks, the sweep and `aida brain "
       "harvest` (without --force) read nothing while it is on"),
    _s("tray.icon_theme", "choice", "auto", "the tray icon's glyph (auto: from the desktop's colours)",
       choices=("auto", "light", "dark")),
    _s("tray.popup_hide_on_blur", "bool", True, "close the popup when it loses focus"),
    _s("tray.warm_up", "bool", True, "load the models in the background when the tray starts"),
    # -- the lifecycle -----------------------------------------------------------------------------------
    _s("tier_index.budget_chars", "int", 6000, "INDEX.md's character budget", minimum=1),
    _s("tier_index.truncate_chars", "int", 10000, "past this many characters INDEX.md is cut short", minimum=1),
    _s("maintain.archive_below", "float", 0.7, "unused records whose decayed weight falls below this move "
       "to archive/", minimum=0, maximum=1),
    _s("maintain.grace_days", "float", 180.0, "days a record is safe from archiving after its last use",
       minimum=0),
    _s("maintain.keep_types", "list", ["instruction", "preference", "decision"], "record types never "
       "archived for disuse"),
    _s("consolidate.similarity", "float", 0.9, "how alike events must be to be merged", minimum=0, maximum=1),
    _s("consolidate.max_chars", "int", 2000, "the longest merged record", minimum=1),
    _s("consolidate.model_pairs", "int", 30, "pairs of records the word checks doubt that consolidate asks the model about, a run",
       minimum=0),
    _s("cluster.similarity", "float", 0.6, "how alike records must be to form a proposed page",
       minimum=0, maximum=1),
    _s("cluster.min_size", "int", 3, "the fewest records for a proposed page", minimum=2),
    _s("cluster.llm_titles", "bool", True, "let the LLM (when configured) title proposed pages"),
    _s("compile.min_lessons", "int", 2, "the fewest lessons for a knowledge page", minimum=1),
    _s("compile.similarity", "float", 0.7, "how alike lessons must be to share a page", minimum=0, maximum=1),
    _s("asof.keep", "int", 5, "past snapshots kept for `recall --as-of`", minimum=1),
    _s("sync.remote", "str", "origin", "the git remote `aida brain sync` uses"),
    _s("sync.lock_wait", "float", 2.0, "seconds to wait for a stale git lock before clearing it", minimum=0),
    _s("dedupe.link_on_write", "bool", True, "a new record that says what another profile's record says becomes "
       "one of its sources instead of a copy"),
    _s("sync.timeout", "float", 300.0, "seconds the whole network part of a sync may take", minimum=1),
    _s("sync.low_speed_time", "float", 30.0, "seconds under 1 kB/s after which an http(s) remote is given up",
       minimum=1),
    _s("sync.connect_timeout", "float", 15.0, "seconds to connect to an ssh remote (and its keep-alive)", minimum=1),
)

BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}
# Keys inside these map settings are the user's own (harvest.roots.claude, counters.ticket...).
_OPEN_MAPS = tuple(s.key + "." for s in SETTINGS if s.kind == "map")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@functools.lru_cache(maxsize=None)
def sections() -> frozenset[str]:
    """Dotted prefixes that are sections, not settings (``recall``, ``live.weather``...)."""
    out: set[str] = set()
    for s in SETTINGS:
        parts = s.key.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return frozenset(out)


def find(key: str) -> Setting:
    """The declared setting, or BadSetting with the nearest names."""
    if key in BY_KEY:
        return BY_KEY[key]
    raise BadSetting(unknown(key))


def unknown(key: str) -> str:
    if key in sections():
        inside = [s.key for s in SETTINGS if s.key.startswith(key + ".")]
        return f"{key} is a section, not a setting; set one of its keys, such as {', '.join(inside[:3])}."
    close = difflib.get_close_matches(key, list(BY_KEY), n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}?" if close else "`aida config list` shows them all."
    return f"{key} is not a setting Aida knows; {hint}"


def owner(key: str) -> Setting | None:
    """The map setting a free-form key lives in (``harvest.roots.claude`` -> harvest.roots)."""
    for prefix in _OPEN_MAPS:
        if key.startswith(prefix):
            return BY_KEY[prefix[:-1]]
    return None


def check(key: str, value: Any) -> Any:
    """``value`` for ``key`` in its proper type, or BadSetting naming the key and what it takes."""
    s = BY_KEY.get(key)
    if s is None:
        if owner(key) is not None:
            return value
        raise BadSetting(unknown(key))
    if value is None:  # null means unset: the default applies
        return None
    how = _placeholder(s)
    if s.kind == "bool":
        if isinstance(value, bool):
            return value
        if str(value).strip().lower() in _TRUE + _FALSE:
            return str(value).strip().lower() in _TRUE
        raise BadSetting(f"{key} is {value!r}, which is not true or false.")
    if s.kind in ("int", "float"):
        return _number(s, value, how)
    if s.kind == "choice":
        text = str(value).strip()
        if text in s.choices or text.lower() in s.choices + s.extra_choices:
            return text.lower() if text.lower() in s.choices + s.extra_choices else text
        close = difflib.get_close_matches(text.lower(), list(s.choices), n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise BadSetting(f"{key} is {value!r}, which is not one of {', '.join(s.choices)}{hint}.")
    if s.kind == "path" and not isinstance(value, str):
        raise BadSetting(f"{key} is {value!r}, which is not a folder path.")
    if s.kind in ("str", "path"):
        if s.keep_numbers and isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, (dict, list, bool)):
            raise BadSetting(f"{key} is {value!r}, which is not text.")
        if key in ("tray.hotkeys.recall", "tray.hotkeys.ptt"):
            from brain_core.config.shortcut import problem

            why = problem(str(value))
            if why:
                raise BadSetting(f"{key} is {value!r}, which is not a usable shortcut: {why}.")
        return str(value)
    if s.kind == "list":
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise BadSetting(f"{key} is {value!r}, which is not a list of names such as [a, b].")
        if key == "maintain.keep_types":
            bad = [v for v in value if v not in RECORD_TYPES]
            if bad:
                raise BadSetting(f"{key} names {', '.join(bad)}, which is not a record type; use "
                                 f"{', '.join(RECORD_TYPES)}.")
        return list(value)
    if s.kind == "map":
        if not isinstance(value, dict):
            raise BadSetting(f"{key} is {value!r}, which is not a mapping; set its keys one by one "
                             f"(`aida config set {key}.NAME VALUE`).")
        return value
    raise AssertionError(s.kind)  # pragma: no cover - every kind is handled above


def _placeholder(s: Setting) -> str:
    """What the key takes, in words, for the end of an error message."""
    if s.kind == "choice":
        return "one of " + ", ".join(s.choices)
    return {"bool": "true or false", "path": "a folder path", "int": s.allowed().replace("integer", "an integer"),
            "float": s.allowed().replace("number", "a number")}.get(s.kind, s.allowed())


def _number(s: Setting, value: Any, how: str) -> int | float:
    word = "an integer" if s.kind == "int" else "a number"
    if isinstance(value, bool):
        raise BadSetting(f"{s.key} is {value!r}, which is not {word} (it takes {how}).")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BadSetting(f"{s.key} is {value!r}, which is not {word} (it takes {how}).") from None
    if not math.isfinite(number):
        raise BadSetting(f"{s.key} is {value!r}, which is not a finite number (it takes {how}).")
    if s.kind == "int":
        if not number.is_integer():
            raise BadSetting(f"{s.key} is {value!r}, which is not a whole number (it takes {how}).")
        number = int(number)
    elif isinstance(value, int) and abs(value) < 2**53:
        number = value  # 90 stays 90 in the file, not 90.0
    lo, hi = s.minimum, s.maximum
    if (lo is not None and number < lo) or (hi is not None and number > hi):
        raise BadSetting(f"{s.key} is {value!r}, outside the allowed range (it takes {how}).")
    return number


def leaves(data: dict, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``(dotted key, value)`` for every setting in a settings mapping; map settings stay whole."""
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and key not in BY_KEY and owner(key) is None:
            yield from leaves(v, key + ".")
        else:
            yield key, v


def problems(data: dict) -> tuple[list[str], list[str]]:
    """``(errors, unknown keys)`` of a loaded settings mapping: each error one sentence."""
    errors, unknowns = [], []
    for key, value in leaves(data):
        if key in sections() and value is not None:
            errors.append(f"{key} is a section of settings, not a value; write its keys under it "
                          f"({', '.join(s.key for s in SETTINGS if s.key.startswith(key + '.'))[:80]}...).")
        elif key in BY_KEY:
            try:
                check(key, value)
            except BadSetting as e:
                word = "N" if BY_KEY[key].kind in ("int", "float") else "VALUE"
                errors.append(f"{str(e).rstrip('.')}; fix it with `aida config set {key} {word}`.")
        elif owner(key) is None:
            unknowns.append(unknown(key))
    return errors, unknowns


# The settings the README shows; docs/DESIGN.md shows them all.
COMMON = ("brain", "identity.name", "identity.email", "recall.bm25_weight", "recall.vector_weight",
          "recall.half_life_days", "recall.decay_floor", "recall.use_lift", "llm.provider", "llm.model", "llm.base_url", "voice.model",
          "voice.device", "voice.hotwords", "harvest.quiet_minutes", "machine.role", "dedupe.link_on_write",
          "tray.hotkeys.recall", "tray.hotkeys.ptt", "tray.sweep_minutes", "tier_index.budget_chars",
          "maintain.grace_days", "maintain.archive_below")


def readme_table(keys: tuple[str, ...] | None = None) -> str:
    """The settings table of the README (``COMMON``) and of docs/DESIGN.md (all); a test keeps
    both the same as this declaration."""
    rows = ["| setting | default | allowed | what it does |", "|---|---|---|---|"]
    for s in (SETTINGS if keys is None else [BY_KEY[k] for k in keys]):
        default = s.default_text()
        if s.default is None and s.shown_default is None:
            default = "(unset)"
        elif default == "":
            default = "(empty)"
        elif s.shown_default is None or " " not in default:
            default = f"`{default}`"
        rows.append(f"| `{s.key}` | {_cell(default)} | {_cell(s.allowed())} | {_cell(s.help)} |")
    return "\n".join(rows)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def fill_table(text: str, keys: tuple[str, ...] | None = None) -> str:
    """``text`` with the table between the settings-table markers replaced by :func:`readme_table`."""
    start = text.index("<!-- settings-table")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end settings-table -->", start)
    return text[:start] + readme_table(keys) + "\n" + text[end:]


if __name__ == "__main__":  # python -m brain_core.config.schema: rewrite the tables in README.md and docs/DESIGN.md
    from pathlib import Path

    top = Path(__file__).resolve().parent.parent.parent
    for name, keys in (("README.md", COMMON), ("docs/DESIGN.md", None)):
        path = top / name
        path.write_text(fill_table(path.read_text(encoding="utf-8"), keys), encoding="utf-8")
