"""A labelled set for where an answer's knowledge ends (``bench_answers.py --edges``): a brain of a
few projects (the mobile app, the docs editor, the billing service, the search cluster, the public
and the internal API) and questions in five categories:

- ``near-miss``: the topic is in the brain, the asked fact is not (the docs editor's QA lead when
  only the mobile app's is recorded; the tech lead when only the QA lead is; the internal API's
  rate limit when only the public one is; a node count when only a version is). Expected: ``None``,
  an honest answer is anything but "strong";
- ``direct``: the same kind of question where the fact is recorded (a near-miss rule must not
  cost these);
- ``recency``: "the newest X" within a topic, with newer records on other topics in the brain, and
  questions with no topic words ("what did I save last?");
- ``lesson``: gotchas written with ``type: lesson``;
- ``spoken``: questions as speech recognition writes them ("r p o", "cube control", "p n p m").

Every category alternates development and held-out questions: :data:`DEV` holds the even ones
(the rules were written looking at them), :data:`HELD_OUT` the odd ones (never looked at while
writing them).
"""

from __future__ import annotations

# (key, type, profile, created, body, tags)
RECORDS = [
    ("mobile-qa-lead", "fact", "me", "2026-03-02", "Siobhan is the QA lead for the mobile app; she signs off every release build.", ["mobile-app"]),
    ("docs-editor-tech-lead", "fact", "meeting", "2026-03-04", "Tomasz is the tech lead for the docs editor and reviews its architecture changes.", ["docs-editor"]),
    ("docs-editor-stack", "decision", "me", "2026-03-06", "The docs editor is built on ProseMirror with collaborative editing over websockets.", ["docs-editor"]),
    ("billing-owner", "fact", "me", "2026-03-08", "Owen owns the billing service and approves every change to invoicing.", ["billing"]),
    ("public-api-rate-limit", "instruction", "codex", "2026-03-10", "The public API allows 600 requests per minute per token; above that it answers HTTP 429.", ["api"]),
    ("internal-api-auth", "decision", "me", "2026-03-12", "The internal API authenticates services with mutual TLS, never with tokens.", ["api"]),
    ("search-cluster-version", "fact", "me", "2026-03-14", "The search cluster runs OpenSearch version 2.11 since the spring upgrade.", ["search"]),
    ("billing-db-cluster", "fact", "me", "2026-03-16", "The billing database cluster has five nodes spread over two availability zones.", ["billing"]),
    ("mobile-min-ios", "decision", "claude", "2026-03-18", "The mobile app supports iOS 16 and newer; iOS 15 was dropped in March.", ["mobile-app"]),
    ("docs-editor-autosave", "fact", "me", "2026-03-20", "The docs editor autosaves every 10 seconds and keeps 30 days of history.", ["docs-editor"]),
    ("mobile-release-3-2", "event", "me", "2026-04-01", "Released version 3.2 of the mobile app with offline mode.", ["mobile-app", "release"]),
    ("mobile-release-3-3", "event", "me", "2026-05-06", "Released version 3.3 of the mobile app with the new onboarding.", ["mobile-app", "release"]),
    ("mobile-release-3-4", "event", "me", "2026-06-10", "Released version 3.4 of the mobile app with dark mode.", ["mobile-app", "release"]),
    ("docs-editor-release-1-8", "event", "me", "2026-05-20", "Released version 1.8 of the docs editor with comments in the margin.", ["docs-editor", "release"]),
    ("docs-editor-release-1-9", "event", "me", "2026-06-02", "Released version 1.9 of the docs editor with tables.", ["docs-editor", "release"]),
    ("billing-incident-may", "event", "meeting", "2026-05-14", "Incident on the billing service: invoices were sent twice for an hour after a retry bug.", ["billing", "incident"]),
    ("billing-incident-june", "event", "meeting", "2026-06-18", "Incident on the billing service: the payment webhook was down for twenty minutes.", ["billing", "incident"]),
    ("search-incident-june", "event", "me", "2026-06-21", "Incident on the search cluster: a full disk stopped indexing for two hours.", ["search", "incident"]),
    ("deploy-freeze", "decision", "meeting", "2026-06-25", "Deploy freeze from July 1 to July 5 for the quarter-end close.", ["ops"]),
    ("release-checklist", "instruction", "me", "2026-06-27", "Every release needs a changelog entry and a tagged commit.", ["release"]),
    ("mobile-feature-freeze", "decision", "meeting", "2026-06-28", "No new features in the mobile app until the accessibility audit is done.", ["mobile-app"]),
    ("infra-rpo-rto", "decision", "me", "2026-04-12", "For the infra the RPO is 15 minutes and the RTO is 4 hours.", ["infra"]),
    ("package-manager-js", "decision", "claude", "2026-04-14", "The web frontends use pnpm workspaces; npm and yarn lockfiles are rejected in CI.", ["frontend"]),
    ("kubectl-context", "instruction", "me", "2026-04-16", "Always pass --context to kubectl; the default context points at production.", ["ops"]),
    ("database-choice", "decision", "me", "2026-04-18", "We decided the main database stays on Postgres 16; no move to a document store.", ["infra"]),
    ("ios-signing", "instruction", "me", "2026-04-20", "iOS builds are signed with the team certificate kept in the CI keychain.", ["mobile-app"]),
    ("sso-provider", "decision", "me", "2026-04-22", "SSO for internal tools goes through Okta with SAML.", ["security"]),
    ("gotcha-pnpm-hoist", "lesson", "me", "2026-04-24", "Gotcha: pnpm does not hoist dependencies, so a package that imports an undeclared dependency breaks; add it explicitly.", ["frontend"]),
    ("gotcha-kubectl-apply", "lesson", "codex", "2026-04-26", "Gotcha: kubectl apply on a ConfigMap does not restart the pods; run a rollout restart after it.", ["ops"]),
    ("gotcha-opensearch-replicas", "lesson", "me", "2026-04-28", "Lesson learned: the OpenSearch index must be set to zero replicas during a bulk reindex or it runs out of disk.", ["search"]),
    ("gotcha-ios-simulator", "lesson", "me", "2026-04-30", "Gotcha: the iOS simulator caches push notification permissions; reset it between test runs.", ["mobile-app"]),
    ("gotcha-postgres-vacuum", "lesson", "me", "2026-05-02", "Lesson: on Postgres a long transaction blocks autovacuum; keep migrations in small batches.", ["infra"]),
    ("gotcha-websocket-timeout", "lesson", "claude", "2026-05-04", "Gotcha: the load balancer closes idle websockets after 60 seconds, so the docs editor sends a ping every 30.", ["docs-editor"]),
]

