"""Secret redaction: every rule fires on its kind of secret, ordinary text is left alone."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain_core.redact import Redacted, redact, shannon_entropy
from tests.helpers import paths as test_paths

FIXTURES = test_paths.FIXTURES / "clients"

# Fake secrets, one or more per rule, built so that no real key is ever written down.
SECRETS = {
    "openai-key": [
        "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kL9nP2rS5uX8",
        "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0",
        "sk-" + "Xy12Ab34Cd56Ef78Gh90" + "T3BlbkFJ" + "Ij12Kl34Mn56Op78Qr90",
    ],
    "anthropic-key": ["sk-ant-api03-" + "aB3cD5eF7gH9iJ1kL3mN5oP7qR9sT1uV3wX5yZ7aB9cD1eF3gH5iJ7kL9mN1oP3qR5sT7uV9wX1yZ3aB5cD7eF9gH1iJ3kL5mN7oP9qR1s-AA"],
    "aws-key": ["AKIA" + "IOSFODNN7EXAMPLE", "ASIA" + "Y34FZKBOKMUTVV7A"],
    "github-token": ["ghp_" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2", "github_pat_" + "11ABCDEFG0" + "a" * 20 + "_" + "B2" * 25],
    "gitlab-token": ["glpat-" + "xY9zW8vU7tS6rQ5pO4nM"],
    "slack-token": ["xoxb-" + "1234567890123-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
                    "https://hooks.slack.com/services/" + "T00000000/B00000000/" + "XXXXXXXXXXXXXXXXXXXXXXXX"],
    "stripe-key": ["sk_live_" + "51HxFAKEq2w3e4r5t6y7u8i9o0pFAKEFAKE00", "rk_test_" + "4eC39HqLyjWDarjtT1zdp7dc"],
    "google-key": ["AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "GOCSPX-" + "1a2B3c4D5e6F7g8H9i0J1k2L3m4N"],
    "jwt": ["eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"],
}

IN_CONTEXT = [
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws-secret", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("the aws key AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws-secret",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("it was wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, no context", "high-entropy", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    # (text, rule expected to fire, the secret that must disappear)
    ("DATABASE_URL=postgres://billing:Tr0ub4dor-and-3@db.internal:5432/ledger", "url-password", "Tr0ub4dor-and-3"),
    ('password = "hunter2hunter2"', "secret-assignment", "hunter2hunter2"),
    ("DB_PASSWORD=correcthorsebattery", "secret-assignment", "correcthorsebattery"),
    ('{"client_secret": "q8Zr-Wl2pXv9"}', "secret-assignment", "q8Zr-Wl2pXv9"),
    ("api_key: 9f8e7d6c5b4a39281706a1b2", "secret-assignment", "9f8e7d6c5b4a39281706a1b2"),
    ("mysql -u root --password=s3cretPass! db", "secret-assignment", "s3cretPass!"),
    ("Authorization: Bearer abcDEF123456ghiJKL789012mnoPQR", "bearer-token", "abcDEF123456ghiJKL789012mnoPQR"),
    ("the blob Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJD leaked", "high-entropy",
     "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJD"),
]

PRIVATE_KEY = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
               "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----")

# Ordinary text that must come through untouched.
CLEAN = [
    "We decided to retry webhooks with exponential backoff, capped at six attempts, because the ledger API returns 503 during deploys.",
    "Use an sk_test_ key for staging and never paste a live key into a chat.",
    "The password reset flow sends a token by email; the token expires after 15 minutes.",
    "commit 9c1e5b7a2d4f6e8a0b1c3d5e7f9a1b3c5d7e9f0a fixed the retry loop",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 of the empty string",
    "thread 019ec8a2-5b3d-7e41-9c2a-3f4d5e6a7b8c and session 7f3c2a9e-4b1d-4c8e-9a2f-5d6e8b1c0a47",
    "record 20260822-194402117-c81e2f supersedes 20260821-101010123-aa11bb",
    "key=webhook-retry-policy profile=codex max_tokens=800 token_count=14822",
    "token = make_token(user_id)",
    "password: str = Field(..., min_length=12)",
    "secret = os.environ['STRIPE_SECRET_KEY']",
    "api_key = settings.OPENAI_API_KEY",
    "if not token: raise AuthError('missing token')",
    "self.access_token = refresh_token",
    "AbstractSingletonProxyFactoryBeanConfigurationLoader2 is the class that loads config",
    "tests/test_webhooks.py::test_redelivers_on_503_with_backoff_and_jitter PASSED",
    "/home/dev/acme-billing/src/webhooks/stripe_webhook_handler_v2/retry_with_backoff.py",
    "https://github.com/acme/acme-billing/blob/9c1e5b7a2d4f6e8a0b1c3d5e7f9a1b3c5d7e9f0a/src/Webhooks.py",
    "Secret: stored in the vault, ask the on-call engineer.",
    "The API key is in 1Password under 'Stripe'.",
    "export PATH=$HOME/.local/bin:$PATH",
    "http://localhost:8000/internal/ledger and https://staging-dev42.acme.internal",
    "msg_01QeZ7bW3nR5xY8tK2mV4pLs toolu_01Read0000000000000000001 call_Kx1aB2cD3eF4gH5iJ6kL7mN8",
    "Retry every outbound webhook with exponential backoff (base 2s, doubling, at most 5 min between tries).",
    "postgres://localhost:5432/app uses peer auth, no password",
    "password=${DB_PASSWORD} and token=<your token here> and secret=changeme",
]


@pytest.mark.parametrize("rule,secret", [(r, s) for r, ss in SECRETS.items() for s in ss])
def test_each_rule_masks_its_secret(rule, secret):
    text = f"here it is: {secret} (do not share)"
    out = redact(text)
    assert secret not in out.text
    assert f"[REDACTED:{rule}]" in out.text, out.text
    assert out.rules == [rule]
    assert out.text.startswith("here it is: ") and out.text.endswith(" (do not share)")


@pytest.mark.parametrize("text,rule,secret", IN_CONTEXT)
def test_secrets_in_context(text, rule, secret):
    out = redact(text)
    assert secret not in out.text
    assert rule in out.rules, (out.text, out.rules)


def test_private_key_block_terminated_and_torn():
    out = redact(f"key:\n{PRIVATE_KEY}\nend")
    assert "MIIEow" not in out.text and out.rules == ["private-key"]
    assert out.text.startswith("key:\n[REDACTED:private-key]") and out.text.endswith("\nend")
    torn = PRIVATE_KEY.split("-----END")[0]  # a trimmed transcript cut the block
    assert "MIIEow" not in redact(torn).text


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_text_is_left_alone(text):
    out = redact(text)
    assert out.text == text, out.findings
    assert out.findings == ()


def test_findings_say_where_but_never_what():
    secret = SECRETS["github-token"][0]
    text = f"token {secret} and AKIA" + "IOSFODNN7EXAMPLE"
    out = redact(text)
    assert [f.rule for f in out.findings] == ["github-token", "aws-key"]
    for f in out.findings:
        assert set(f.to_dict()) == {"rule", "start", "end"}
        assert secret not in repr(f)
    assert text[out.findings[0].start:out.findings[0].end] == secret


def test_fixture_secrets_are_all_masked():
    planted = ["sk_live_51HxFAKEq2w3e4r5t6y7u8i9o0pFAKEFAKE00", "AKIAIOSFODNN7EXAMPLE",
               "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]
    for name in ("claude_code_session.jsonl", "codex_rollout.jsonl", "gemini_chat.jsonl", "gemini_GEMINI.md",
                 "claude_CLAUDE.local.md"):
        text = (FIXTURES / name).read_text(encoding="utf-8")
        assert any(p in text for p in planted)
        out = redact(text)
        for p in planted:
            assert p not in out.text, (name, p)


def test_masks_are_stable_when_redacted_again():
    text = "STRIPE_SECRET_KEY=sk_live_51HxFAKEq2w3e4r5t6y7u8i9o0pFAKEFAKE00 password=hunter2hunter2"
    once = redact(text)
    assert redact(once.text).text == once.text
    assert redact(once.text).findings == ()


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_redaction_is_idempotent_and_total(text):
    once = redact(text)
    assert isinstance(once, Redacted)
    assert redact(once.text).text == once.text
    for f in once.findings:
        assert 0 <= f.start < f.end <= len(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from("the a retry webhook ledger cap six because we decided never always deploy "
                                "backoff attempts table queue billing stripe test fixture handler".split()),
                min_size=3, max_size=40))
def test_prose_from_ordinary_words_is_never_masked(words):
    text = " ".join(words).capitalize() + "."
    assert redact(text).text == text


def test_entropy_helper():
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("abcd") == pytest.approx(2.0)


def test_empty_and_plain():
    assert redact("").text == ""
    assert redact("hello").findings == ()


def test_mask_format():
    out = redact("AKIA" + "IOSFODNN7EXAMPLE")
    assert re.fullmatch(r"\[REDACTED:aws-key\]", out.text)
