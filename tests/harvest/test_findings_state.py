"""The offline distiller tells how the system is from where the work stands: a module removed in a
version, an identifier that is not unique, an assumption a command makes are findings; what does not
exist *yet*, what the agent *just added*, and what the person says the program does *now* are not."""

from __future__ import annotations

from brain_core.harvest.findings import agent_findings
from tests.helpers.said import kept_after


def found(reply: str) -> list[str]:
    return [f[2] for f in agent_findings([("user", "Why does the upload break?"), ("assistant", reply)])]


def test_a_cause_said_after_the_error_is_because_is_kept_alone():
    kept = found("The error is because the `cgi` module was removed in Python 3.13.")
    assert kept and kept[0].startswith("The `cgi` module"), kept
    assert found("The code builds one map across all files, but UUIDs aren't unique across `sessions.jsonl` files.")
    assert found("The `uvx` commands assume the package is published to PyPI.")
    kept = found("Unfortunately, 1Password doesn't support YubiKey for every unlock, only for new device sign-ins.")
    assert kept and kept[0].startswith("1Password"), kept


def test_the_state_of_the_work_is_no_finding():
    assert not found("The CSS for `tool-block` elements doesn't exist yet.")
    assert not found("The `M-Claude` directory doesn't exist locally.")
    assert not found("The type ignore comments we added in `parser.py` are for cases that can't be typed at compile time.")
    # The same claims, said of the system, are kept.
    assert found("The CSS for `tool-block` elements doesn't exist in the bundle.")


def test_what_the_person_says_the_program_does_now_is_no_rule():
    def bodies(said: str) -> list[str]:
        return kept_after(said, opening="Export the archive", reply="Exported.")

    assert not bodies("Now, the export always exports the full detailed view of every conversation.")
    assert not bodies("We are still at the stage of never having shared this code with anyone before.")
    assert not bodies("Everything should be in the manifest right, especially with several projects in it.")
    kept = bodies("The export must always write the manifest next to the archive, never inside it.")
    assert any("manifest" in b for b in kept), kept


def test_the_work_left_and_done_is_no_finding():
    assert not found("There are two issues to fix: some repo names have a `/` suffix from `repos.csv`, and some URLs are missing.")
    assert not found("The `PATTERNS.md` sections don't need a new entry, only the `AP-005` one, which is already done.")
    # Said of the system, the same kind of sentence is kept.
    assert found("The `PATTERNS.md` sections don't have an entry for non-string env values.")


def test_what_the_person_sees_or_asks_for_is_no_rule():
    def bodies(said: str) -> list[str]:
        return kept_after(said, opening="Build the review screen", reply="Built.")

    assert not bodies("when i press r it marks the item as reviewed but the findings pane always goes back to the first item")
    assert not bodies("I should be able to toggle the reviewed state in case i make a mistake, it must never lose data.")
    kept = bodies("The review screen must never scroll when an item is toggled.")
    assert any("scroll" in b for b in kept), kept


def test_how_a_named_thing_behaves_is_a_finding():
    assert found("`htmx:afterRequest` fires before the DOM swap, so reading `#detail-panel` gets the old content.")
    assert found("Non-string environment values in Pebble layers are silently coerced to strings.")
    assert found("The highlighted HTML from `pygmentize` is being escaped by Jinja2's auto-escaping.")
    assert found("GitHub Desktop is a GUI application with its own separate login session.")
    kept = found("Got it — the `round` parameter is typed as `Optional[int]`, so an empty string fails validation.")
    assert kept and kept[0].startswith("The `round`"), kept
    # A row of what was changed is a status report, whatever it says.
    assert not found("Skill `anti-patterns.md` — Updated to explain that non-string values are silently coerced by Pebble.")


def test_a_guess_and_a_check_that_passed_are_no_findings():
    assert not found("My guess: they tried `transparent` where it doesn't work, as `ResolveTemplate` maps it to empty.")
    assert not found("The worktree is properly registered with git and `.worktrees/` is gitignored.")
    assert found("`ResolveTemplate` maps `transparent` to empty, so it doesn't work as a terminal background.")


def test_a_lead_that_says_it_was_tested_and_a_row_of_changes():
    kept = found("Tested this directly: the `cgi` module was removed in Python 3.13.")
    assert kept and kept[0].startswith("The `cgi` module"), kept
    assert not found("[segment_test.go](src/config/segment_test.go): new table case, as `Killed` was removed in 3.13.")
