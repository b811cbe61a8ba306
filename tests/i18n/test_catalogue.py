"""Both language catalogues are complete and agree on every placeholder."""

import pytest

from i18n import LANGUAGES, PLURAL_FORMS, Plural, catalogue, forms, language_of, placeholders, plural_form, t


def test_every_key_exists_in_both_languages():
    english, vietnamese = set(catalogue("en")), set(catalogue("vi"))
    assert english - vietnamese == set(), "missing in vi"
    assert vietnamese - english == set(), "missing in en"


@pytest.mark.parametrize("key", sorted(catalogue("en")))
def test_placeholders_match(key):
    """Every form of an entry, in both languages, has the same placeholders."""
    found = {
        (lang, form): placeholders(text)
        for lang in LANGUAGES
        for form, text in forms(catalogue(lang)[key]).items()
    }
    assert len(set(map(frozenset, found.values()))) == 1, found


@pytest.mark.parametrize("key", sorted(key for key, entry in catalogue("en").items() if isinstance(entry, Plural)))
def test_plural_entries_give_exactly_the_forms_each_language_needs(key):
    for lang in LANGUAGES:
        entry = catalogue(lang)[key]
        assert isinstance(entry, Plural), (lang, key)
        assert tuple(sorted(entry)) == tuple(sorted(PLURAL_FORMS[lang])), (lang, key)


def test_plain_strings_are_plain_in_both_languages():
    for key, entry in catalogue("vi").items():
        assert isinstance(entry, Plural) == isinstance(catalogue("en")[key], Plural), key


def test_every_string_formats_with_its_own_placeholders():
    for lang in LANGUAGES:
        for entry in catalogue(lang).values():
            for text in forms(entry).values():
                text.format(**{name: 1 for name in placeholders(text)})


def test_english_plurals_follow_the_count_and_vietnamese_does_not_inflect():
    assert [t("en", "count.bets", count=n) for n in (0, 1, 2)] == ["0 bets", "1 bet", "2 bets"]
    assert [t("en", "count.cards", count=n) for n in (1, 13)] == ["1 card", "13 cards"]
    assert t("en", "count.chips", count=1) == "1 chip"
    assert t("en", "count.chips", count=1500) == "1,500 chips"
    assert [t("vi", "count.bets", count=n) for n in (1, 2)] == ["1 cược", "2 cược"]
    assert [plural_form("en", n) for n in (0, 1, 2, None)] == ["other", "one", "other", "other"]
    assert {plural_form("vi", n) for n in (0, 1, 2)} == {"other"}


def test_a_plural_entry_reads_its_count_even_when_the_text_shows_it_formatted():
    # The caller may pass the number pre-formatted for display and the count separately.
    assert t("en", "chips.balance", name="An", balance="1", count=1) == "An has **1** chip."
    assert t("en", "chips.balance", name="An", balance="1,000", count=1000) == "An has **1,000** chips."


def test_vietnamese_command_names_are_valid_discord_names():
    import re

    pattern = re.compile(r"^[-_\w]{1,32}$")
    for key, text in catalogue("vi").items():
        if key.startswith("name."):
            assert pattern.match(text) and text == text.lower(), key


def test_language_follows_the_discord_locale():
    assert language_of("vi") == "vi"
    assert language_of("en-US") == "en"
    assert t("vi", "button.pass") == "Bỏ lượt"
    assert t("en", "button.pass") == "Pass"


def test_unknown_key_falls_back_to_the_key():
    assert t("vi", "no.such.key") == "no.such.key"
