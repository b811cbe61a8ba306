"""Both language catalogues are complete and agree on every placeholder."""

import pytest

from i18n import LANGUAGES, catalogue, language_of, placeholders, t


def test_every_key_exists_in_both_languages():
    english, vietnamese = set(catalogue("en")), set(catalogue("vi"))
    assert english - vietnamese == set(), "missing in vi"
    assert vietnamese - english == set(), "missing in en"


@pytest.mark.parametrize("key", sorted(catalogue("en")))
def test_placeholders_match(key):
    assert placeholders(catalogue("en")[key]) == placeholders(catalogue("vi")[key])


def test_every_string_formats_with_its_own_placeholders():
    for lang in LANGUAGES:
        for text in catalogue(lang).values():
            text.format(**{name: "x" for name in placeholders(text)})


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
