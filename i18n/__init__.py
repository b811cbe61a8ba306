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
"""

from __future__ import annotations

import string
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["LANGUAGES", "t", "language_of", "catalogue", "placeholders", "has"]

LANGUAGES = ("en", "vi")
_LOCALES = Path(__file__).parent / "locales"


def language_of(locale: Any) -> str:
    """'vi' for a Vietnamese Discord locale (str or discord.Locale), else 'en'."""
    value = str(getattr(locale, "value", locale) or "")
    return "vi" if value.lower().startswith("vi") else "en"


def _flatten(prefix: str, data: dict[str, Any], out: dict[str, str]) -> None:
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            _flatten(name, value, out)
        else:
            out[name] = str(value)


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """All strings of one language, by dotted key."""
    out: dict[str, str] = {}
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
    """
    lang = lang if lang in LANGUAGES else "en"
    text = catalogue(lang).get(key) or catalogue("en").get(key)
    if text is None:
        return key
    return text.format(**params) if params else text


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a catalogue string."""
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}
