"""The live tables of this process: committed states, one lock each, and what they show.

The registry holds only committed values: a state is put here after the
store wrote it, never before.  Each table has one asyncio lock; every
change of a table (a player's command, a time-out, an AI move, a restore)
holds it from reading the state to keeping the new one.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from typing import Iterator

from runtime.snapshot import Event, GameSummary, TableSnapshot
from runtime.state import TableState

__all__ = ["TableRegistry", "RECENT_EVENTS", "QUIET_EVENTS"]

RECENT_EVENTS = 5
QUIET_EVENTS = frozenset({"restored"})
"""Shown once, not kept in the running list of a table's last events."""


class TableRegistry:
    def __init__(self) -> None:
        self._states: dict[int, TableState] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._snapshots: dict[int, TableSnapshot] = {}
        self._recent: dict[int, deque[Event]] = {}
        self._summaries: dict[int, GameSummary] = {}
        self._versions = itertools.count(1)

    def lock(self, channel_id: int) -> asyncio.Lock:
        return self._locks.setdefault(channel_id, asyncio.Lock())

    def get(self, channel_id: int) -> TableState | None:
        return self._states.get(channel_id)

    def __iter__(self) -> Iterator[TableState]:
        return iter(list(self._states.values()))

    def __len__(self) -> int:
        return len(self._states)

    def keep(self, channel_id: int, state: TableState | None) -> None:
        """The committed state of the table (None: it closed)."""
        if state is None:
            self._states.pop(channel_id, None)
            self._summaries.pop(channel_id, None)
            self._recent.pop(channel_id, None)
        else:
            self._states[channel_id] = state

    # ----------------------------------------------------------- what it shows
    def snapshot(self, channel_id: int) -> TableSnapshot | None:
        return self._snapshots.get(channel_id)

    def shown(self, snapshot: TableSnapshot) -> TableSnapshot:
        self._snapshots[snapshot.channel_id] = snapshot
        return snapshot

    def next_version(self) -> int:
        return next(self._versions)

    def events(self, channel_id: int, new: tuple[Event, ...]) -> tuple[Event, ...]:
        """The table's last public events with ``new`` added (quiet ones shown once)."""
        recent = self._recent.setdefault(channel_id, deque(maxlen=RECENT_EVENTS))
        recent.extend(event for event in new if event.kind not in QUIET_EVENTS)
        return tuple(recent) + tuple(event for event in new if event.kind in QUIET_EVENTS)

    def summary(self, channel_id: int, summary: GameSummary | None = None) -> GameSummary | None:
        """The last game's summary, shown on the table until the next deal."""
        if summary is not None:
            self._summaries[channel_id] = summary
        return self._summaries.get(channel_id)
