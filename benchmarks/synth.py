"""Synthetic brains for benchmarks: short, varied sentences written straight to the shelves."""

from __future__ import annotations

import json
import random
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

SUBJECTS = ["the billing service", "our CI pipeline", "the webhook worker", "the staging database", "the mobile app",
            "the search index", "the payments ledger", "the auth proxy", "the nightly backup", "the metrics exporter",
            "the onboarding flow", "the invoice renderer", "the feature flag system", "the rate limiter",
            "the email queue", "the data warehouse", "the admin console", "the deploy script", "the cache layer",
            "the GraphQL gateway"]
VERBS = ["retries", "stores", "rejects", "caches", "logs", "compresses", "shards", "validates", "throttles",
         "encrypts", "batches", "replays", "archives", "indexes", "mirrors", "signs", "streams", "deduplicates"]
OBJECTS = ["failed requests", "customer records", "audit events", "PDF invoices", "session tokens", "large uploads",
           "webhook payloads", "currency rates", "search queries", "user avatars", "error reports", "SQL migrations",
           "config snapshots", "push notifications", "price changes", "login attempts"]
DETAILS = ["with exponential backoff", "every night at 2 am", "for thirty days", "behind a feature flag",
           "using zstd", "in eu-west-1", "after the outage review", "because the vendor limits bursts",
           "until the queue drains", "at most six times", "with a dead letter queue", "per tenant",
           "only on weekdays", "since version 4.2", "to keep p95 under 200 ms", "as agreed with finance"]
PROFILES = ["claude", "codex", "gemini", "meeting", "me"]
TYPES = ["fact", "decision", "instruction", "preference", "note"]


def sentence(rng: random.Random, i: int) -> str:
    return (f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
            f"{rng.choice(DETAILS)} (ticket {i}).")


def query(rng: random.Random) -> str:
    return f"how does {rng.choice(SUBJECTS)} handle {rng.choice(OBJECTS)}"


def write_brain(root: Path, n: int, seed: int = 7) -> None:
    """A brain of ``n`` records written directly (no fsync per file), committed once."""
    from brain_core import Brain

    Brain.init(root)
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    for i in range(n):
        profile = rng.choice(PROFILES)
        key = f"r{i:06d}"
        created = (start + timedelta(minutes=7 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        rec = {"id": f"20250101-000000000-{i:06x}", "type": rng.choice(TYPES), "key": key, "profile": profile,
               "tags": [f"project:{rng.choice(['alpha', 'beta', 'gamma'])}"], "body": sentence(rng, i),
               "source": "bench", "created": created, "confidence": 1, "provenance": [], "expires": None}
        d = root / "memories" / profile
        d.mkdir(exist_ok=True)
        (d / f"{key}.json").write_text(json.dumps(rec, sort_keys=True, indent=2) + "\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=Aida", "-c", "user.email=aida@brain.invalid", "commit", "-qm",
                    f"benchmark: {n} records"], cwd=root, check=True)


def use_catalog(backend: str, dsn: str = "", brain_id: str = "") -> None:
    """Write the settings file (``$AIDA_CONFIG``) the benchmark's brains read: which catalog, where."""
    import os

    import yaml

    index = {"backend": backend}
    if backend == "postgres":
        index.update(dsn=dsn, brain_id=brain_id)
    with open(os.environ["AIDA_CONFIG"], "w") as f:
        yaml.safe_dump({"index": index}, f)


def write_then_recall(brain, writes: int = 7, tag: str = "") -> list[float]:
    """Seconds from each ``remember`` of a fresh record to the ``recall`` that finds it (the path a
    user's new memory takes). ``tag`` keeps the words of several runs on one brain apart."""
    import time

    out = []
    for i in range(writes):
        body = f"Fresh benchmark decision {tag}{i}: the zebra gateway {tag} rotates certificates on the {i + 3}th."
        key = f"fresh-{tag}-{i}" if tag else f"fresh-{i}"
        t = time.perf_counter()
        brain.remember(body, key=key, profile="me")
        hits = brain.recall(f"zebra gateway {tag} certificates {i + 3}th", k=3, touch=False)
        out.append(time.perf_counter() - t)
        assert any(h.record.key == key for h in hits), f"{key} was not recalled after it was written"
    return out
