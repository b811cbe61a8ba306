"""What reaches the log: never a card.

A hand is private (docs/rules.md §3, DESIGN): it must not appear in a log line at
INFO or above, nor in an error that somebody else might read.  The bot's
own log calls name tables, games and seats, never cards; what could still
carry cards is text the bot does not write itself: a database error that
quotes a statement's parameters or a failing row, a traceback's exception
message.  SQL parameters are not logged at all (the engines hide them);
:class:`CardMask` is the last line of defence: installed on the log
handlers, it replaces every card token in a record at INFO and above (its
message, and its exception text) with ``??``.

>>> mask_cards("seat 2 played 3S 4S and holds 10♥, AD")
'seat 2 played ?? ?? and holds ??, ??'
>>> mask_cards("after 3 s, 12 tables, channel 1234567890123456789")
'after 3 s, 12 tables, channel 1234567890123456789'
"""

from __future__ import annotations

import logging
import re

__all__ = ["CardMask", "mask_cards", "install", "CARD_TOKEN"]

CARD_TOKEN = re.compile(
    r"(?<![0-9A-Za-z])(?:(?:10|[2-9])[SCDHscdh]|[TJQKA][SCDH])(?![0-9A-Za-z])|(?:10|[2-9TJQKA])[♠♣♦♥]")
"""A card as the engine writes it (``3S``, ``10H``, ``AD``, also ``3s``) or shows it (``3♠``).  Face cards
count in capitals only, or every "as" in a sentence would be an ace of spades."""


def mask_cards(text: str) -> str:
    return CARD_TOKEN.sub("??", text)


class CardMask(logging.Filter):
    """Masks card tokens in records at INFO and above (DEBUG is for a developer's own machine)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.INFO:
            return True
        message = record.getMessage()
        masked = mask_cards(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_cards(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_cards(record.stack_info)
        return True


def install(handlers: list[logging.Handler] | None = None) -> CardMask:
    """Put the mask on ``handlers`` (default: the root logger's)."""
    mask = CardMask()
    for handler in handlers if handlers is not None else logging.getLogger().handlers:
        handler.addFilter(mask)
    return mask
