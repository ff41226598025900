"""Settings: one YAML file per user, plus the paths derived from it.

The file lives at ``$AIDA_CONFIG`` or ``<user config dir>/aida/config.yaml``. It holds settings
only, never secrets (API keys live in the OS keyring, see :mod:`brain_core.config.keys`). Every module
reads its own keys with a default through :meth:`Config.get`, so a missing or partial file is
normal. The object is built once (by the CLI, the MCP server or the tray) and passed down.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brain_core.errors import BrainError

# Defaults that more than one module reads. Modules with settings of their own pass a default to
# ``get`` instead of growing this table.
DEFAULTS: dict[str, Any] = {
    "brain": None,
    "identity": {"name": "Aida", "email": "aida@brain.invalid"},
    "machine": {"role": "writer"},  # writer | reader: readers never harvest or consolidate
    "recall": {
        # How the keyword (bm25) and meaning (vector) matches are combined: "score" adds the
        # normalised scores with these weights, "rrf" adds weight / (rrf_k + rank). Chosen on half
        # of LoCoMo and checked on the other half (benchmarks/locomo.py, docs/RECALL.md).
        "fusion": "score",
        "bm25_weight": 1.0,
        "vector_weight": 0.5,
        "rrf_k": 60,
        # Matches each stage passes to fusion: 200, so that the best 5 are the same whether 5 or 50
        # were asked for (a recall of k looks at max(candidates, 4 k)).
        "candidates": 200,
        # Lift a match by 0.3 x the best three matches from the same source (agent session,
        # meeting): several hits from one place make each more likely. 0 turns it off.
        "source_weight": 0.3,
        # Lift the records written just before and after a strong match in its source (the turn
        # that answers follows the one that names the subject) by 0.2 x its score. 0 turns it off.
        "neighbour_weight": 0.2,
        # The record right after a match that asks ("how long have you been married?") is its
        # answer: lifted by 0.5 x the match's score instead. 0 turns it off.
        "answer_weight": 0.5,
        # A record that asks (its body ends in "?") counts 0.7 of its score: it asks rather than
        # tells. 1 turns it off.
        "question_weight": 0.7,
        # Records made on a date the question names ("in May 2023") count double. 0 turns it off.
        "date_boost": 1.0,
        # Records that hold the kind of answer the question asks for (a time for "when ...", a
        # number for "how many / much / long / old / often") count 1.4 times. 0 turns it off.
        "kind_boost": 0.4,
        # Decay: an unused record loses weight with age down to `decay_floor` (never removed).
        "half_life_days": 180,
        "decay_floor": 0.6,
        # A record that helped (cited in an answer, opened or copied from the popup, thumbs-up) is
        # lifted by at most this share (0.1: 10%); being shown by a recall is not a use. 0 turns it off.
        "use_lift": 0.1,
    },
    "embed": {"model": "all-MiniLM-L6-v2-int8", "threads": 0},
    "index": {"catch_up_limit": 64,
              "backend": "sqlite",   # sqlite (.aida/index.sqlite) | postgres (index.dsn; docs/POSTGRES.md)
              "dsn": "",             # libpq conninfo, no password: PGPASSWORD or `aida config set-key postgres`
              "brain_id": ""},       # the brain's name on the server; empty: its first commit
    # `aida brain sync` deadlines, in seconds: the whole sync, http under 1 kB/s, an ssh connect
    "sync": {"timeout": 300, "low_speed_time": 30, "connect_timeout": 15},
    # A new record that says what another profile's record says becomes a source of that record
    # instead of a copy (brain_core/brain/dedupe.py). false writes every copy.
    "dedupe": {"link_on_write": True},
}


def _user_config_path() -> Path:
    env = os.environ.get("AIDA_CONFIG")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("aida", appauthor=False)) / "config.yaml"


def default_brain_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("aida", appauthor=False)) / "brain"


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


@dataclass
class Config:
    """The user's settings. ``get("recall.bm25_weight")`` reads a dotted key."""

    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None, check: bool = True) -> "Config":
        """Read the settings file. With ``check`` (the default) a value the schema refuses raises
        one BrainError naming the file and the key; ``aida config`` and ``aida doctor`` load with
        ``check=False`` so that they can show and fix such a file."""
        path = Path(path) if path else _user_config_path()
        data: dict[str, Any] = {}
        if path.exists():
            import yaml

            from brain_core.text import yamlsafe

            try:
                loaded = yamlsafe.load(path.read_text(encoding="utf-8")) or {}
            except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
                raise BrainError(f"The settings file {path} cannot be read ({yamlsafe.where(e)}); fix or delete it.") from e
            if not isinstance(loaded, dict):
                raise BrainError(f"The settings file {path} is not a mapping; fix or delete it.")
            data = loaded
        if check:
            _check_file(path, data)
        return cls(path=path, data=data)

    def get(self, dotted: str, default: Any = None) -> Any:
        merged_default = _lookup(DEFAULTS, dotted)
        value = _lookup(self.data, dotted)
        if value is None:
            return merged_default if merged_default is not None else default
        if isinstance(value, dict) and isinstance(merged_default, dict):
            return _merge(merged_default, value)
        return value

    def set(self, dotted: str, value: Any) -> None:
        node = self.data
        parts = dotted.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise BrainError(f"Setting {dotted} cannot be set: {p} is not a section.")
        node[parts[-1]] = value

    def save(self) -> None:
        import yaml

        from brain_core.store.fsutil import atomic_write_text

        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, yaml.safe_dump(self.data, sort_keys=True, allow_unicode=True))

    def brain_path(self, explicit: str | os.PathLike | None = None) -> Path:
        """``--brain`` wins, then ``$AIDA_BRAIN``, then the configured brain, then the default."""
        for candidate, base in ((explicit, None), (os.environ.get("AIDA_BRAIN"), None),
                                (self.data.get("brain"), self.path.parent)):
            if candidate:
                if not isinstance(candidate, (str, os.PathLike)):
                    raise BrainError(f"The `brain` setting in {self.path} must be a folder path, not {candidate!r}.")
                found = Path(candidate).expanduser()
                if base is not None and not found.is_absolute():
                    found = base / found  # a relative setting is read from the settings file's folder
                return Path(os.path.abspath(found))  # --brain and $AIDA_BRAIN: from the current folder
        return default_brain_path()


