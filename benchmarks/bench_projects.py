"""Project scope: recall@1 on a multi-project labelled set with near-identical topics per project.

Six projects each keep a record on the same everyday topics (how they deploy, test, migrate the
database, log, keep secrets...), worded alike; two topics exist in one project only. A question
asked inside a project ("how do we deploy?") has that project's record as its answer; a question on
a topic only another project has keeps that other project's record as its answer (the lift must
never act as a filter). Recall runs as users run it (``Brain.recall``, default settings, k=5),
without a project (before) and with the folder's project lifted by ``recall.project_boost`` (after).

The halves split each topic's two wordings: the first is the tuning half, the second the
held-out half. The boost is chosen on the tuning half only (the best recall@1 that still finds
every answer only another project has); the held-out half is reported with it and with every
boost tried. (A first split by topic left the tuning half without an only-elsewhere question a
boost could break, so it could not tell a lift from a filter; it was replaced by this one.)

    PYTHONPATH=. python benchmarks/bench_projects.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROJECTS = ["billing", "search", "mobile-app", "data-pipeline", "auth-service", "website"]

# topic -> (key stem, per-project bodies built from the details below, the questions asked)
TOPICS = [
    ("deploy", "{p} deploys {a} on {b}s, after {c}.",
     ["how do we deploy?", "what is our deploy process"]),
    ("tests", "The {p} test suite runs with {a}; {b} is mocked out in unit tests.",
     ["how do we run the tests?", "what do unit tests mock"]),
    ("migrations", "Database migrations for {p} are written with {a} and applied {b}.",
     ["how are database migrations done?", "when do migrations get applied"]),
    ("logging", "{p} logs as {a} and ships the logs to {b}.",
     ["where do the logs go?", "what log format do we use"]),
    ("secrets", "{p} reads its secrets from {a}; never from {b}.",
     ["where are the secrets kept?", "how do we load credentials"]),
    ("release-notes", "Release notes for {p} are written in {a} by {b}.",
     ["who writes the release notes?", "where do release notes live"]),
    ("on-call", "On-call for {p} rotates {a}; pages go to {b}.",
     ["how does on-call work?", "where do pages go"]),
    ("dependencies", "{p} pins its dependencies with {a} and upgrades them {b}.",
     ["how do we pin dependencies?", "when do we upgrade dependencies"]),
    ("ci", "The {p} CI pipeline runs on {a} and must finish in {b}.",
     ["what runs our CI?", "how long may the CI pipeline take"]),
    ("caching", "{p} caches responses in {a} for {b}.",
     ["how do we cache responses?", "how long are responses cached"]),
    # only one project has these: asked from the others, that one record is still the answer
    ("feature-flags", "{p} toggles features with {a}, cleaned up {b}.",
     ["how do we toggle features?", "when are feature flags cleaned up"]),
    ("load-tests", "{p} load-tests with {a} before {b}.",
     ["how do we load test?", "when do load tests run"]),
]
ONLY_IN = {"feature-flags": "billing", "load-tests": "search"}

DETAILS = {
    "deploy": [("blue-green", "Friday", "the finance batch"), ("with a canary", "Tuesday", "the index rebuild"),
               ("through the app stores", "Thursday", "the beta review"), ("as Airflow DAGs", "Monday", "the nightly load"),
               ("one region at a time", "Wednesday", "the key rotation"), ("from the main branch", "Monday", "the design review")],
    "tests": [("pytest and a Postgres container", "Stripe"), ("pytest-xdist", "Elasticsearch"),
              ("Jest and Detox", "the push service"), ("pytest and a local Spark", "S3"),
              ("Go's testing package", "the LDAP server"), ("Playwright", "the CMS API")],
    "migrations": [("Alembic", "by hand before each deploy"), ("Flyway", "at start-up"),
                   ("Room schema versions", "on app upgrade"), ("dbt models", "every night"),
                   ("golang-migrate", "in a pre-deploy job"), ("Prisma", "in the release pipeline")],
    "logging": [("JSON lines", "Datadog"), ("logfmt", "Loki"), ("plain text", "Crashlytics"),
                ("JSON", "CloudWatch"), ("structured zap fields", "Splunk"), ("JSON", "Vercel's log drain")],
    "secrets": [("Vault", "environment files"), ("AWS Secrets Manager", "the repo"), ("the Keychain", "the app bundle"),
                ("SSM Parameter Store", "notebooks"), ("an HSM-backed KMS", "config maps"), ("Doppler", ".env files")],
    "release-notes": [("CHANGELOG.md", "the on-call engineer"), ("GitHub releases", "the tech lead"),
                      ("the store listing", "the product owner"), ("Confluence", "the data steward"),
                      ("docs/releases", "the security lead"), ("the blog", "the QA lead")],
    "on-call": [("weekly", "PagerDuty"), ("every two weeks", "Opsgenie"), ("monthly", "a Slack channel"),
                ("weekly", "the data team's phone"), ("daily", "PagerDuty's security service"), ("weekly", "email")],
    "dependencies": [("uv.lock", "every sprint"), ("poetry.lock", "monthly"), ("Gradle version catalogs", "each release"),
                     ("pip-tools", "quarterly"), ("go.sum", "when Dependabot asks"), ("package-lock.json", "weekly")],
    "ci": [("GitHub Actions", "ten minutes"), ("Buildkite", "fifteen minutes"), ("Bitrise", "thirty minutes"),
           ("Jenkins", "an hour"), ("GitLab CI", "eight minutes"), ("CircleCI", "five minutes")],
    "caching": [("Redis", "five minutes"), ("Memcached", "an hour"), ("the device's disk", "a day"),
                ("Parquet snapshots", "a week"), ("an in-process LRU", "thirty seconds"), ("the CDN", "ten minutes")],
    "feature-flags": [("LaunchDarkly", "after two releases")],
    "load-tests": [("k6", "every major release")],
}


def records() -> list[dict]:
    out = []
    for topic, template, _ in TOPICS:
        projects = [ONLY_IN[topic]] if topic in ONLY_IN else PROJECTS
        for i, p in enumerate(projects):
            a, b, c = (*DETAILS[topic][i], "", "")[:3]
            body = template.format(p=p.replace("-", " ").title(), a=a, b=b, c=c)
            out.append(dict(body=body, key=f"{p}-{topic}", type="decision", profile="claude",
                            tags=[f"project:{p}"], created="2026-06-01T10:00:00Z"))
    return out


def cases(half: int) -> list[tuple[str, str, str]]:
    """(question, project asked in, the key of the answer) for one half: each topic's first wording
    (0, tuning) or its second (1, held out), so both halves hold every topic and both kinds of
    answer (the project's own, and the one only another project has)."""
    out = []
    for topic, _, questions in TOPICS:
        for p in PROJECTS:
            gold = f"{ONLY_IN[topic]}-{topic}" if topic in ONLY_IN else f"{p}-{topic}"
            out.append((questions[half], p, gold))
    return out


def recall_at_1(brain, items, project: bool) -> tuple[float, float]:
    hit, times = 0, []
    for q, p, gold in items:
        t0 = time.perf_counter()
        hits = brain.recall(q, k=5, project=p if project else None)
        times.append((time.perf_counter() - t0) * 1000)
        hit += bool(hits) and hits[0].record.key == gold
    return hit / len(items), statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keep", help="build the brain here and keep it")
    args = ap.parse_args()
    from brain_core import Brain
    from brain_core.config import Config

    root = Path(args.keep or tempfile.mkdtemp(prefix="aida-projects-")) / "brain"
    cfg = Config.load(Path(tempfile.mkdtemp()) / "config.yaml")
    brain = Brain.init(root, config=cfg)
    recs = records()
    brain.remember_many(recs, message="bench: projects")
    tune, held = cases(0), cases(1)
    print(f"{len(recs)} records in {len(PROJECTS)} projects, {len(TOPICS)} topics; "
          f"{len(tune)} tuning and {len(held)} held-out questions")
    default = float(cfg.get("recall.project_boost", 0.3))
    for name, items in (("tuning half", tune), ("held-out half", held)):
        before, ms0 = recall_at_1(brain, items, project=False)
        after, ms1 = recall_at_1(brain, items, project=True)
        elsewhere = [c for c in items if not c[2].startswith(c[1] + "-")]
        kept, _ = recall_at_1(brain, elsewhere, project=True) if elsewhere else (float("nan"), 0)
        print(f"{name}: recall@1 before {before:.3f}, after {after:.3f} (recall.project_boost {default:g}); "
              f"answers only another project has: {kept:.3f} of {len(elsewhere)}; "
              f"median recall {ms0:.1f} ms before, {ms1:.1f} ms after")
    print("boost sweep: recall@1 tuning / held-out, and on answers only another project has, tuning / held-out")
    best = None
    for b in (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0):
        cfg.set("recall.project_boost", b)
        t, _ = recall_at_1(brain, tune, project=True)
        h, _ = recall_at_1(brain, held, project=True)
        et, _ = recall_at_1(brain, [c for c in tune if not c[2].startswith(c[1] + "-")], project=True)
        eh, _ = recall_at_1(brain, [c for c in held if not c[2].startswith(c[1] + "-")], project=True)
        print(f"  {b:>4g}: {t:.3f} / {h:.3f}   only elsewhere {et:.3f} / {eh:.3f}")
        if et == 1.0 and (best is None or t > best[1]):  # chosen on the tuning half: never a filter there
            best = (b, t)
    print(f"chosen on the tuning half (best recall@1 that still finds every only-elsewhere answer): {best[0]:g}")
    brain.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
