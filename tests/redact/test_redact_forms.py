"""The rules added for issue 13, one by one, each with near misses that must stay as they are."""

from __future__ import annotations

import base64

import pytest

from brain_core.redact import redact

HEX32 = "9f3c2a7e4b1d8c6f0a5e9d2b7c4f1a8e"

# (text, the secret that must disappear, the rule that must name it)
CAUGHT = [
    # a URL with a password and no user
    ("REDIS_URL=redis://:Rp4ssWd77x@cache:6379/0", "Rp4ssWd77x", "url-password"),
    ("amqp://:guest42@mq.internal:5672", "guest42", "url-password"),
    # command lines
    ("mysql -u root -phunter2 ledger", "hunter2", "command-line-password"),
    ("mysqldump -h db -uadmin -p'S3cr3t!' shop > dump.sql", "S3cr3t!", "command-line-password"),
    ("sshpass -p zq9Xh2 ssh deploy@10.0.0.7", "zq9Xh2", "command-line-password"),
    ("sshpass -e -p hunter2 scp a b", "hunter2", "command-line-password"),
    ("curl -u admin:pw42 https://api.internal/v1/jobs", "pw42", "command-line-password"),
    ("curl -s --user=deploy:Tango7 https://ci.internal/hook", "Tango7", "command-line-password"),
    # prose
    ("my password is hunter2", "hunter2", "password-in-prose"),
    ("The wifi password is swordfish.", "swordfish", "password-in-prose"),
    ("ok so the admin password was 'blue horse 42' until Monday", "blue horse 42", "password-in-prose"),
    ("the PIN is 4821.", "4821", "password-in-prose"),
    ("the api key is Zx81mQ2pL0", "Zx81mQ2pL0", "password-in-prose"),
    # env blocks
    ("SECRET_KEY_BASE=" + HEX32 * 2, HEX32 * 2, "env-secret"),
    ("export DJANGO_SECRET_KEY_FALLBACK=k3y-value-x9", "k3y-value-x9", "env-secret"),
    ("STRIPE_SECRET_LIVE='abcdef123456'", "abcdef123456", "env-secret"),
    # providers carried over from gitleaks, and Mailgun's bare form
    ("twilio: SK" + HEX32, "SK" + HEX32, "twilio-api-key"),
    ("the key is key-" + HEX32, "key-" + HEX32, "mailgun-key"),
    ("client secret abc8Q~" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3h", "abc8Q~Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3h",
     "azure-ad-client-secret"),
    ("SG." + "aB3cD5eF7gH9iJ1kL3mN5o" + "." + "pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3r", "aB3cD5eF7gH9iJ1kL3mN5o",
     "sendgrid-api-token"),
    ("//registry/:_authToken in .npmrc is npm_" + "aB3cD5eF7gH9iJ1kL3mN5oP7qR9sT1uV3wX5", "npm_aB3cD5eF7gH9iJ1kL3mN5oP7qR9sT1uV3wX5", "npm-access-token"),
    ("dapi" + HEX32 + " is the databricks token", "dapi" + HEX32, "databricks-api-token"),
    # short or plain-word passwords in assignments
    ("password = hunter2", "hunter2", "secret-assignment"),
    ("password: swordfish", "swordfish", "secret-assignment"),
    ("DB password=abc", "abc", "secret-assignment"),
    ('{"password": "x9z"}', "x9z", "secret-assignment"),
    # invisible characters inside a key
    ("token AKIA\u200bIOSFODNN7\u200dEXAMPLE here", "IOSFODNN7", "aws-key"),
    ("ghp_\u2060" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2", "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2", "github-token"),
    # base64 of a secret
    (base64.b64encode(b"password=hunter2hunter2").decode(), base64.b64encode(b"password=hunter2hunter2").decode(),
     "encoded-secret"),
    ("creds " + base64.urlsafe_b64encode(b"AKIAIOSFODNN7EXAMPLE").decode(), base64.urlsafe_b64encode(b"AKIAIOSFODNN7EXAMPLE").decode(),
     "encoded-secret"),
]

# Near misses: the same words and shapes with no secret in them.
CLEAN = [
    "http://localhost:8080/health and https://example.com/@someone",
    "postgres://localhost:5432/app uses peer auth",
    "mysql -u root -p ledger  # asks for the password",
    "mkdir -p build && cp -p a b",
    "mysql -P3306 -h db ledger",
    "sshpass -f ~/.pw ssh deploy@host",
    "curl -u admin https://api.internal/v1/jobs  # prompts",
    "git diff -u HEAD:src/a.py",
    "curl -u $USER:$TOKEN https://api.internal",
    "The password is stored in the vault.",
    "the token is valid for an hour.",
    "The secret is practice.",
    "your password is required",
    "the password was correct the second time",
    "the token is 3600 seconds long",
    "MAX_TOKENS=800 and TOKEN_TTL=3600",
    "SECRET_KEY_PATH=/etc/app/key.pem",
    "PASSWORD_MIN_LENGTH=12",
    "SECRET_KEY_BASE=${SECRET_KEY_BASE}",
    "SKU12345 shipped, SK" + "0" * 32 + " is all zeros",
    "key-value-store and key-" + HEX32[:31] + " is too short",
    "the Q~ operator and 8Q~ alone",
    "password = password",
    "login(user, password=pw)",
    "password = get_password()",
    "password = self.password",
    "password: str = Field(...)",
    "password = Swordfish",
    "userid = passwd = acct = ''",
    "a family 👨\u200d👩\u200d👧 and a soft\u00adhyphen",
    base64.b64encode(b"hello there, all fine").decode(),
    "AbstractSingletonProxyFactoryBean",
]


@pytest.mark.parametrize("text,secret,rule", CAUGHT)
def test_each_form_is_caught(text, secret, rule):
    out = redact(text)
    assert secret not in out.text, out.text
    assert rule in out.rules, (out.text, out.rules)


@pytest.mark.parametrize("text", CLEAN)
def test_near_misses_are_left_alone(text):
    out = redact(text)
    assert out.text == text and out.findings == (), out.rules


def test_invisible_characters_outside_a_secret_are_kept():
    text = "a\u200bb AKIA\u200bIOSFODNN7EXAMPLE c\u200dd"
    out = redact(text)
    assert out.text == "a\u200bb [REDACTED:aws-key] c\u200dd"
    f = out.findings[0]
    assert text[f.start:f.end] == "AKIA\u200bIOSFODNN7EXAMPLE"


def test_a_secret_said_across_lines_of_prose():
    out = redact("so the password is\nhunter2 for now")
    assert "hunter2" not in out.text


def test_gitleaks_rules_are_carried_with_attribution():
    from brain_core.redact import gitleaks as redact_gitleaks

    assert "MIT License" in redact_gitleaks.__doc__ and "gitleaks" in redact_gitleaks.__doc__
    assert len(redact_gitleaks.RULES) > 200
    ids = {r[0] for r in redact_gitleaks.RULES}
    assert {"twilio-api-key", "azure-ad-client-secret", "sendgrid-api-token", "curl-auth-user"} <= ids


KEYS = ["webhook-retry-policy", "password-reset-flow", "api-key-rotation", "token-budget", "secret-santa-2026",
        "my-password-manager", "key-value-store", "pin-code-length", "sshpass-install", "mysql-p-flag"]


@pytest.mark.parametrize("key", KEYS)
def test_ordinary_keys_and_file_names_pass_the_gate_unchanged(key):
    from brain_core.redact import scrub

    assert scrub.clean_key(key) == key
    assert scrub.path(f"memories/me/{key}.json") == f"memories/me/{key}.json"


def test_no_chat_turn_slug_is_taken_for_a_secret(shared_dir):
    """Every LoCoMo utterance (read in place) as a key and a meeting file name: none is changed."""
    import json

    from brain_core.redact import scrub
    from brain_core.text.slug import slugify

    path = shared_dir / "bench" / "locomo" / "locomo10.json"
    if not path.exists():
        pytest.skip("../shared/bench/locomo is not present")
    turns = [t["text"] for s in json.loads(path.read_text(encoding="utf-8")) for k, v in s["conversation"].items()
             if k.startswith("session_") and isinstance(v, list) for t in v if t.get("text")]
    assert len(turns) > 5000
    changed = [t for t in turns if scrub.clean_key(slugify(t)) != slugify(t)
               or scrub.path(f"meetings/{slugify(t, max_words=8)}.md") != f"meetings/{slugify(t, max_words=8)}.md"]
    assert changed == []


def test_a_json_file_stays_json_when_masking_would_break_it():
    import json

    from brain_core.redact import scrub

    text = json.dumps({"a": {"password": "hunter2"}, "b": ["x", "AKIA" + "IOSFODNN7EXAMPLE"]})
    out = scrub.file_text("harvest/x.json", text)
    data = json.loads(out)
    assert data["a"]["password"].startswith("[REDACTED") and data["b"][1] == "[REDACTED:aws-key]"
    assert scrub.file_text("notes.md", "plain") == "plain"