# (question, key of the record that answers it or None, category)
_NEAR_MISS = [
    ("who is the QA lead for the docs editor?", None),
    ("who is the tech lead for the mobile app?", None),
    ("what's the rate limit of the internal API?", None),
    ("how many nodes does the search cluster have?", None),
    ("who owns the docs editor?", None),
    ("what's the minimum android version for the mobile app?", None),
    ("how long does the mobile app keep history?", None),
    ("who is the QA lead for billing?", None),
    ("what version does the billing database cluster run?", None),
    ("how does the public API authenticate services?", None),
]
_DIRECT = [
    ("who is the QA lead for the mobile app?", "mobile-qa-lead"),
    ("who is the tech lead for the docs editor?", "docs-editor-tech-lead"),
    ("what's the rate limit of the public API?", "public-api-rate-limit"),
    ("how many nodes does the billing database cluster have?", "billing-db-cluster"),
    ("who owns the billing service?", "billing-owner"),
    ("what's the minimum iOS version for the mobile app?", "mobile-min-ios"),
    ("how long does the docs editor keep history?", "docs-editor-autosave"),
    ("what version of OpenSearch does the search cluster run?", "search-cluster-version"),
    ("how does the internal API authenticate services?", "internal-api-auth"),
    ("what is the docs editor built on?", "docs-editor-stack"),
]
_RECENCY = [
    ("what's the newest release of the mobile app?", "mobile-release-3-4"),
    ("what was the latest release of the docs editor?", "docs-editor-release-1-9"),
    ("what was the most recent incident on the billing service?", "billing-incident-june"),
    ("what's the latest mobile app release?", "mobile-release-3-4"),
    ("what did I save last?", "mobile-feature-freeze"),
    ("latest incident on the search cluster?", "search-incident-june"),
    ("what was the last docs editor release?", "docs-editor-release-1-9"),
    ("what's my most recent note?", "mobile-feature-freeze"),
    ("when was the most recent billing incident?", "billing-incident-june"),
    ("what's the newest docs editor release?", "docs-editor-release-1-9"),
]
_LESSON = [
    ("any gotchas with pnpm dependencies?", "gotcha-pnpm-hoist"),
    ("why didn't the pods restart after kubectl apply on the ConfigMap?", "gotcha-kubectl-apply"),
    ("what should I do with OpenSearch replicas during a bulk reindex?", "gotcha-opensearch-replicas"),
    ("anything to watch out for with push notifications in the iOS simulator?", "gotcha-ios-simulator"),
    ("what blocks autovacuum on Postgres?", "gotcha-postgres-vacuum"),
    ("why does the docs editor ping the websocket every 30 seconds?", "gotcha-websocket-timeout"),
    ("what did we learn about reindexing OpenSearch?", "gotcha-opensearch-replicas"),
    ("what's the gotcha with pnpm hoisting?", "gotcha-pnpm-hoist"),
]
_SPOKEN = [
    ("what are the r p o and r t o for the infra", "infra-rpo-rto"),
    ("which package manager do the web frontends use p n p m or yarn", "package-manager-js"),
    ("what should I always pass to cube control", "kubectl-context"),
    ("what did we decide about the NATO base", "database-choice"),
    ("how are i o s builds signed", "ios-signing"),
    ("which post gress version is the main database on", "database-choice"),
    ("what is the r t o for the infra", "infra-rpo-rto"),
    ("what's the s s o provider for internal tools", "sso-provider"),
    ("what's the gotcha with cube control apply", "gotcha-kubectl-apply"),
    ("what's the minimum i o s version for the mobile app", "mobile-min-ios"),
]

# what the person said for each of _SPOKEN, as the brain would write it: what bench_spoken.py
# synthesises, and the reference of its word error rate
SPOKEN_WRITTEN = [
    "what are the RPO and RTO for the infra",
    "which package manager do the web frontends use, pnpm or yarn",
    "what should I always pass to kubectl",
    "what did we decide about the database",
    "how are iOS builds signed",
    "which Postgres version is the main database on",
    "what is the RTO for the infra",
    "what's the SSO provider for internal tools",
    "what's the gotcha with kubectl apply",
    "what's the minimum iOS version for the mobile app",
]

CATEGORIES = {"near-miss": _NEAR_MISS, "direct": _DIRECT, "recency": _RECENCY, "lesson": _LESSON,
              "spoken": _SPOKEN}
DEV = [(q, key, cat) for cat, qs in CATEGORIES.items() for i, (q, key) in enumerate(qs) if i % 2 == 0]
HELD_OUT = [(q, key, cat) for cat, qs in CATEGORIES.items() for i, (q, key) in enumerate(qs) if i % 2 == 1]
