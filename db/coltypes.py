"""Column types that behave the same on SQLite and PostgreSQL.

SQLite has no time zone aware timestamp and only auto-increments a column
declared exactly ``INTEGER PRIMARY KEY``; these types hide both differences so
that the models and the code above them can ignore which database is in use.
"""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, Dialect, Integer
from sqlalchemy.types import TypeDecorator

# SQLite's INTEGER is already 64-bit; only that spelling becomes the rowid alias
# that auto-increments.
AutoIncrementId = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> datetime.datetime:
    """The current time as an aware UTC datetime."""
    return datetime.datetime.now(datetime.UTC)


class UtcDateTime(TypeDecorator[datetime.datetime]):
    """An aware datetime, stored in UTC, always read back as aware UTC.

    Naive datetimes are refused on the way in: a naive value is ambiguous and
    would silently shift daily-claim boundaries by the server's offset.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(
        self, value: datetime.datetime | None, dialect: Dialect
    ) -> datetime.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("naive datetime given; pass an aware datetime")
        as_utc = value.astimezone(datetime.UTC)
        # SQLite stores text; a fixed naive-UTC form keeps it sortable.
        return as_utc.replace(tzinfo=None) if dialect.name == "sqlite" else as_utc

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime.datetime | None:
        if value is None:
            return None
        stored: datetime.datetime = value
        if stored.tzinfo is None:
            return stored.replace(tzinfo=datetime.UTC)
        return stored.astimezone(datetime.UTC)
