"""The attendees of a meeting become glossary terms, with the capitalised words heard that sound
like them (by soundex) as aliases; ordinary words never become aliases."""
from brain_core.voice.glossary import Glossary, Term
from brain_core.voice.people import attendee_glossary, soundex


def test_attendees_are_added_with_the_soundalikes_heard():
    glossary = Glossary((Term("Owen", ("Oh when",)),))
    text = "Shivaun said Thomas would ship it, Owan agreed."
    got = {t.name: t.aliases for t in attendee_glossary(glossary, ["Siobhan", "Tomasz", "Owen"], text).terms}
    assert got["Siobhan"] == ("Shivaun",)
    assert got["Tomasz"] == ("Thomas",)
    assert got["Owen"] == ("Oh when", "Owan")  # a known term keeps its aliases and gains the heard one


def test_a_common_word_that_sounds_like_a_name_is_not_an_alias():
    assert soundex("Thanks") == soundex("Tomasz")
    got = attendee_glossary(Glossary(()), ["Tomasz"], "Thanks, everyone.").terms
    assert [(t.name, t.aliases) for t in got] == [("Tomasz", ())]
