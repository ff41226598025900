"""Project scope: the project of a folder is harvest's tag for it; CLI recall and ask inside a
project rank its records first (a lift, never a filter); --project and --all-projects override."""

from __future__ import annotations

import json
import subprocess

import pytest

from brain_core.cli import main
from brain_core.errors import InvalidInput
from brain_core.harvest import Session
from brain_core.harvest.model_answer import base_tags
from brain_core.harvest.projects import clean_project, project_of

OTHERS = ["The staging database restores from Sunday's snapshot every night.",
          "My preferred commit style is imperative mood.", "Webhook retries are capped at six attempts.",
          "We chose SQS for the job queue.", "Logs go to Loki as logfmt.",
          "Secrets are read from Vault, never from env files.", "The CI pipeline must finish in ten minutes.",
          "On-call rotates weekly through PagerDuty."]


@pytest.fixture
def code(tmp_path):
    out = {}
    for name in ("billing", "search"):
        out[name] = tmp_path / "code" / name
        (out[name] / "src" / "deep").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(out[name])], check=True)
    return out


def test_the_project_of_a_folder_is_the_tag_harvest_gives_its_sessions(code, tmp_path):
    for folder in (code["billing"], code["billing"] / "src" / "deep"):
        session = Session("claude", "s1", tmp_path / "t.jsonl", (), cwd=str(folder))
        assert base_tags({"project": session.project}) == [f"project:{project_of(folder)}"] == ["project:billing"]
    # a linked worktree belongs to its main checkout
    subprocess.run(["git", "-C", str(code["search"]), "-c", "user.name=t", "-c", "user.email=t@e.invalid", "commit",
                    "-q", "--allow-empty", "-m", "x"], check=True)
    wt = tmp_path / "elsewhere" / "search-feature"
    subprocess.run(["git", "-C", str(code["search"]), "worktree", "add", "-q", str(wt)], check=True)
    assert project_of(wt) == "search"
    assert project_of(tmp_path / "home-of-no-one" / "My Notes") == "my-notes"
    assert clean_project("project:Mobile App") == "mobile-app"
    with pytest.raises(InvalidInput):
        clean_project("***")


@pytest.fixture
def deploys(brain):
    brain.remember_many([dict(body=t, profile="me") for t in OTHERS])
    brain.remember("Billing deploys blue-green on Fridays, after the finance batch.", type="decision",
                   key="billing-deploy", profile="claude", tags=["project:billing"])
    brain.remember("Search deploys with a five percent canary for an hour, then everywhere.", type="decision",
                   key="search-deploy", profile="claude", tags=["project:search"])
    brain.remember("Search load-tests with k6 before every major release.", type="decision",
                   key="search-load-tests", profile="claude", tags=["project:search"])
    root = str(brain.root)
    brain.close()
    return root


def _keys(capsys, *argv):
    assert main(list(argv)) == 0
    return [h["key"] for h in json.loads(capsys.readouterr().out)]


def test_recall_in_a_project_ranks_it_first_and_flags_override(deploys, code, capsys, monkeypatch):
    b = ["--brain", deploys, "brain", "recall", "--json", "-k", "2"]
    monkeypatch.chdir(code["billing"] / "src")
    assert _keys(capsys, *b, "how do we deploy") == ["billing-deploy", "search-deploy"]
    assert _keys(capsys, *b, "--project", "search", "how do we deploy")[0] == "search-deploy"
    plain = _keys(capsys, *b, "--all-projects", "how do we deploy")
    monkeypatch.chdir(code["search"])
    assert _keys(capsys, *b, "how do we deploy") == ["search-deploy", "billing-deploy"]
    assert _keys(capsys, *b, "--all-projects", "how do we deploy") == plain  # no folder, no lift
    # a lift, never a filter: what only another project knows still comes first
    monkeypatch.chdir(code["billing"])
    assert _keys(capsys, *b, "how do we load test")[0] == "search-load-tests"


def test_ask_in_a_project_answers_from_its_record(deploys, code, capsys, monkeypatch):
    monkeypatch.chdir(code["billing"])
    assert main(["--brain", deploys, "ask", "--offline", "--json", "how do we deploy"]) == 0
    billing = json.loads(capsys.readouterr().out)
    assert billing["hits"][0]["key"] == "billing-deploy" and "blue-green" in billing["answer"]
    monkeypatch.chdir(code["search"])
    assert main(["--brain", deploys, "ask", "--offline", "--json", "how do we deploy"]) == 0
    search = json.loads(capsys.readouterr().out)
    assert search["hits"][0]["key"] == "search-deploy" and "canary" in search["answer"]
    assert not search["cached"]  # not billing's cached answer
