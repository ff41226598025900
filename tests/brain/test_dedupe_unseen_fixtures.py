"""The shape of the pair sets written without sight of the "link only when sure" predicate:
tests/fixtures/dedupe_unseen.jsonl (its two halves were read while rules were written) and
tests/fixtures/dedupe_unseen2.jsonl to dedupe_unseen14.jsonl (each written after the
rules of its time, without reading or running the predicate, and scored once; see the .md beside each).

Only the files are checked here (fields, labels, groups, consistency); the predicate is never run on
them here, benchmarks/bench_dedupe.py measures it.
"""

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

import pytest

from tests.helpers.paths import FIXTURES

FIELDS = ["group", "split", "dup", "kind", "a", "b"]
# kinds whose pairs say the same thing; every other kind is a hard negative
SAME_KINDS = {"rewording", "reorder"}
# kinds written on purpose with both labels: a converse verb with its arguments turned round keeps the
# meaning ("the gateway sits in front of the auth service" / "the auth service sits behind the gateway"),
# the converse verb alone reverses it
BOTH_KINDS = {"converse"}
PERSON_NAMES = {"Siobhan", "Tomasz", "Owen"}


@dataclass(frozen=True)
class Set:
    file: str
    split: str
    first_group: int
    groups: int      # at least this many topics
    pairs: int       # and pairs
    older: tuple     # sets it shares no group and no sentence with
    # every capitalised word that never occurs in lower case in the set: tools, products, places, days,
    # acronyms and words that only start a sentence. A new one must not be a person's name.
    proper: frozenset


