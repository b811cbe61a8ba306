"""User-facing text in Vietnamese and English: one catalogue per language.

Every string a player can read lives in ``i18n/locales/<lang>/*.toml``; code
refers to it by key.  ``vi`` is used for Discord locales starting with "vi",
English for everything else.

>>> t("en", "lobby.joined", name="An")
'An sat down at the table.'
>>> t("vi", "lobby.joined", name="An")
'An đã ngồi vào bàn.'
>>> language_of("vi"), language_of("en-GB"), language_of(None)
('vi', 'en', 'en')

A count is shown through a *plural entry*: a table of forms by CLDR category
instead of a string (English needs ``one`` and ``other``; Vietnamese does not
inflect, so ``other`` alone), chosen by the ``count`` parameter:

>>> t("en", "count.bets", count=1), t("en", "count.bets", count=2)
('1 bet', '2 bets')
>>> t("vi", "count.bets", count=1)
'1 cược'
"""

from __future__ import annotations

import string
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "LANGUAGES",
    "PLURAL_FORMS",
    "Plural",
    "t",
    "language_of",
    "catalogue",
    "placeholders",
    "has",
    "plural_form",
    "forms",
    "number",
]

LANGUAGES = ("en", "vi")
_LOCALES = Path(__file__).parent / "locales"

# The CLDR plural categories each language's catalogue must give for a count.
PLURAL_FORMS: dict[str, tuple[str, ...]] = {"en": ("one", "other"), "vi": ("other",)}
_CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})


class Plural(dict):
    """A plural entry of a catalogue: text by CLDR category ("one", "other")."""


def plural_form(lang: str, count: Any) -> str:
    """The CLDR category of ``count`` in ``lang``: English "one" for exactly 1."""
    if lang == "en" and count == 1:
        return "one"
    return "other"


def forms(entry: "str | Plural") -> dict[str, str]:
    """Every text of a catalogue entry, by form (a plain string is its own "other")."""
    return dict(entry) if isinstance(entry, Plural) else {"other": entry}


# Vietnamese groups thousands with "." and writes decimals with ",".
_VIETNAMESE_DIGITS = str.maketrans({",": ".", ".": ","})


class _Number(int):
    """An int that formats its digit grouping (``{n:,}``) the way ``lang`` writes it."""

    lang = "en"

    def __format__(self, spec: str) -> str:
        text = int.__format__(int(self), spec)
        return text.translate(_VIETNAMESE_DIGITS) if self.lang == "vi" else text


def _localised(value: Any, lang: str) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        number_ = _Number(value)
        number_.lang = lang
        return number_
    return value


def number(value: int, lang: str, *, signed: bool = False) -> str:
    """``value`` with thousands grouped as ``lang`` writes them.

    >>> number(1234567, "en"), number(1234567, "vi"), number(-20, "vi", signed=True)
    ('1,234,567', '1.234.567', '-20')
    """
    return format(_localised(value, lang), "+," if signed else ",")


def language_of(locale: Any) -> str:
    """'vi' for a Vietnamese Discord locale (str or discord.Locale), else 'en'."""
    value = str(getattr(locale, "value", locale) or "")
    return "vi" if value.lower().startswith("vi") else "en"


def _flatten(prefix: str, data: dict[str, Any], out: dict[str, Any]) -> None:
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and value and set(value) <= _CATEGORIES and "other" in value:
            out[name] = Plural({form: str(text) for form, text in value.items()})
        elif isinstance(value, dict):
            _flatten(name, value, out)
        else:
            out[name] = str(value)


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, "str | Plural"]:
    """All entries of one language by dotted key: a string, or a :class:`Plural`."""
    out: dict[str, Any] = {}
    for path in sorted((_LOCALES / lang).glob("*.toml")):
        with path.open("rb") as handle:
            _flatten("", tomllib.load(handle), out)
    return out


def has(key: str) -> bool:
    return key in catalogue("en")


def t(lang: str, key: str, /, **params: Any) -> str:
    """The text for ``key`` in ``lang`` ('en' or 'vi'), formatted with ``params``.

    An unknown key falls back to English, then to the key itself, so a missing
    translation never breaks a reply (the catalogue test catches it first).
    A plural entry picks its form by the ``count`` parameter.
    """
    lang = lang if lang in LANGUAGES else "en"
    entry = catalogue(lang).get(key) or catalogue("en").get(key)
    if entry is None:
        return key
    if isinstance(entry, Plural):
        text = entry.get(plural_form(lang, params.get("count"))) or entry["other"]
    else:
        text = entry
    if not params:
        return text
    return text.format(**{name: _localised(value, lang) for name, value in params.items()})


def placeholders(text: "str | Plural") -> set[str]:
    """The ``{name}`` fields of a catalogue string (of every form of a plural entry)."""
    return {field for form in forms(text).values() for _, field, _, _ in string.Formatter().parse(form) if field}
