"""A model's record names only what its session says: a name the transcript never gives (a person where
someone said "the CI runner", a file, a flag, a version) sends the record to quarantine/, never to a
shelf, and `aida brain quarantine accept` lets a person keep it. The model is a local OpenAI-compatible
server (tests/helpers/fake_llm_server.py); the sessions are real files in a real brain."""

from __future__ import annotations

import json
import os

from brain_core.cli import main
from brain_core.harvest.grounded import Said, names, unsaid
from brain_core.harvest.run import sweep
from tests.helpers.fake_llm_server import FakeLLMServer

SAID = """Project: release-tools

Transcript:
[user] Who pushes the release tags?

[assistant] The CI runner pushes tags from the `release.yml` workflow; `git push --follow-tags` runs there,
and ReleaseNotes.md is built by scripts/notes_gen.py on port 8080 with go-git v5.11."""


def test_a_name_nobody_said_is_caught_and_a_paraphrase_is_not():
    said = Said(SAID)
    assert unsaid("The CI runner pushes the release tags (`git push --follow-tags` in release.yml).", said) == []
    assert unsaid("Release notes: ReleaseNotes.md comes from scripts/notes_gen.py, served on port 8080.", said) == []
    assert unsaid("GoGit v5.11 is the git library; the go_git parts are said too.", said) == []
    # a sentence's first word is a name when what follows shows it acting (a verb, a possessive, "and X")
    assert unsaid("Dana pushes the release tags from the workflow.", said) == ["Dana"]
    assert unsaid("Notes are built on port 8080. Dana's laptop runs the workflow.", said) == ["Dana"]
    assert unsaid("Dana and Lee own release.yml.", said) == ["Dana", "Lee"]
    assert unsaid("Runner pushes the tags.", said) == []  # said by "The CI runner"
    assert unsaid("The release tags are pushed by Dana from the workflow.", said) == ["Dana"]
    assert unsaid("Tags come from `publish.yml` with `git push --force-tags`.", said) == ["publish.yml",
                                                                                          "--force-tags"]
    assert unsaid("The notes build listens on port 8081.", said) == ["8081"]
    assert unsaid("Run `git push --follow-tags <remote>` from release.yml.", said) == []  # a placeholder is a slot
    assert unsaid("Run `notes_gen.py --out <file>` to build them.", said) == ["--out"]


def test_what_counts_as_a_name():
    found = names("Use `mix ash.codegen --name <name>` in spotter (AshSqlite) via the CLI; "
                  "the JSON goes to ~/.aida/state.json, see issue 42 and Jinja.")
    assert found == ["mix", "ash.codegen", "--name", "AshSqlite", "~/.aida/state.json", "42", "Jinja"]
    assert names("The person prefers short answers. Always answer briefly; I like it.") == []  # no name here


def _session(home, text_user: str, text_agent: str):
    project = home / ".claude" / "projects" / "-home-dev-release-tools"
    project.mkdir(parents=True)
    sid = "11111111-aaaa-4bbb-8ccc-dddddddddddd"
    lines = [{"type": "user", "cwd": "/home/dev/release-tools", "sessionId": sid, "uuid": "u1",
              "timestamp": "2026-08-20T10:00:00Z", "message": {"role": "user", "content": text_user}},
             {"type": "assistant", "cwd": "/home/dev/release-tools", "sessionId": sid, "uuid": "a1",
              "parentUuid": "u1", "timestamp": "2026-08-20T10:00:05Z",
              "message": {"role": "assistant", "content": [{"type": "text", "text": text_agent}]}}]
    p = project / f"{sid}.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    os.utime(p, (1.7e9, 1.7e9))
    return {"claude": home / ".claude"}


def _provider(url: str):
    from brain_core.llm.http import Retry
    from brain_core.llm.openai_compat import OpenAICompatible

    return OpenAICompatible(model="m", base_url=url + "/v1", api_key=None, name="openai-compatible",
                            retry=Retry(timeout=5, retries=0, backoff=0))


ANSWER = {"records": [
    {"type": "fact", "key": "release-tags", "body": "The release tags are pushed by Dana with "
                                                   "`git push --follow-tags`, from the release.yml workflow."},
    {"type": "fact", "key": "release-workflow", "body": "The CI runner pushes the release tags with "
                                                       "`git push --follow-tags` in the release.yml workflow."},
]}