SETS = [
    Set("dedupe_unseen.jsonl", "unseen", 1000, 40, 400, ("dedupe_roles.jsonl", "dedupe_pairs.jsonl"), frozenset({
    "AWS", "Airflow", "Alpine", "Amazon", "Any", "Base", "CI", "CRM", "Cloudflare", "Confluence", "DAGs",
    "DEBUG", "DLQ", "DNS", "DNSSEC", "Docker", "ECR", "ES2022", "ETL", "Elasticsearch", "Env", "Escalation",
    "Friday", "Fridays", "GB", "GitHub", "GitLab", "Google", "Grafana", "GraphQL", "HTTP", "Helm",
    "Hotfixes", "Hub", "INFO", "Installing", "JSON", "JWTs", "Jira", "Kafka", "Kubernetes", "LB", "Linear",
    "MB", "Maintainers", "March", "May", "Meetings", "Meilisearch", "Mondays", "Name", "Once", "Ownership",
    "P1", "PR", "PRs", "Pages", "Ports", "QA", "REST", "RabbitMQ", "Redis", "Registry", "Replication",
    "Repos", "Rollback", "Route", "SRE", "SVC", "Semver", "Sev1", "Sev2", "Smoke", "TLS", "Table",
    "Terraform", "There", "Thursday", "Thursdays", "Topology", "TypeScript", "UI", "UTC", "Uploads", "WARN",
    })),
    Set("dedupe_unseen2.jsonl", "unseen2", 2000, 50, 500,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl"), frozenset({
    "ADRs", "API", "APIs", "Airflow", "Audit", "Backend", "Biome", "Brevo", "CDN", "CI", "CTO", "CVE",
    "CVEs", "Contractor", "Conventional", "CronJobs", "DB", "Dependabot", "Dublin", "Force", "Frankfurt",
    "Friday", "Fridays", "GCS", "HTML", "ID", "IP", "Incoming", "Interns", "JDK", "Java", "KB", "Kafka",
    "Kubernetes", "Locally", "Logs", "MB", "Mailchimp", "Mondays", "Nx", "Ohio", "Owners", "PITR", "PR",
    "PRs", "Postgres", "Postmark", "Prettier", "RC", "RabbitMQ", "Renovate", "S3", "SHA", "SLA", "SRE",
    "SSH", "SSO", "Saturdays", "SendGrid", "Sun", "Sunday", "Sundays", "TTLs", "Tailscale", "Terraform",
    "Terragrunt", "Thursday", "Turborepo", "UTC", "VM", "VPN", "Vault", "WAL", "Wednesday", "Wednesdays",
    "WireGuard", "Yarn", "You",
    })),
    Set("dedupe_unseen3.jsonl", "unseen3", 3000, 40, 450,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl"), frozenset({
    "ALB", "AM", "APNs", "AWS", "Android", "Anyone", "Argo", "Bug", "Bugsnag", "CD", "CI", "CSP", "CSV",
    "Checkly", "Command", "Content", "Crashlytics", "Credit", "Crowdin", "DB", "DBA", "Deprecation",
    "Desktop", "Docker", "During", "Emails", "Endpoints", "Envoy", "Essential", "FCM", "Firebase", "Flaky",
    "Flux", "Flyway", "Friday", "GCP", "Grype", "IAM", "IC", "IP", "IPs", "JWKS", "JWT", "Java", "Kinesis",
    "Laptop", "Liquibase", "Lokalise", "Looker", "MB", "ML", "Model", "Monday", "NAT", "NLB", "Nobody",
    "Opsgenie", "PM", "PR", "PagerDuty", "Parquet", "Patroni", "Pingdom", "Play", "Postgres", "Precedence",
    "Pushing", "QA", "Rails", "Redshift", "Rotating", "Ruby", "Runbooks", "SFTP", "SQS", "SRE", "Sentry",
    "Sev1", "Sev2", "Snowflake", "Stolon", "Storybook", "Sunset", "Targets", "Thursday", "Traefik", "Trivy",
    "Tue", "Tuesday", "Twilio", "URL", "Untagged", "Valkey", "Values", "Vonage",
    })),
    Set("dedupe_unseen4.jsonl", "unseen4", 4000, 40, 450,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl"), frozenset({
    "AGPL", "API", "AUC", "AWS", "AZs", "Acme", "Airbyte", "Alertmanager", "Amazon", "Android", "Apr", "April",
    "Backstage", "Bazel", "Bitrise", "BuildKit", "CDC", "CET", "CFO", "CI", "CPU", "CTO", "Chargebee",
    "ClickHouse", "Codemagic", "Consul", "Credit", "DB", "DBA", "DaemonSet", "Debezium", "Docker",
    "Dockerfile", "DynamoDB", "EM", "ENABLED", "EUR", "Escalation", "Estuary", "Expensify", "F1", "Feast",
    "FinOps", "Fivetran", "Fri", "Friday", "GCS", "GPL", "Gi", "Glacier", "Google", "GraphQL", "HMAC", "HPA",
    "Hub", "Idempotency", "Incoming", "Infrequent", "JVM", "Jaeger", "Jira", "Ki", "Kubernetes", "LGPL",
    "London", "MFA", "MPL", "March", "Mi", "Mon", "Monday", "MongoDB", "NetSuite", "Notion", "OAuth2", "Oct",
    "October", "Owners", "P1", "P2", "P2s", "P3", "PM", "POST", "PUT", "Password", "Play", "Pods", "RFC",
    "RFCs", "Ramp", "Redis", "Redocly", "Reporting", "Revenue", "S3", "SHA1", "SHA256", "SIGHUP", "SQLite",
    "SSH", "Sat", "September", "Some", "Spectral", "Sun", "Swagger", "TLS", "TOTP", "TTL", "TechDocs",
    "Tecton", "Teleport", "Tempo", "Terraform", "TestFlight", "Thu", "Thursday", "Tue", "Tuesday", "UI", "UTC",
    "Unreleased", "Usage", "VP", "X", "Xcode",
    })),
    Set("dedupe_unseen5.jsonl", "unseen5", 5000, 40, 450,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl"), frozenset({
    "ACM", "AES", "AMI", "AWS", "Action", "Adding", "Admin", "Amplitude", "Avro", "B3", "BI", "Backfills",
    "Bit", "Branch", "CAPTCHA", "CI", "CIDRs", "CNAMEs", "CPU", "ClickHouse", "CloudFront", "Contractors",
    "CycloneDX", "DBA", "DBAs", "DD", "DNS", "DaemonSet", "Deployment", "Dropping", "EBS", "ETL", "Encrypt",
    "Expectations", "Failed", "FinOps", "Fluent", "Frankfurt", "Fri", "GCP", "GE", "GPU", "GitHub",
    "GitLab", "Great", "HTTP", "Half", "Honeycomb", "Hostname", "IAM", "IDs", "IOPS", "IP", "IPs", "Istio",
    "JSON", "Jsonnet", "June", "K8s", "KMS", "KV", "Kafka", "Keeper", "Kubecost", "Kubernetes", "Kyverno",
    "LB", "Lightstep", "Linkerd", "Linux", "Loki", "MM", "MX", "March", "Mimir", "MinIO", "Mon", "Monday",
    "NULL", "OIDC", "OS", "Objects", "OpenCost", "OpenTelemetry", "PR", "PRs", "Parquet", "PgBouncer",
    "Plan", "Postgres", "Previously", "Prometheus", "Python", "RDS", "RF", "RIs", "RabbitMQ", "ReadOnly",
    "Renovate", "Route", "Routing", "RudderStack", "SA", "SBOM", "SBOMs", "SHA", "SHAs", "SLO", "Saturday",
    "Savings", "Scaling", "Scratch", "Segment", "Seventy", "Small", "Snowflake", "Sun", "Sunday", "Sundays",
    "Syft", "TGW", "TTL", "TTLs", "Terraform", "Test", "Thanos", "Tracing", "Trivy", "UI", "UTC",
    "Unlabelled", "VM", "VPC", "VPCs", "VPN", "Vault", "W3C", "WAF", "Websocket", "Windows", "YYYY",
    "ZeroSSL",
    })),
    Set("dedupe_unseen6.jsonl", "unseen6", 6000, 40, 450,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl"), frozenset({
    "A100", "A100s", "AA", "AAA", "AI", "APAC", "API", "Americas", "Android", "Auth0", "Avalara", "Awesome",
    "B", "Badge", "Biases", "Border", "CFO", "CI", "CODEOWNERS", "CSAT", "CSS", "CTO", "Compose", "Confluence", "Container",
    "DD", "During", "EM", "EMEA", "EU", "Electron", "English", "Fibonacci", "Figma", "Font", "Friday", "GPU",
    "GPUs", "H100", "January", "Jetpack", "June", "L", "Labelling", "Linear", "Lucide", "MB", "ML", "MLflow",
    "MM", "March", "Monday", "Mondays", "NPS", "PDF", "PDFs", "PM", "PMs", "Q3", "Q4", "QA", "SAML", "SCIM",
    "SSO", "Sales", "September", "Slack", "Stripe", "SwiftUI", "T", "Tab", "Thursday", "Tier", "Title",
    "Tuesday", "Tuesdays", "UIKit", "UK", "US", "UTC", "VAT", "VP", "WCAG", "Wednesdays", "Weights", "WorkOS",
    "XML", "YYYY", "Zendesk",
    })),
    Set("dedupe_unseen7.jsonl", "unseen7", 7000, 40, 450,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl", "dedupe_unseen6.jsonl"), frozenset({
    "AVIF", "Addresses", "Adyen", "Amex", "BFF", "Berlin", "Braintree", "CDN", "CET", "CMS", "CSV", "ClamAV",
    "Control", "Cookies", "DASH", "DD", "DS", "Display", "ECB", "ETag", "EUR", "Europe", "Exchange", "FFmpeg",
    "FX", "GB", "GBP", "HLS", "Handlebars", "Host", "HttpOnly", "IANA", "IETF", "IP", "IPs", "ISO", "JPY",
    "June", "K", "Lax", "MB", "MM", "Mailpit", "MediaConvert", "MessageGroupId", "Monday", "Mondays", "OTP",
    "Open", "Owners", "PUTs", "Postgres", "Precondition", "Presenting", "Pro", "Processing", "RateLimit",
    "Redis", "Relayed", "Remaining", "Reminders", "S3", "SDK", "SDKs", "SES", "SMS", "SQS", "SSO", "SVGs",
    "SameSite", "Secure", "Strict", "Stripe", "T09", "TTL", "Turning", "UK", "URL", "URLs", "USD", "UTC",
    "Unix", "WebP", "YYYY", "Z",
    })),
    Set("dedupe_unseen8.jsonl", "unseen8", 8000, 40, 450,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl", "dedupe_unseen6.jsonl",
         "dedupe_unseen7.jsonl"), frozenset({
    "AE", "ARR", "ATS", "Android", "Apr", "April", "Because", "Blocked", "CFO", "CSAT", "CSM", "CSMs", "CTO",
    "CalVer", "DE", "DPA", "DPAs", "DPO", "DSARs", "December", "Device", "EM", "ES", "EUR", "Eng", "English",
    "FR", "French", "Fri", "Friday", "Fridays", "German", "GitHub", "Google", "HR", "Hotfixes", "I", "ICU",
    "II", "Italian", "JA", "JAWS", "January", "Japanese", "June", "Korean", "Languages", "Laptop", "LinkedIn",
    "MM", "Manual", "March", "MessageFormat", "Mon", "Monday", "Mondays", "NDA", "NPS", "NVDA", "October",
    "Open", "PT", "Paging", "Playwright", "Portuguese", "Postmortems", "Previously", "Q2", "Q4", "QA", "QBR",
    "S1", "S2", "SOC", "SRE", "Sep", "September", "Sev1", "Sev2", "Sev3", "Signing", "Slack", "Spanish", "TM",
    "TMS", "TalkBack", "TestRail", "Thu", "Thursday", "Tue", "Tuesday", "Type", "Untranslated", "VP",
    "VoiceOver", "WIP", "Wed", "Wednesday", "Wednesdays", "Windows", "Working", "Xray", "YY", "YYYY",
    "Zephyr",
    })),
    Set("dedupe_unseen9.jsonl", "unseen9", 9000, 40, 450,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl", "dedupe_unseen6.jsonl",
         "dedupe_unseen7.jsonl", "dedupe_unseen8.jsonl"), frozenset({
    "AppError", "Black", "Codespaces", "Corretto", "Cypress", "DTZ", "Dublin", "EOL", "ErrXxx", "Errorf",
    "Europe", "FIXME", "Friday", "GOTOOLCHAIN", "Google", "HTML", "HTTP", "Helper", "I", "Java", "JavaScript",
    "Jest", "Literal", "Makefile", "Mocking", "Mon", "Monday", "Naming", "NumPy", "PR", "PRs", "Parallel",
    "PascalCase", "Playwright", "Postgres", "Prefer", "Put", "QA", "README", "React", "Refs", "SDK",
    "StrEnum", "TODO", "TODOs", "Temurin", "UTC", "UseSession", "UserCard", "Y", "Z", "ZoneInfo",
    })),
    Set("dedupe_unseen10.jsonl", "unseen10", 10000, 40, 450,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl", "dedupe_unseen6.jsonl",
         "dedupe_unseen7.jsonl", "dedupe_unseen8.jsonl", "dedupe_unseen9.jsonl"),
        frozenset({
    "API", "Android", "B", "BFF", "BGAppRefreshTask", "BIGINT", "CHECK", "CONCURRENTLY", "CRM", "CRUD", "CSV",
    "Changing", "DB", "DBA", "DNS", "DPA", "EXCLUSIVE", "GB", "GDPR", "GraphQL", "IDs", "IndexedDB", "JS",
    "JSON", "JavaScript", "KB", "Kafka", "LCP", "MB", "Multi", "N", "Noisy", "OAuth", "OS", "Ownership", "P1",
    "P2", "PDF", "PDFs", "PG", "PK", "PM", "Postgres", "Premium", "Promotion", "SLA", "SMALLINT", "SMS",
    "SPA", "SQLite", "SRE", "SSR", "Salesforce", "Sat", "Standard", "Sun", "Sunday", "TB", "TXT", "ULID",
    "ULIDs", "UTC", "UUIDv4s", "VALID", "VALIDATE", "Video", "WorkManager",
    })),
    Set("dedupe_unseen11.jsonl", "unseen11", 11000, 30, 350,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl", "dedupe_unseen6.jsonl",
         "dedupe_unseen7.jsonl", "dedupe_unseen8.jsonl", "dedupe_unseen9.jsonl", "dedupe_unseen10.jsonl"), frozenset({
    "ASTC", "Apache", "B", "BC1", "BC7", "BSP", "C", "CC", "CI", "CLA", "CRC32", "DCO", "ETC2", "Fi", "GPUs",
    "GitHub", "HTTPS", "Hz", "ID", "IMU", "ISR", "Identifier", "JTAG", "KB", "LFS", "LOD", "LOD0", "LOD1",
    "LOD2", "License", "Lua", "MCU", "MIT", "MPL", "MQTT", "Maintainership", "Most", "OTA", "PC", "PDF", "PI",
    "PR", "PRs", "Perforce", "Python", "Quarterly", "RAM", "RF", "RTOS", "Rendered", "Reproducibility",
    "SHA256SUMS", "SMS", "SPDX", "Saving", "Shadow", "Slurm", "Snakemake", "UART", "UI", "Unused",
    "Vulnerabilities", "Wi",
    })),
    Set("dedupe_unseen12.jsonl", "unseen12", 12000, 30, 350,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl", "dedupe_unseen6.jsonl",
         "dedupe_unseen7.jsonl", "dedupe_unseen8.jsonl", "dedupe_unseen9.jsonl", "dedupe_unseen10.jsonl",
         "dedupe_unseen11.jsonl"), frozenset({
    "API", "Analysts", "CET", "Card", "Customers", "Dropping", "ERP", "ETL", "Essays", "FHIR", "Fi", "Friday",
    "GBP", "HL7", "ID", "KMS", "LMS", "Leavers", "Leeds", "Low", "MDM", "MFA", "MKT", "MRN", "Madrid",
    "Offboarding", "P1", "P2", "P3", "PHI", "Patients", "Prod", "Reads", "Repairs", "Returns", "Rotterdam",
    "SFTP", "SIEM", "SIS", "SKU", "SSO", "SaaS", "Self", "TA", "TAs", "TLS", "UK", "VPN", "W", "Wi",
    })),
    Set("dedupe_unseen13.jsonl", "unseen13", 13000, 30, 350,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl", "dedupe_unseen6.jsonl",
         "dedupe_unseen7.jsonl", "dedupe_unseen8.jsonl", "dedupe_unseen9.jsonl", "dedupe_unseen10.jsonl",
         "dedupe_unseen11.jsonl", "dedupe_unseen12.jsonl"), frozenset({
    "AE", "AP", "API", "Amsterdam", "April", "B2B", "BI", "CFO", "CRM", "CSV", "Channel", "Dublin", "ERP", "EU", "EUR",
    "Employees", "Everything", "Expenses", "FP", "Friday", "GBP", "HR", "HRIS", "ID", "January", "June", "London", "MA",
    "MQL", "Manual", "March", "Monday", "NDAs", "October", "Overdue", "PDF", "PO", "Payslips", "Reps", "SDR", "SFTP",
    "September", "Sick", "Staff", "Thursday", "Tuesday", "UK", "USD", "UTM", "UTMs", "Unsubscribes", "VAT",
    "VIES", "WD5",
    })),
    Set("dedupe_unseen14.jsonl", "unseen14", 14000, 30, 350,
        ("dedupe_roles.jsonl", "dedupe_pairs.jsonl", "dedupe_unseen.jsonl", "dedupe_unseen2.jsonl",
         "dedupe_unseen3.jsonl", "dedupe_unseen4.jsonl", "dedupe_unseen5.jsonl", "dedupe_unseen6.jsonl",
         "dedupe_unseen7.jsonl", "dedupe_unseen8.jsonl", "dedupe_unseen9.jsonl", "dedupe_unseen10.jsonl",
         "dedupe_unseen11.jsonl", "dedupe_unseen12.jsonl", "dedupe_unseen13.jsonl"), frozenset({
    "ACW", "AM", "Agents", "B", "C", "Cabling", "DB", "DC", "DCIM", "DR", "ERP", "FW", "Fri", "GPS", "HSM",
    "IC", "IVR", "Mon", "Monday", "OK", "PDU", "PDUs", "PM", "PSU", "PSUs", "Paging", "RPO", "RTO", "Racks",
    "Ready", "SIP", "SMS", "SRE", "Sat", "Saturday", "Sun", "Sunday", "ToR", "Tuesday", "UPS", "UTC",
    "Voicemails", "WMS", "We",
    })),
]


