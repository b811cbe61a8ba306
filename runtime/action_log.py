"""Write-through of game actions with group commit.

Every accepted action is stored before the player is answered.  Instead of one
transaction per move, moves that arrive while a write is in flight are stored
together in the next one: a move never waits for more than one commit ahead of
it, and a busy bot does a few commits a second rather than one per move.
Order within a table is kept because a table holds its lock until its own
action is stored.
"""

from __future__ import annotations

import asyncio
from typing import Any

import db

__all__ = ["ActionLog"]


class ActionLog:
    def __init__(self, database: "db.Database") -> None:
        self.db = database
        self._pending: list[tuple[tuple[int, int, Any], asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self.commits = 0
        self.stored = 0

    async def append(self, game_id: int, seq: int, action: Any) -> None:
        """Store one action; returns once it is committed (raises on failure)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(((game_id, seq, action), future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_all(), name="action-log-writer")
        await future

    async def _write_all(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                results = await db.append_actions(self.db, [item for item, _ in batch])
            except BaseException as error:  # the whole transaction failed: nobody's move is stored
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error if isinstance(error, Exception) else RuntimeError("cancelled"))
                if not isinstance(error, Exception):
                    raise
                continue
            self.commits += 1
            for (_, future), error in zip(batch, results):
                if future.done():
                    continue
                if error is None:
                    self.stored += 1
                    future.set_result(None)
                else:
                    future.set_exception(error)
