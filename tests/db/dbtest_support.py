"""Shared values for the data-layer tests (imported by conftest and tests).

Named uniquely because pytest puts this directory on sys.path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from db import Database


@dataclass(frozen=True)
class Backend:
    """Where a test's database lives, and how to open more handles on it."""

    name: str
    url: str
    connect_args: dict[str, Any]
    pg_schema: str | None = None

    def open(self) -> Database:
        return Database.from_url(self.url, connect_args=self.connect_args)


GUILD = 111_111_111_111_111_111
OTHER_GUILD = 222_222_222_222_222_222
CHANNEL = 333_333_333_333_333_333
START = 1_000


def human(user_id: int, name: str | None = None) -> dict[str, Any]:
    return {"user_id": user_id, "name": name or f"player{user_id}", "ai": None}


def robot(level: str = "easy") -> dict[str, Any]:
    return {"user_id": None, "name": f"AI ({level})", "ai": level}
