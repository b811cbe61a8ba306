"""Checks on the plain values callers hand to the data layer.

Chip amounts are limited to 2**53 so that every amount survives a round trip
through JSON and JavaScript clients exactly; anything larger is a bug or an
attack, never a real payment.
"""

from __future__ import annotations

from db.errors import InvalidAmount

MAX_AMOUNT = 2**53

# ledger.idempotency_key is VARCHAR(200).
MAX_KEY_LENGTH = 200


def require_amount(value: object, *, what: str = "amount", allow_zero: bool = False) -> int:
    """Return ``value`` if it is a valid chip amount, else raise InvalidAmount."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidAmount(f"{what} must be an int, not {type(value).__name__}")
    if value < 0 or (value == 0 and not allow_zero):
        needed = "zero or more" if allow_zero else "positive"
        raise InvalidAmount(f"{what} must be {needed}, got {value}")
    if value > MAX_AMOUNT:
        raise InvalidAmount(f"{what} {value} is larger than 2**53")
    return value


def require_id(value: object, *, what: str = "id") -> int:
    """Return ``value`` if it can be a Discord snowflake or row id."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < 2**63:
        raise ValueError(f"{what} {value} is out of range")
    return value


def require_percent(value: object, *, what: str = "percent") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise InvalidAmount(f"{what} must be an int from 0 to 100, got {value!r}")
    return value


def require_key(key: object, *, suffix_room: int = 0) -> str:
    """Return ``key`` if it can be stored as an idempotency key.

    ``suffix_room`` leaves space for suffixes the caller will append.
    """
    limit = MAX_KEY_LENGTH - suffix_room
    if not isinstance(key, str) or not 0 < len(key) <= limit:
        raise ValueError(f"idempotency key must be a string of 1 to {limit} characters")
    return key