def test_harvest_holds_a_model_record_that_names_what_the_session_never_says(brain, tmp_path, capsys):
    roots = _session(tmp_path / "home", "Who pushes the release tags?",
                     "The CI runner pushes tags from the `release.yml` workflow: `git push --follow-tags` runs there.")
    with FakeLLMServer(json.dumps(ANSWER)) as server:
        result = sweep(brain, roots=roots, sources=("claude",), llm=_provider(server.url), include_mirror=False,
                       clock=lambda: 1.7e9 + 3600)
    (o,) = result.outcomes
    assert o.written == ["memories/claude/release-workflow.json"]
    assert o.quarantined == ["quarantine/claude/release-tags.json"]
    assert not (brain.root / "memories/claude/release-tags.json").exists()
    held = json.loads((brain.root / "quarantine/claude/release-tags.json").read_text())
    assert held["quarantine"]["category"] == "unsaid" and "Dana" in held["quarantine"]["why"]
    assert "unsaid" not in held and "unsaid" not in json.loads(
        (brain.root / "memories/claude/release-workflow.json").read_text())  # the names live in the hold only
    assert [h.record.key for h in brain.recall("who pushes the release tags")] == ["release-workflow"]

    from brain_core.lifecycle.overview import overview

    assert overview(brain)["held"] == {"unsaid": 1}
    assert main(["--brain", str(brain.root), "brain", "overview"]) == 0
    assert "1 held in quarantine, never served (1 naming what their session never says)" in capsys.readouterr().out

    assert main(["--brain", str(brain.root), "brain", "quarantine"]) == 0
    listed = capsys.readouterr().out
    assert "release-tags" in listed and "Dana" in listed
    assert main(["--brain", str(brain.root), "brain", "quarantine", "accept", held["id"]]) == 0
    kept = json.loads((brain.root / "memories/claude/release-tags.json").read_text())
    assert "pushed by Dana" in kept["body"]
    assert overview(brain)["held"] == {}  # a person kept it: it is theirs now


def test_the_batched_call_checks_each_session_against_its_own_transcript():
    from brain_core.harvest.batch import distill_batch

    a = "Project: a\n\n[user] The deploy script is deploy_a.sh, run it from the repo root."
    b = "Project: b\n\n[user] Builds use make release in this repo."
    answer = {"sessions": {"S1": {"records": [{"type": "fact", "key": "deploy", "body": "The deploy script is "
                                               "deploy_a.sh, run from the repo root."}]},
                           "S2": {"records": [{"type": "fact", "key": "deploy", "body": "Deploys use deploy_a.sh "
                                               "here too."}]}}}
    with FakeLLMServer(json.dumps(answer)) as server:
        one, two = distill_batch([(a, {}), (b, {})], _provider(server.url), profile="claude",
                                 sources=["claude:session:a", "claude:session:b"])
    assert "extra" not in one[0]
    assert two[0]["extra"]["unsaid"] == ["deploy_a.sh"]  # said in the other session only


def test_a_short_name_must_be_said_as_a_word():
    said = Said("We ran the standard analysis on main; the go-git fetch failed.")
    assert unsaid("The fetch failure was found by Dana on main.", said) == ["Dana"]  # not in "standarD ANAlysis"
    assert unsaid("It was the GoGit fetch that failed.", said) == []


def test_shapes_that_name_nothing_pass():
    said = Said("load_session_messages reads the rows; PATH gets $HOME/.bun/bin; anti-patterns are numbered AP-001.")
    assert unsaid("The DB-loaded rows miss agent_id in load_session_messages.", said) == ["agent_id"]
    assert unsaid("Add `$HOME/.bun/bin:` to PATH; anti-patterns are numbered `AP-xxx`; app may be None.", said) == []
    assert unsaid("On the user's Windows machine PATH gets $HOME/.bun/bin.", said) == []  # the system, from its paths


def test_an_ordinary_first_word_is_not_taken_for_a_name():
    said = Said(SAID)
    # none of these words is in the session, and none is followed by what shows someone acting
    for body in ("Despite its name, release.yml pushes the tags.", "Several tags are pushed from release.yml.",
                 "Keep `git push --follow-tags` in release.yml.", "Installer output comes from scripts/notes_gen.py.",
                 "Per the workflow, the CI runner pushes the tags.", "Known limits: the notes build listens on 8080."):
        assert unsaid(body, said) == [], body
