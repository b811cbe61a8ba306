"""No card reaches a log line at INFO and above, whatever quotes one."""

from __future__ import annotations

import logging

from runtime.logs import CardMask, mask_cards


def record(level: int, message: str, *args, exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord("runtime.store", level, __file__, 1, message, args, exc_info)


def formatted(item: logging.LogRecord) -> str:
    return logging.Formatter("%(levelname)s %(message)s").format(item)


def test_cards_in_a_message_and_its_traceback_are_masked() -> None:
    try:
        raise RuntimeError("INSERT failed: parameters ['play', 0, '3C 4C 5C'] hands ['AS 2H 10D']")
    except RuntimeError as error:
        item = record(logging.ERROR, "game %s: %s", 7, "seat 1 holds QH KH", exc=error)
    assert CardMask().filter(item)
    text = formatted(item)
    for card in ("3C", "4C", "5C", "AS", "2H", "10D", "QH", "KH"):
        assert card not in text
    assert "game 7" in text and "RuntimeError" in text and "??" in text


def test_debug_lines_and_plain_numbers_are_left_alone() -> None:
    debug = record(logging.DEBUG, "hand 3S 4S")
    CardMask().filter(debug)
    assert formatted(debug).endswith("hand 3S 4S")
    plain = record(logging.WARNING, "The database writes work again after 3 s (12 failed attempts), channel 123456789")
    CardMask().filter(plain)
    assert "3 s" in formatted(plain) and "123456789" in formatted(plain)


def test_every_card_form_is_a_token() -> None:
    assert mask_cards("3S 10H AD 2C 3♠ 10♥ A♦ 2♣ 3s TH") == " ".join(["??"] * 10)
    assert mask_cards("marked as posted; Ks and Qs stay words") == "marked as posted; Ks and Qs stay words"
