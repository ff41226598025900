"""The glossary: loading, validation, the correction pass, and `aida glossary add | list`."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain_core.errors import BrainError, InvalidInput
from brain_core.voice.glossary import (
    Glossary,
    Term,
    add_alias,
    brain_glossary,
    correct,
    load_glossary,
    parse_glossary,
)
from tests.helpers import paths as test_paths

FIXTURES = test_paths.FIXTURES / "audio"


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return load_glossary(FIXTURES / "glossary.yaml")


def _pairs(c):
    return [(r.heard, r.name, r.kind) for r in c.replacements]


# --- loading and validation ------------------------------------------------------------------


def test_fixture_glossary_loads(glossary):
    assert glossary.names == ("Siobhan", "Tomasz", "Owen", "damage-control", "dead letter queue")
    assert glossary.find("siobhan").aliases == ("Shivon", "Siivon", "Chevonne", "Shavon")
    assert glossary.hotwords() == "Siobhan. Tomasz. Owen. Damage-control. Dead letter queue."


def test_empty_and_missing_terms_are_an_empty_glossary():
    assert parse_glossary("") == Glossary()
    assert parse_glossary("# nothing yet\nterms: []\n") == Glossary()
    assert Glossary().hotwords() is None


@pytest.mark.parametrize(
    "text, words",
    [
        ("terms: [unclosed", "not valid YAML"),
        ("- just a list", "must be a mapping"),
        ("terms: {name: x}", "must be a mapping"),
        ("terms:\n  - Siobhan\n", "term 1 is not a mapping"),
        ("terms:\n  - aliases: [Shivon]\n", "no usable 'name'"),
        ("terms:\n  - name: Siobhan\n    aliases: {a: b}\n", "must be a list"),
        ("terms:\n  - name: Siobhan\n    aliases: [3]\n", "not a word or phrase"),
        ("terms:\n  - name: Siobhan\n  - name: siobhan\n", "listed twice"),
        ("terms:\n  - name: Siobhan\n    aliases: [Sean]\n  - name: Shane\n    aliases: [sean]\n", "given for both"),
        ("terms:\n  - name: Siobhan\n    aliases: [Tomasz]\n  - name: Tomasz\n", "given for both"),
        ("terms:\n  - name: Siobhan\n    aliases: [siobhan]\n", "the name itself"),
    ],
)
def test_bad_glossaries_are_refused_with_one_sentence(text, words):
    with pytest.raises(BrainError) as e:
        parse_glossary(text, "glossary.yaml")
    assert words in str(e.value)
    assert "\n" not in str(e.value)


def test_missing_glossary_file_is_an_error(tmp_path):
    with pytest.raises(BrainError, match="does not exist"):
        load_glossary(tmp_path / "nope.yaml")


def test_yaml_round_trip(glossary):
    assert parse_glossary(glossary.to_yaml()) == glossary


def test_none_blank_and_single_alias():
    assert parse_glossary(None) == Glossary()  # a brain without the file
    assert parse_glossary("  \n") == Glossary()
    # one alias may be written without the brackets
    assert parse_glossary("terms:\n  - name: Siobhan\n    aliases: Shivon\n") == Glossary((Term("Siobhan", ("Shivon",)),))


@pytest.mark.parametrize(
    "text, message",
    [
        ("terms: [unclosed",
         "team.yaml is not valid YAML (while parsing a flow sequence); fix the file or delete it."),
        ("terms:\n  - name: Siobhan\n  - aliases: [Shivon]\n",
         "team.yaml: term 2 has no usable 'name' (a word or a few words); fix it."),
        ("terms:\n  - name: Siobhan\n  - name: Tomasz\n    aliases: {a: b}\n",
         "team.yaml: the aliases of term 2 must be a list of strings; fix the file."),
        ("terms:\n  - name: Siobhan\n  - Tomasz\n",
         "team.yaml: term 2 is not a mapping with 'name' and 'aliases'; fix the file."),
        ("terms:\n  - name: Siobhan\n  - name: Tomasz\n    aliases: [Thomas, '']\n",
         "team.yaml: term 2 (Tomasz) has an alias that is not a word or phrase: ''; fix it."),
        ("terms:\n  - name: Siobhan\n  - name: siobhan\n",
         "team.yaml: the name 'siobhan' is listed twice; merge the two entries."),
        ("terms:\n  - name: Siobhan\n    aliases: [Sean]\n  - name: Shane\n    aliases: [sean]\n",
         "team.yaml: 'sean' is given for both Siobhan and Shane; keep it under one name."),
    ],
)
def test_an_error_names_the_file_and_the_term_counted_from_one(text, message):
    with pytest.raises(BrainError) as e:
        parse_glossary(text, "team.yaml")
    assert str(e.value) == message


def test_two_spellings_of_one_alias_under_one_name_are_fine():
    g = parse_glossary("terms:\n  - name: Siobhan\n    aliases: [Shi von, Shivon]\n")
    assert g.find("Siobhan").aliases == ("Shi von", "Shivon")


def test_a_yaml_error_without_text_is_named_by_its_class():
    from brain_core.voice.glossary import _first_line

    assert _first_line(ValueError()) == "ValueError"
    assert _first_line(ValueError("\n  first\nsecond")) == "first"


def test_a_bad_glossary_file_is_named_in_the_error(tmp_path):
    f = tmp_path / "names.yaml"
    f.write_text("terms:\n  - name: Siobhan\n  - name: siobhan\n", encoding="utf-8")
    with pytest.raises(BrainError) as e:
        load_glossary(f)
    assert str(e.value) == f"{f}: the name 'siobhan' is listed twice; merge the two entries."


@pytest.mark.parametrize("make", [lambda p: p.mkdir(), lambda p: p.write_bytes(b"terms: [Sio\xffbhan]\n")])
def test_an_unreadable_glossary_file_is_one_clear_error(tmp_path, make):
    f = tmp_path / "names.yaml"
    make(f)
    with pytest.raises(BrainError) as e:
        load_glossary(f)
    assert str(e.value).startswith(f"The glossary file {f} cannot be read (")
    assert str(e.value).endswith("); check the file.")


def test_a_glossary_file_is_utf8_whatever_the_locale(tmp_path):
    import locale

    f = tmp_path / "names.yaml"
    f.write_text("terms:\n  - name: Zoë\n    aliases: [Zoey]\n", encoding="utf-8")
    before = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")  # an ASCII locale, as on a bare server
        g = load_glossary(f)
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    assert g.names == ("Zoë",)


def test_to_yaml_is_the_file_users_read_and_edit():
    g = Glossary((Term("Zoë", ("Zoey", "Zo ee")), Term("Tomasz", ("Thomas",)), Term("Ångström")))
    assert g.to_yaml() == (
        "# Proper nouns and the ways speech-to-text mishears them (`aida glossary add NAME ALIAS`).\n"
        "terms:\n"
        "- name: Zoë\n"  # written as itself, not escaped
        "  aliases: [Zoey, Zo ee]\n"  # the user's order: name first, then aliases, terms as given
        "- name: Tomasz\n"
        "  aliases: [Thomas]\n"
        "- name: Ångström\n"
        "  aliases: []\n"
    )
    assert parse_glossary(g.to_yaml()) == g


# --- the correction pass ----------------------------------------------------------------------


def test_aliases_are_replaced_and_listed(glossary):
    text = "Thanks, Shivon. Thomas, walk us through the webhook retries."
    c = correct(text, glossary)
    assert c.text == "Thanks, Siobhan. Tomasz, walk us through the webhook retries."
    assert _pairs(c) == [("Shivon", "Siobhan", "alias"), ("Thomas", "Tomasz", "alias")]
    assert [r.to_dict()["from"] for r in c.replacements] == ["Shivon", "Thomas"]


def test_offsets_point_at_what_was_heard(glossary):
    text = "so Owens owns the dead letter Q and Siivon restores the damage control snapshot"
    c = correct(text, glossary)
    assert c.replacements
    for r in c.replacements:
        assert text[r.start:r.start + len(r.heard)] == r.heard


def test_multi_word_alias_and_case_kept(glossary):
    c = correct("Damage control met. DAMAGE CONTROL again, then damage control.", glossary)
    assert c.text == "Damage-control met. DAMAGE-CONTROL again, then damage-control."
    c = correct("Owen owns the dead letter Q.", glossary)
    assert c.text == "Owen owns the dead letter queue."
    # a proper noun keeps its own spelling whatever case it was heard in
    assert correct("THOMAS and shivon", glossary).text == "Tomasz and Siobhan"


def test_fuzzy_matches_of_names_and_known_mishearings(glossary):
    c = correct("Siobahn said Tomas will ask Shivonne; Owen adds a net letter queue.", glossary)
    assert c.text == "Siobhan said Tomasz will ask Siobhan; Owen adds a dead letter queue."
    assert {r.kind for r in c.replacements} == {"fuzzy"}
    assert all(0.82 <= r.score < 1 for r in c.replacements)


def test_a_name_heard_as_two_fragments(glossary):
    c = correct("Then Shi von restored it.", glossary)
    assert c.text == "Then Siobhan restored it."
    assert _pairs(c) == [("Shi von", "Siobhan", "fuzzy")]


@pytest.mark.parametrize(
    "text",
    [
        "Thomasville is lovely in spring.",  # alias inside a longer word
        "We went to Owensboro.",
        "The damage controlled by the breaker.",  # name plus an English ending
        "Siobhans bike and Tomaszs keys.",
        "The Shavons and the Thomases came.",  # known mishearings plus an English ending
        "I own it; we owned it; she owns it.",  # close to Owen, but ordinary words
        "The letter queue and the letter cue.",
        "damage the control, damage six control",  # a word inside a multi-word name
        "The damaged controls were replaced.",  # name words with English endings
        "Tomatoes, tomorrow, thumbs, shovel, seven, sheriff.",
        "Thomas_var and thomas123 stay",  # word characters glued to the alias
    ],
)
def test_no_replacement_inside_or_instead_of_unrelated_words(glossary, text):
    c = correct(text, glossary)
    assert c.text == text, c.replacements
    assert c.replacements == ()


def test_an_alias_inside_its_own_name_is_not_doubled():
    g = Glossary((Term("Damage Control Board", ("damage control",)),))
    assert correct("the Damage Control Board met", g).replacements == ()
    assert correct("the damage control met", g).text == "the Damage Control Board met"


def test_neighbouring_words_are_never_swallowed(glossary):
    assert correct("a Shivon said", glossary).text == "a Siobhan said"
    assert correct("ask Siobahn today", glossary).text == "ask Siobhan today"
    g = Glossary((Term("Damage Control Board"),))
    assert correct("the Damage Control Board met", g).replacements == ()


def test_a_correct_name_is_left_alone_by_other_terms():
    g = Glossary((Term("Control Board"), Term("Board Room", ("board",))))
    assert correct("the Control Board met", g).text == "the Control Board met"
    assert correct("the board met", g).text == "the Board Room met"


@pytest.mark.parametrize("sep", [". ", ".", ", ", "; ", ": ", "? ", "! ", " / ", "\n", " (", ") ", "_"])
def test_a_name_is_never_joined_across_punctuation(glossary, sep):
    text = f"the damage{sep}Control the budget"
    c = correct(text, glossary)
    assert (c.text, c.replacements) == (text, ())
    for joined in (" ", "  ", "-", " -", "\t"):  # spaces and hyphens alone join its words
        assert correct(f"the damage{joined}control the budget", glossary).text == "the damage-control the budget"


def test_apostrophe_ends_a_word(glossary):
    assert correct("Shivon's laptop", glossary).text == "Siobhan's laptop"


def test_correct_is_idempotent(glossary):
    once = correct("Shivon, Thomas and the dead letter Q, damage control, net letter queue.", glossary)
    twice = correct(once.text, glossary)
    assert twice.text == once.text
    assert twice.replacements == ()


def test_fuzzy_can_be_switched_off():
    g = Glossary((Term("Siobhan", ("Shivon",)),))
    c = correct("Siobahn and Shivon", g, threshold=1.0)
    assert c.text == "Siobahn and Siobhan"


_WORDS = st.sampled_from(
    "the a retry policy was capped at six attempts webhook staging database restores every night "
    "we decided to own it letter queue control damage owen's thomasville snapshot friday".split()
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS, min_size=0, max_size=30), st.sampled_from([" ", ", ", ". ", "-"]))
def test_ordinary_text_is_never_touched(glossary, words, sep):
    """Words that are no alias and not close to a name are never rewritten, however arranged."""
    text = sep.join(words)
    c = correct(text, glossary)
    for r in c.replacements:  # only "damage control" may legitimately appear, its words joined by a space
        assert sep == " " and r.heard.lower() == "damage control" and r.name == "damage-control", r
    if not c.replacements:
        assert c.text == text


# --- add_alias and the CLI, against a real brain (the `brain` fixture of conftest.py) ------------


def _git_log(brain) -> list[str]:
    out = subprocess.run(["git", "-C", str(brain.root), "log", "--format=%s", "--", "glossary.yaml"],
                         capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def test_add_alias_writes_and_commits(brain):
    assert brain_glossary(brain) == Glossary()
    g = add_alias(brain, "Siobhan", "Shivon")
    assert g.find("Siobhan").aliases == ("Shivon",)
    g = add_alias(brain, "siobhan", "Chevonne")  # same name, any case
    assert g.find("Siobhan").aliases == ("Shivon", "Chevonne")
    on_disk = brain_glossary(brain)
    assert on_disk == g
    log = _git_log(brain)
    assert len(log) == 3 and "Chevonne" in log[0]
    # nothing new: no write, no commit
    add_alias(brain, "Siobhan", "shivon")
    assert len(_git_log(brain)) == 3


def test_add_alias_refuses_conflicts(brain):
    add_alias(brain, "Siobhan", "Shivon")
    with pytest.raises(InvalidInput) as e:
        add_alias(brain, "Shane", "Shivon")
    assert str(e.value) == "The new alias: 'Shivon' is given for both Siobhan and Shane; keep it under one name."
    with pytest.raises(InvalidInput) as e:
        add_alias(brain, "Owen", "owen")
    assert str(e.value) == "The new alias (Owen) lists the name itself as an alias; an alias is a mishearing."
    with pytest.raises(BrainError) as e:
        add_alias(brain, "Owen", "  ")
    assert str(e.value) == "The new alias (Owen) has an alias that is not a word or phrase: '  '; fix it."
    with pytest.raises(BrainError) as e:
        add_alias(brain, "?", "Owain")
    assert str(e.value) == "The new alias has no usable 'name' (a word or a few words); fix it."


def test_add_alias_touches_only_its_own_name(brain):
    add_alias(brain, "Siobhan", "Shivon")
    g = add_alias(brain, "Tomasz", "Thomas")
    g = add_alias(brain, "Siobhan", "Chevonne")
    assert g == Glossary((Term("Siobhan", ("Shivon", "Chevonne")), Term("Tomasz", ("Thomas",))))
    assert brain_glossary(brain) == g


def test_a_broken_brain_glossary_is_named_in_the_error(brain):
    (brain.root / "glossary.yaml").write_text("terms: [unclosed", encoding="utf-8")
    with pytest.raises(BrainError) as e:
        brain_glossary(brain)
    assert str(e.value).startswith("glossary.yaml is not valid YAML (")


def test_cli_glossary_add_and_list(brain, capsys):
    from brain_core.cli import main

    assert main(["--brain", str(brain.root), "glossary", "list"]) == 0
    assert "empty" in capsys.readouterr().out
    assert main(["--brain", str(brain.root), "glossary", "add", "Tomasz", "Thomas"]) == 0
    assert "Tomasz: Thomas" in capsys.readouterr().out
    assert main(["--brain", str(brain.root), "glossary", "add", "Tomasz", "Tomas"]) == 0
    capsys.readouterr()
    assert main(["--brain", str(brain.root), "glossary", "list", "--json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out) == [{"name": "Tomasz", "aliases": ["Thomas", "Tomas"]}]
    assert main(["--brain", str(brain.root), "glossary", "add", "Owen", "owen"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("aida: ") and err.count("\n") == 1