def _check_file(path: Path, data: dict) -> None:
    from brain_core.config.schema import BadSetting, problems

    errors, _unknown = problems(data)  # unknown keys are only reported by `aida doctor`
    if errors:
        first = errors[0].rstrip(".")
        more = f" ({len(errors) - 1} more: `aida doctor` lists them)" if len(errors) > 1 else ""
        line = _line_of(path, first.split(" ", 1)[0])
        at = f" (line {line})" if line else ""
        raise BadSetting(f"The settings file {path} is wrong{at}: {first}{more}.")


def _line_of(path: Path, dotted: str) -> int | None:
    """The line of ``dotted`` (``tray.hotkeys.ptt``) in the settings file, or None."""
    from brain_core.text import yamlsafe

    try:
        node = yamlsafe.NoAliasLoader(path.read_text(encoding="utf-8")).get_single_node()
    except Exception:  # noqa: BLE001 - only a hint: the message stands without it
        return None
    found = None
    for part in dotted.split("."):
        if node is None or not hasattr(node, "value") or not isinstance(node.value, list):
            return found
        match = next(((k, v) for k, v in node.value if isinstance(k.value, str) and k.value == part), None) \
            if node.value and isinstance(node.value[0], tuple) else None
        if match is None:
            return found
        found = match[0].start_mark.line + 1
        node = match[1]
    return found


def _lookup(data: dict, dotted: str) -> Any:
    node: Any = data
    for p in dotted.split("."):
        if not isinstance(node, dict) or p not in node:
            return None
        node = node[p]
    return node


def non_negative(raw: Any, key: str, kind: type = float) -> float | int:
    """A numeric setting's value checked: a number of ``kind``, 0 or more, or InvalidInput
    naming the key and the command that fixes it."""
    from brain_core.errors import InvalidInput

    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise InvalidInput(f"{key} is {raw!r}, which is not a number; set it with `aida config set {key} N`.") from None
    if value < 0:
        raise InvalidInput(f"{key} is negative; set it to 0 or more with `aida config set {key} N`.")
    return value