def _load(name):
    return [json.loads(line) for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module", params=SETS, ids=[s.split for s in SETS])
def case(request):
    return request.param


@pytest.fixture(scope="module")
def pairs(case):
    return _load(case.file)


def test_every_line_has_the_fields_of_the_older_sets_in_their_order(case, pairs):
    assert list(_load("dedupe_roles.jsonl")[0]) == FIELDS
    for p in pairs:
        assert list(p) == FIELDS, p
        assert isinstance(p["group"], int) and p["group"] >= case.first_group, p
        assert p["split"] == case.split, p
        assert isinstance(p["dup"], bool), p
        assert isinstance(p["kind"], str) and re.fullmatch(r"[a-z]+(-[a-z]+)*", p["kind"]), p
        for side in ("a", "b"):
            assert isinstance(p[side], str) and p[side] == p[side].strip() and len(p[side]) >= 10, p
        assert p["a"] != p["b"], p


def test_size_and_balance(case, pairs):
    groups = {p["group"] for p in pairs}
    assert len(groups) >= case.groups
    assert len(pairs) >= case.pairs
    assert sum(not p["dup"] for p in pairs) / len(pairs) >= 0.45
    assert sum(p["dup"] for p in pairs) >= 150
    # groups are numbered apart from the older sets
    older = {p["group"] for name in case.older for p in _load(name)}
    assert not groups & older


def test_labels_follow_the_kinds(pairs):
    labels = defaultdict(set)
    for p in pairs:
        labels[p["kind"]].add(p["dup"])
    for kind, seen in labels.items():
        if kind in BOTH_KINDS:
            assert seen == {True, False}, kind
        elif kind in SAME_KINDS:
            assert seen == {True}, kind
        else:
            assert seen == {False}, kind
    for kind in ("rewording", "contrast", "negation", "no-longer", "swap-roles", "swap-numbers",
                 "reverse-direction", "swap-order", "swap-places", "swap-owners", "changed-number",
                 "changed-owner", "changed-modifier", "frequency", "added-detail", "related-fact"):
        assert kind in labels, kind


def test_no_pair_is_listed_twice(pairs):
    seen = Counter(frozenset((p["a"], p["b"])) for p in pairs)
    assert [sorted(k) for k, n in seen.items() if n > 1] == []


def test_each_group_has_both_labels_and_keeps_to_itself(pairs):
    by_group = defaultdict(list)
    owner = {}
    for p in pairs:
        by_group[p["group"]].append(p)
        for side in ("a", "b"):
            assert owner.setdefault(p[side], p["group"]) == p["group"], f"{p[side]!r} is in two groups"
    for group, rows in by_group.items():
        assert {p["dup"] for p in rows} == {True, False}, group


def test_labels_agree_with_each_other(pairs):
    """Sentences linked by "same" form one fact; no "different" pair may join two sentences of one fact."""
    parent = {}

    def root(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in pairs:
        if p["dup"]:
            parent[root(p["a"])] = root(p["b"])
    clashes = [(p["a"], p["b"]) for p in pairs if not p["dup"] and root(p["a"]) == root(p["b"])]
    assert clashes == []


def test_no_sentence_from_the_older_sets(case, pairs):
    older = {p[side] for name in case.older for p in _load(name)
             for side in ("a", "b")}
    mine = {p[side] for p in pairs for side in ("a", "b")}
    assert not mine & older


def test_no_person_names_beyond_the_projects_own(case, pairs):
    texts = {p[side] for p in pairs for side in ("a", "b")}
    words = {w for t in texts for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", t)}
    lower = {w for w in words if w[0].islower()}
    capitalised = {w for w in words if w[0].isupper() and w.lower() not in lower}
    assert capitalised - PERSON_NAMES - case.proper == set(), \
        "a new capitalised word: add it to the set's proper words if it is no person's name"
