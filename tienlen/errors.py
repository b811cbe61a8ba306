"""Errors raised by the engine, each with a stable ``code`` for translation.

The message is plain English for logs and the terminal game; the bot translates
``code`` (with ``params``) through its language catalogue instead.
"""

from __future__ import annotations

from typing import Any

from tienlen.cards import InvalidCardError

__all__ = ["TienLenError", "IllegalPlayError", "InvalidComboError", "InvalidCardError"]


class TienLenError(Exception):
    """Base of the engine's own errors."""


class IllegalPlayError(TienLenError, ValueError):
    """An action the rules do not allow now; nothing changed.

    ``code`` names the reason (``"not_your_turn"``, ``"cannot_beat"``,
    ``"must_include"``, …) and ``params`` holds its details.
    """

    def __init__(self, message: str, *, code: str = "illegal", **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class InvalidComboError(IllegalPlayError):
    """The cards do not form a combination under the table's rules."""
