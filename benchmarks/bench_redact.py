"""Secret redaction: secrets caught, ordinary lines masked by mistake, and throughput.

    .venv/bin/python benchmarks/bench_redact.py [--seed 7] [--secrets 50] [--rounds 5]

The corpus is made here, from a fixed seed:
- secrets: ``--secrets`` random fakes per kind (OpenAI, Anthropic, AWS key id and secret, GitHub,
  GitLab, Slack, Stripe, Google, JWT, private key, password in a URL, ``password=`` style
  assignments, bare high-entropy tokens), each planted in a line of the kind people paste
  (env files, JSON, shell, prose); and the forms of issue 13: a URL password without a user,
  ``mysql -pPW``, ``curl -u user:pw``, ``sshpass -p pw``, a password said in prose, env blocks
  (``SECRET_KEY_BASE=<hex>``), Twilio ``SK...``, Mailgun ``key-...``, Azure AD client secrets,
  short or plain-word passwords in assignments, a key with zero-width characters inside, and
  base64 of a secret;
- ordinary lines: every utterance of the LoCoMo conversations when
  ../shared/bench/locomo/locomo10.json is present (read in place), the Python standard library's
  own source lines (code, identifiers, assignments to ``token``/``password``; split into the
  modules looked at while the rules were tuned and the ones held out), and generated git SHAs,
  UUIDs, Aida record ids and file paths.
A secret counts as caught when none of it is left in the output; an ordinary line counts as a
false positive when anything in it was masked.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import statistics
import string
import sys
import sysconfig
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brain_core.redact import redact  # noqa: E402

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo" / "locomo10.json"
ALNUM = string.ascii_letters + string.digits


def rs(rng, n, alphabet=ALNUM):
    return "".join(rng.choice(alphabet) for _ in range(n))


def fake_secrets(rng: random.Random) -> dict[str, str]:
    b64 = ALNUM + "+/"
    jwt_part = lambda n: base64.urlsafe_b64encode(rng.randbytes(n)).decode().rstrip("=")  # noqa: E731
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = base64.urlsafe_b64encode(json.dumps({"sub": rs(rng, 8), "iat": rng.randint(10**9, 2 * 10**9)}).encode()).decode().rstrip("=")
    pem = "\n".join(base64.b64encode(rng.randbytes(48)).decode() for _ in range(6))
    return {
        "openai": "sk-proj-" + rs(rng, 48, ALNUM + "_-"),
        "openai-legacy": "sk-" + rs(rng, 20) + "T3BlbkFJ" + rs(rng, 20),
        "anthropic": "sk-ant-api03-" + rs(rng, 93, ALNUM + "_-") + "AA",
        "aws-key": "AKIA" + rs(rng, 16, string.ascii_uppercase + "234567"),
        "aws-secret": rs(rng, 40, b64),
        "github": "ghp_" + rs(rng, 36),
        "github-fine": "github_pat_" + rs(rng, 22) + "_" + rs(rng, 59),
        "gitlab": "glpat-" + rs(rng, 20, ALNUM + "_-"),
        "slack": "xoxb-" + rs(rng, 12, string.digits) + "-" + rs(rng, 12, string.digits) + "-" + rs(rng, 24),
        "stripe": rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + rs(rng, 32),
        "google": "AIza" + rs(rng, 35, ALNUM + "_-"),
        "jwt": f"{header}.{claims}.{jwt_part(32)}",
        "private-key": f"-----BEGIN OPENSSH PRIVATE KEY-----\n{pem}\n-----END OPENSSH PRIVATE KEY-----",
        "url-password": rs(rng, 14, ALNUM + "!*-_"),
        "password": rs(rng, 12, ALNUM + "!#%*"),
        "high-entropy": rs(rng, 48, ALNUM),
        # issue 13's forms
        "url-no-user": rs(rng, 10, ALNUM + "!*-_"),
        "mysql-p": rs(rng, rng.randint(6, 14), ALNUM + "!#%"),
        "curl-u": rs(rng, rng.randint(4, 14), ALNUM + "!*-_"),
        "sshpass": rs(rng, rng.randint(4, 14), ALNUM + "!#%"),
        "prose-password": rng.choice([rs(rng, 8, ALNUM), rng.choice(WORDS) + str(rng.randint(1, 99)),
                                      rng.choice(WORDS)]),
        "env-block": rs(rng, 64, "0123456789abcdef"),
        "twilio": "SK" + rs(rng, 32, "0123456789abcdef"),
        "mailgun": "key-" + rs(rng, 32, "0123456789abcdef"),
        "azure-ad": rs(rng, 3, ALNUM) + str(rng.randint(0, 9)) + "Q~" + rs(rng, 34, ALNUM + "_~.-"),
        "short-password": rng.choice([rs(rng, rng.randint(3, 5), ALNUM), rng.choice(WORDS)]),
        "zero-width": ZW.join(["ghp_" + rs(rng, 12), rs(rng, 12), rs(rng, 12)]),
        "base64-secret": base64.b64encode(f"password={rs(rng, 10, ALNUM)}".encode()).decode(),
    }


WORDS = ["swordfish", "tangerine", "bluehorse", "marmalade", "letmein", "sunflower", "dragonfly", "pelican"]
ZW = "\u200b"


def plant(kind: str, secret: str, rng: random.Random) -> str:
    if kind == "url-no-user":
        return rng.choice([f"REDIS_URL=redis://:{secret}@cache.internal:6379/0",
                           f"connect with amqp://:{secret}@mq.internal:5672 please"])
    if kind == "mysql-p":
        return rng.choice([f"mysql -u root -p{secret} ledger", f"mysqldump -h db -uadmin -p{secret} shop > dump.sql"])
    if kind == "curl-u":
        return rng.choice([f"curl -u admin:{secret} https://api.internal/v1/jobs",
                           f"curl -s --user deploy:{secret} https://ci.internal/hook"])
    if kind == "sshpass":
        return f"sshpass -p {secret} ssh deploy@10.0.0.{rng.randint(2, 250)}"
    if kind == "prose-password":
        return rng.choice([f"my password is {secret}", f"The wifi password is {secret}.",
                           f"ok so the admin password was '{secret}' until Monday"])
    if kind == "env-block":
        return rng.choice([f"SECRET_KEY_BASE={secret}", f"export RAILS_SECRET_KEY_BASE={secret}",
                           f"DJANGO_SECRET_KEY_FALLBACK={secret}"])
    if kind == "short-password":
        return rng.choice([f"password = {secret}", f"password: {secret}", f"DB password={secret}",
                           f'"password": "{secret}"'])
    if kind in ("twilio", "mailgun", "azure-ad", "zero-width", "base64-secret"):
        return rng.choice([f"the key is {secret}", f"value: {secret}", f"I pasted {secret} by mistake"])
    if kind == "url-password":
        return f"DATABASE_URL=postgres://billing:{secret}@db.internal:5432/ledger"
    if kind == "password":
        return rng.choice([f"DB_PASSWORD={secret}", f'"password": "{secret}"', f"password = '{secret}'",
                           f"mysql -u root --password={secret} ledger"])
    if kind == "aws-secret":
        return rng.choice([f"AWS_SECRET_ACCESS_KEY={secret}", f"aws_secret_access_key = {secret}",
                           f"the aws secret is {secret}"])
    if kind == "private-key":
        return f"here is the deploy key:\n{secret}\nplease add it"
    templates = [f"export TOKEN_VALUE={secret}", f'{{"key": "{secret}"}}', f"I pasted {secret} by mistake",
                 f"curl -H 'Authorization: Bearer {secret}' https://api.example.com", f"value: {secret}"]
    return rng.choice(templates)


def ordinary_lines(rng: random.Random) -> dict[str, list[str]]:
    corpora: dict[str, list[str]] = {}
    if LOCOMO.exists():
        data = json.loads(LOCOMO.read_text(encoding="utf-8"))
        lines = []
        for sample in data:
            conv = sample["conversation"]
            for k, v in conv.items():
                if k.startswith("session_") and isinstance(v, list):
                    lines += [turn["text"] for turn in v if turn.get("text")]
        corpora["locomo prose"] = lines
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    # The first 120 modules were looked at while the rules were written; the rest were not.
    for name, paths in (("stdlib code (seen)", stdlib[:120]), ("stdlib code (held out)", stdlib[120:])):
        code = []
        for path in paths:
            try:
                code += [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
            except (OSError, UnicodeDecodeError):
                continue
        corpora[name] = code
    ids = []
    for _ in range(2000):
        ids.append(f"commit {rs(rng, 40, '0123456789abcdef')} fixed it")
        ids.append(f"thread {uuid.uuid4()} done")
        ids.append(f"record 2026{rng.randint(1000, 1231)}-{rng.randint(10**8, 10**9 - 1)}-{rs(rng, 6, '0123456789abcdef')}")
        ids.append(f"/home/dev/{rs(rng, 8, string.ascii_lowercase)}/src/{rs(rng, 6, string.ascii_lowercase)}_v2/handler.py")
    corpora["ids and paths"] = ids
    return corpora


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--secrets", type=int, default=50, help="fakes per kind")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    caught: dict[str, list[bool]] = {}
    planted = []
    for _ in range(args.secrets):
        for kind, secret in fake_secrets(rng).items():
            line = plant(kind, secret, rng)
            planted.append(line)
            out = redact(line).text
            leaked = secret in out or secret.replace(ZW, "") in out \
                or any(chunk in out for chunk in secret.split("\n") if len(chunk) >= 12) \
                or (kind == "zero-width" and any(chunk in out for chunk in secret.split(ZW)))
            caught.setdefault(kind, []).append(not leaked)
    total = sum(len(v) for v in caught.values())
    hit = sum(sum(v) for v in caught.values())
    print(f"secrets caught: {hit}/{total} ({100 * hit / total:.1f}%)")
    for kind, v in caught.items():
        print(f"  {kind}: caught {sum(v)}/{len(v)}")

    corpora = ordinary_lines(rng)
    all_lines = []
    for name, lines in corpora.items():
        bad = [ln for ln in lines if redact(ln).findings]
        all_lines += lines
        print(f"ordinary lines masked by mistake, {name}: {len(bad)}/{len(lines)} ({100 * len(bad) / max(1, len(lines)):.3f}%)")
        for ln in bad[:5]:
            print(f"    e.g. [{', '.join(redact(ln).rules)}] {ln.strip()[:100]}")

    text = "\n".join(all_lines[:20000] + planted)
    # Wall time, and CPU time (what a busy shared machine does not inflate), medians of the rounds.
    times, cpu = [], []
    for _ in range(args.rounds):
        t0, c0 = time.perf_counter(), time.process_time()
        redact(text)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    med, cmed = statistics.median(times), statistics.median(cpu)
    print(f"throughput: {len(text) / med / 1e6:.2f} MB/s wall, {len(text) / cmed / 1e6:.2f} MB/s CPU "
          f"(median of {args.rounds}, {len(text):,} characters)")
    short = "We decided to retry webhooks with exponential backoff, capped at six attempts, because the ledger returns 503."
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(5000):
        redact(short)
    print(f"one record body ({len(short)} chars): {(time.perf_counter() - t0) / 5000 * 1e6:.1f} us wall, "
          f"{(time.process_time() - c0) / 5000 * 1e6:.1f} us CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
