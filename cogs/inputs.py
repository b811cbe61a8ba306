"""What people send the bot, read into typed values or refused with a reason.

Discord does not enforce everything it shows: choices, ranges and select
values can be forged, and a typed option can be any text.  Every slash
option, select value and ``custom_id`` part the bot acts on is read here.
A value that is not allowed raises :class:`InputError`, whose ``code`` names
a catalogue message (``error.{code}``, Vietnamese and English) saying what
was wrong and what is allowed; text the user typed is cut before it is shown
back (:func:`shown`).

>>> quick_choice(["1c"])
28
>>> quick_choice(["zz"])
Traceback (most recent call last):
...
cogs.inputs.InputError: choice_gone
>>> shown("x" * 100)
'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from tienlen import RULESETS, parse_cards
from tienlen.ai import LEVELS
from tienlen.cards import FULL_DECK, Card, InvalidCardError
from tienlen.table import MAX_TURN_SECONDS

__all__ = [
    "InputError", "shown", "quick_choice", "picked_cards", "typed_cards", "rules_name", "bet", "turn_seconds",
    "ai_level", "board_order", "ECHO_LIMIT", "MIN_BET", "MAX_BET", "BOARD_ORDERS",
    "whole_in", "timezone", "language", "restorable", "STARTING_CHIPS", "DAILY_CHIPS", "ACCOUNT_DAYS",
    "LANGUAGE_CHOICES", "RESTORABLE", "flag", "game_number", "MAX_GAME_NUMBER",
]

ECHO_LIMIT = 32
"""Characters of a person's own text shown back to them at most."""
MIN_BET, MAX_BET = 1, 1_000_000
BOARD_ORDERS = ("rating", "chips", "wins", "winrate")
_MASK_DIGITS = 13  # 52 bits of cards, in hexadecimal


class InputError(ValueError):
    """A value the bot does not accept; ``code`` names its catalogue message."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def shown(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` as it may be shown back: at most ``limit`` characters, on one line."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit] + "…"


def quick_choice(values: Sequence[str]) -> int:
    """The cards of a quick-play choice (one hexadecimal mask of cards)."""
    if len(values) != 1 or not isinstance(values[0], str):
        raise InputError("choice_gone")
    value = values[0]
    if not 0 < len(value) <= _MASK_DIGITS or any(digit not in "0123456789abcdef" for digit in value):
        raise InputError("choice_gone")
    mask = int(value, 16)
    if not mask or mask & ~FULL_DECK:
        raise InputError("choice_gone")
    return mask


def picked_cards(values: Iterable[str]) -> tuple[Card, ...]:
    """The cards chosen in the card picker (each value a card's code)."""
    values = list(values)
    if len(values) > 13 or not all(isinstance(value, str) for value in values):
        raise InputError("choice_gone")
    return tuple(_cards(" ".join(values)))


def typed_cards(text: Any) -> list[Card]:
    """Cards written in a command, like ``3S 4S 5S``."""
    if not isinstance(text, str):
        raise InputError("bad_card", token=shown(str(text)))
    cards = _cards(text)
    if not cards:
        raise InputError("no_cards")
    return cards


def _cards(text: str) -> list[Card]:
    try:
        return parse_cards(text)
    except InvalidCardError as error:
        if error.reason == "twice":
            raise InputError("card_twice", card=shown(error.token)) from None
        raise InputError("bad_card", token=shown(error.token)) from None


def rules_name(value: Any) -> str | None:
    """A rule set's name (None: the default)."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in RULESETS:
        raise InputError("unknown_rules", rules=shown(str(value)), known=", ".join(RULESETS))
    return value


def bet(value: Any) -> int | None:
    """Chips per bet unit (None: the default)."""
    if value is None:
        return None
    if not _whole(value) or not MIN_BET <= value <= MAX_BET:
        raise InputError("bad_bet", min=MIN_BET, max=MAX_BET)
    return value


def turn_seconds(value: Any, minimum: int) -> int | None:
    """Seconds a turn lasts (None: the preset's own)."""
    if value is None:
        return None
    if not _whole(value) or not minimum <= value <= MAX_TURN_SECONDS:
        raise InputError("bad_turn_seconds", min=minimum, max=MAX_TURN_SECONDS)
    return value


def ai_level(value: Any) -> str:
    """An AI seat's level (default: normal)."""
    if value is None:
        return "normal"
    if not isinstance(value, str) or value not in LEVELS:
        raise InputError("bad_level", known=", ".join(LEVELS))
    return value


def flag(value: Any) -> bool:
    """A yes/no option (a forged value of another type is refused)."""
    if not isinstance(value, bool):
        raise InputError("bad_option")
    return value


MAX_GAME_NUMBER = 2**63 - 1


def game_number(value: Any) -> int | None:
    """A game's number, as /tienlen history shows it (None: not given)."""
    if value is None:
        return None
    if not _whole(value) or not 1 <= value <= MAX_GAME_NUMBER:
        raise InputError("bad_game_number")
    return value


def board_order(value: Any) -> str:
    """What a leaderboard ranks by (default: the skill rating)."""
    if value is None:
        return "rating"
    if not isinstance(value, str) or value not in BOARD_ORDERS:
        raise InputError("bad_order", known=", ".join(BOARD_ORDERS))
    return value


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ------------------------------------------------------------ server settings
STARTING_CHIPS = (1, 10_000_000)
DAILY_CHIPS = (0, 1_000_000)
ACCOUNT_DAYS = (0, 3650)
LANGUAGE_CHOICES = ("auto", "vi", "en")
RESTORABLE = ("starting_chips", "daily_chips", "timezone", "rules", "bet", "turn_seconds", "language", "ai_seats",
              "channels", "account_days", "ranked_only")
"""Settings a server can set back to the bot's default, by their option names."""


def whole_in(value: Any, bounds: tuple[int, int], code: str) -> int | None:
    """A whole number within ``bounds`` (None: not given)."""
    if value is None:
        return None
    low, high = bounds
    if not _whole(value) or not low <= value <= high:
        raise InputError(code, min=low, max=high)
    return value


def timezone(value: Any) -> str | None:
    """An IANA time zone name, like ``Asia/Ho_Chi_Minh``."""
    if value is None:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        if not isinstance(value, str) or not 0 < len(value) <= 64 or value.startswith("/") or ".." in value:
            raise ValueError(value)
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError("bad_timezone", timezone=shown(str(value))) from None
    return value


def language(value: Any) -> str | None:
    """"auto", "vi" or "en" (None: not given)."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in LANGUAGE_CHOICES:
        raise InputError("bad_language", known=", ".join(LANGUAGE_CHOICES))
    return value


def restorable(value: Any) -> str | None:
    """The name of a setting to set back to the bot's default."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in RESTORABLE:
        raise InputError("bad_setting", known=", ".join(RESTORABLE))
    return value
