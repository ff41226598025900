"""Redaction at the edges of its rules: each threshold and exception, from both sides.

A case is (text, what it must become). ``M(rule)`` stands for that rule's mask. Secrets here are
made up for the test; none is a real key.
"""

from __future__ import annotations

import re

import pytest

from brain_core.redact import MASK, _rx, redact


def M(rule: str) -> str:
    return MASK.format(rule)


A = M("secret-assignment")

CASES = [
    # a quoted or env-style literal is a secret, short ones too (issue 13: "hunter2", "hun3r")
    ('password: "hunt3r"', f'password: "{A}"'),
    ('password: "hun3r"', f'password: "{A}"'),
    # placeholders, references and already-masked values stay
    ('password = "changeme"', 'password = "changeme"'),
    ('password = "your_password_here"', 'password = "your_password_here"'),
    ("mysql --password=${DB_PASS?unset} db", "mysql --password=${DB_PASS?unset} db"),
    ("mysql --password=$(cat /run/secrets/db) db", "mysql --password=$(cat /run/secrets/db) db"),
    (f"mysql --password=[REDACTED:x]{'y' * 4} db", f"mysql --password=[REDACTED:x]{'y' * 4} db"),
    # digits only: a secret when quoted and 12 or more long
    ('pin_secret = "123456789012"', f'pin_secret = "{A}"'),
    ('pin_secret = "12345678901"', 'pin_secret = "12345678901"'),
    ("pin_secret = 123456789012", "pin_secret = 123456789012"),
    # unquoted in code: a sigil or a path first is a reference, not a literal
    ("token = /etc/app/token.txt", "token = /etc/app/token.txt"),
    ("token = $1abcdefgh", "token = $1abcdefgh"),
    ("token = %TOKEN_VALUE%", "token = %TOKEN_VALUE%"),
    ("token = @inject_provider9", "token = @inject_provider9"),
    ("secret = ~/.secrets/prod", "secret = ~/.secrets/prod"),
    ("token = &tokenBuffer99", "token = &tokenBuffer99"),
    ("password = #not-set-yet", "password = #not-set-yet"),
    ("secret = !vault9-prod", "secret = !vault9-prod"),
    # ...but env-style (`NAME=value`, capitals) holds a literal whatever it starts with
    ("DB_PASSWORD=~pr0d-Pa55", f"DB_PASSWORD={A}"),
    ("DB_PASSWORD=/run/pr0d-Pa55", f"DB_PASSWORD={A}"),
    # unquoted, not env-style: 6 characters with a digit are a literal, 5 are not
    ("secret = a1b2c3", f"secret = {A}"),
    ("secret = a1b2c", "secret = a1b2c"),
    # letters only: a secret when 12+ long, unbroken, mixed case and not made of words
    ("token = AbCdEfGhIjKl", f"token = {A}"),
    ("token = XbCdEfGhIjKl", f"token = {A}"),
    ("token = AbCdEfGhIjK", "token = AbCdEfGhIjK"),
    ("token = ABCDEFGHIJKLMN", "token = ABCDEFGHIJKLMN"),
    ("token = abcdefghijklmn", "token = abcdefghijklmn"),
    ("token = RefreshTokenValue", "token = RefreshTokenValue"),
    ("token = AbcdefghiXAbcdefghiX", "token = AbcdefghiXAbcdefghiX"),  # word-like share exactly 0.9
    ("token = AbcdefghiXYAbcdefghiXY", f"token = {A}"),  # 18 of 22: below 0.9
    # `key` needs a qualifying prefix; `pass` alone needs an assignment sign
    ("api_key = a1b2c3d4e5", f"api_key = {A}"),
    ("sort_key = a1b2c3d4e5", "sort_key = a1b2c3d4e5"),
    ("API-KEY: a1b2c3d4e5", f"API-KEY: {A}"),
    ("pass 'x1y2z3w4' to the helper", "pass 'x1y2z3w4' to the helper"),
    ("pass = 'x1y2z3w4'", f"pass = '{A}'"),
    ("pwd 'x1y2z3w4' here", "pwd 'x1y2z3w4' here"),
    ("password 'x1y2z3w4' here", f"password '{A}' here"),
    ("passwd 'x1y2z3w4' here", f"passwd '{A}' here"),
    ("passphrase 'x1y2z3w4' here", f"passphrase '{A}' here"),
    # a call or subscript is code; a quoted value followed by one is still a value
    ("token = make_token(user)", "token = make_token(user)"),
    ("token = tokens[user]", "token = tokens[user]"),
    ("token = 'a1b2c3d4'(", f"token = '{A}'("),
    # the rule goes on after a skipped match
    ("sort_key = a1b2c3d4e5 and api_key = f6g7h8i9j0", f"sort_key = a1b2c3d4e5 and api_key = {A}"),
    ("token = make_token(user); secret = a1b2c3d4", f"token = make_token(user); secret = {A}"),
    ("pass 'x1y2z3w4' on; password = 'q1w2e3r4'", f"pass 'x1y2z3w4' on; password = '{A}'"),
    # env-style needs the name in capitals and a bare `=`
    ("DB_PASSWORD=/run/pr0d", f"DB_PASSWORD={A}"),
    ("db_password = /run/pr0d", f"db_password = {A}"),
    # the CLI flag rule: a literal after --password, not a variable
    ("mysql --password=$DB_PASS db", "mysql --password=$DB_PASS db"),
    ("mysql --password=hunter22 db", f"mysql --password={A} db"),
    ('mysql --password "hunter22" db', f'mysql --password "{A}" db'),
    # bearer / token / basic schemes: after a non-letter only; basic wants base64 with two classes
    ("Authorization: Bearer abcDEF123456ghiJKL789012mnoPQR", f"Authorization: Bearer {M('bearer-token')}"),
    ("Bearer abcDEF123456ghiJKL789012mnoPQR", f"Bearer {M('bearer-token')}"),
    ("xbearer abcDEF123456ghiJKL789012mnoPQR", "xbearer abcDEF123456ghiJKL789012mnoPQR"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZDEy", f"Authorization: Basic {M('bearer-token')}"),
    ("Authorization: Basic abcdefghijklmnopqrst", "Authorization: Basic abcdefghijklmnopqrst"),
    ("Authorization: Bearer abcdefghijklmnopqrstuvwx1", f"Authorization: Bearer {M('bearer-token')}"),
    ("token abcdefghijklmnopqrstuvwxyzabcd and Bearer abcDEF123456ghiJKL789012mnoPQR",
     f"token abcdefghijklmnopqrstuvwxyzabcd and Bearer {M('bearer-token')}"),
    # AWS secrets: 40 characters near an AWS word, within 120 characters before it
    ("aws " + "x" * 110 + " wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "aws " + "x" * 110 + f" {M('aws-secret')}"),
    ("aws " + "x" * 120 + " wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "aws " + "x" * 120 + f" {M('high-entropy')}"),
    ("aws wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", f"aws {M('aws-secret')}"),
    ("aws key 0123456789abcdef0123456789abcdef01234567", "aws key 0123456789abcdef0123456789abcdef01234567"),
    ("aws path org/pipermail/p2p-hackers/2001-Septemb", "aws path org/pipermail/p2p-hackers/2001-Septemb"),
    # any name ending in a secret word is an assignment of a secret, whatever stands before it
    ("aDB_PASSWORD=/run/pr0d", f"aDB_PASSWORD={A}"),
    ("a DB_PASSWORD=/run/pr0d", f"a DB_PASSWORD={A}"),
    ("my.DB_PASSWORD=/run/pr0d", f"my.DB_PASSWORD={A}"),
    ("some words come before it, then aDB_PASSWORD=/run/pr0d", "some words come before it, then aDB_PASSWORD=/run/pr0d"),
    ("a" + "B" * 59 + "_PASSWORD=/run/pr0d", "a" + "B" * 59 + f"_PASSWORD={A}"),
    ("a" + "B" * 58 + "_PASSWORD=/run/pr0d", "a" + "B" * 58 + f"_PASSWORD={A}"),
    # an unquoted value followed by ( is a call; followed by a space it is a value
    ("token = a1b2c3d4e5(x)", "token = a1b2c3d4e5(x)"),
    ("secret = a1b2c3 here", f"secret = {A} here"),
    # CLI flags: quoted, or not a variable, is a literal
    ('mysql --password "$1234567890ab" db', f'mysql --password "{A}" db'),
    ("mysql --password=hunterhunter db", f"mysql --password={A} db"),
    ("mysql --password=$1abcdefgh db", "mysql --password=$1abcdefgh db"),
    ('mysql --password "${DB_PASS?unset}" db', 'mysql --password "${DB_PASS?unset}" db'),
    ('mysql --password "$(cat /run/secrets/db)" db', 'mysql --password "$(cat /run/secrets/db)" db'),
    # Basic takes base64 from 16 characters, Bearer any token characters from 20
    ("Authorization: Basic dXNlcjpwYXNzd29y", f"Authorization: Basic {M('bearer-token')}"),
    ("Authorization: Bearer abc.DEF-123_456~ghi/JKL", f"Authorization: Bearer {M('bearer-token')}"),
    ("xbearer abcDEF123456ghiJKL789012mnoPQR and Bearer abcDEF123456ghiJKL789012mnoPQR",
     f"xbearer abcDEF123456ghiJKL789012mnoPQR and Bearer {M('bearer-token')}"),
    # AWS: a hex string is no secret; a failed candidate does not stop the search; the window is 120
    ("aws 0123456789abcdefABCDEF0123456789abcdef01", "aws 0123456789abcdefABCDEF0123456789abcdef01"),
    ("aws 0123456789abcdef0123456789abcdef01234567 wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     f"aws 0123456789abcdef0123456789abcdef01234567 {M('aws-secret')}"),
    ("aws " + "x" * 116 + " wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "aws " + "x" * 116 + f" {M('high-entropy')}"),
    ("aws " + "x" * 115 + " wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "aws " + "x" * 115 + f" {M('aws-secret')}"),
    # the entropy rule: paths and identifiers are not secrets, random strings are
    ("see Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJD--", f"see {M('high-entropy')}"),
    ("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi", M("high-entropy")),  # 32 characters: long enough
    ("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGF", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGF"),  # 31: too short
    ("XXm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi", M("high-entropy")),
    ("--Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MG--", "--Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MG--"),  # 30 once the dashes go
    ("hex 0123456789abcdef0123456789abcdef0 and Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi",
     f"hex 0123456789abcdef0123456789abcdef0 and {M('high-entropy')}"),
    ("0123456789abcdefABCDEF0123456789abcdef", "0123456789abcdefABCDEF0123456789abcdef"),  # hex, any case
    ("A1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7", M("high-entropy")),  # no underscore: not an identifier
    ("Ab12_cd34_Ef56_gh78_Ij90_kl12_Mn34_op56", "Ab12_cd34_Ef56_gh78_Ij90_kl12_Mn34_op56"),  # snake_case parts
    ("AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEf1", "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEf1"),  # under 40: two digits needed
    ("AbCdEfGhIjKlMnOpQrStUvWxYzAbCdE12", M("high-entropy")),
    ("AbCd1234EfGh5678AbCd1234EfGh5678", M("high-entropy")),  # entropy exactly 4.0 bits: enough
    ("at home/dev/acme-billing/src/webhooks/stripe_handler_v2/Retry2Backoff.py",
     "at home/dev/acme-billing/src/webhooks/stripe_handler_v2/Retry2Backoff.py"),
]


@pytest.mark.parametrize("text, expected", CASES, ids=[c[0][:48] for c in CASES])
def test_rule_edges(text, expected):
    assert redact(text).text == expected


def test_nothing_to_redact():
    assert redact("") == redact(None) == redact("") and redact(None).text == "" and redact(None).findings == ()
    plain = redact("Nothing secret here.")
    assert (plain.text, plain.findings) == ("Nothing secret here.", ())


def test_findings_name_the_rule_and_the_original_positions():
    text = "key AKIAIOSFODNN7EXAMPLE then password = 'hunter22'"
    r = redact(text)
    assert [(f.rule, text[f.start:f.end]) for f in r.findings] == [("aws-key", "AKIAIOSFODNN7EXAMPLE"),
                                                                   ("secret-assignment", "hunter22")]
    assert [f.to_dict() for f in r.findings] == [{"rule": "aws-key", "start": 4, "end": 24},
                                                 {"rule": "secret-assignment", "start": 42, "end": 50}]


def test_a_regex_rule_checks_the_left_edge_takes_its_group_and_flags():
    """``_rx`` builds the provider-token rules: a match continuing a word on its left is no match."""
    find = _rx(r"AKIA[0-9]{4}")
    assert list(find("AKIA1111 xAKIA2222 _AKIA3333 AKIA4444 ")) == [(0, 8), (29, 37)]
    assert list(find("xAKIA2222 AKIA4444")) == [(10, 18)]  # a skipped match does not end the search
    assert list(find("x AKIA5555")) == [(2, 10)]
    assert list(_rx(r"AKIA[0-9]{4}", bounded=False)("xAKIA2222")) == [(1, 9)]
    assert list(_rx(r"pw=(\w+)", group=1)("pw=abc1 xpw=def2")) == [(3, 7), (12, 16)]  # the group's left edge: "="
    assert list(_rx(r"pw=(\w*)", group=1)("pw= pw=ok")) == [(7, 9)]  # an empty group is no match
    assert list(_rx(r"akia", flags=re.I)("AKIA")) == [(0, 4)]
    assert list(_rx(r"akia")("AKIA")) == []
    assert list(_rx(r"b")("ab b")) == [(3, 4)]
    assert list(_rx(r"b")("a1b b")) == [(4, 5)]
