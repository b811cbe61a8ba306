"""The :class:`Database` handle: one engine and its short-lived sessions.

Everything in :mod:`db` takes a Database as its first argument and opens its
own transaction through :meth:`Database.write` or :meth:`Database.read`, or,
for the two hot paths (settlements, the action log), :meth:`Database.hot_write`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import Any, TypeVar

from dataclasses import dataclass

from sqlalchemy import BigInteger, Integer, bindparam, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from db import hot
from db.connect import DEFAULT_URL, SQLITE_BEGIN_OPTION, create_engine_for, stopped_driver_threads_ended
from db.errors import CommitOutcomeUnknown, StaleEpoch
from db.hot import HotFence, HotStatement
from db.migrate import upgrade_to_head
from db.models import ClusterSlotRow

T = TypeVar("T")


@dataclass(frozen=True)
class Fence:
    """The cluster slot this process holds and the epoch of its claim.

    While a Database has a fence, every write transaction first checks that
    the slot's stored epoch is still this one (and share-locks the row, so a
    new claim waits for writes in flight): a process that lost its slot can
    never write over the new owner.
    """

    slot: int
    epoch: int


# The slot's epoch, share-locked until the write commits (SQLite, which has
# no row locks and admits one writer at a time, just reads it).
_FENCE_CHECK = (
    select(ClusterSlotRow.epoch)
    .where(ClusterSlotRow.slot == bindparam("slot", type_=Integer))
    .with_for_update(read=True)
)
_HOT_FENCE_CHECK = HotStatement(_FENCE_CHECK)
# For hot writes: a row, share-locked, only while the slot has this epoch.
_FENCE_HOLDING = (
    select(ClusterSlotRow.slot)
    .where(
        ClusterSlotRow.slot == bindparam("slot", type_=Integer),
        ClusterSlotRow.epoch == bindparam("epoch", type_=BigInteger),
    )
    .with_for_update(read=True)
)


class Database:
    """Owns the engine; hands out one short session per unit of work.

    Use ``async with db.write() as session`` for anything that changes data and
    ``async with db.read() as session`` otherwise.  Both commit on success and
    roll back on error.  Never keep a session open across Discord I/O.
    """

    def __init__(
        self,
        url: str,
        *,
        connect_args: Mapping[str, Any] | None = None,
        echo: bool = False,
    ) -> None:
        self._url = url
        self._connect_args = dict(connect_args or {})
        self.engine = create_engine_for(url, connect_args=connect_args, echo=echo)
        write_engine = self.engine.execution_options(**{SQLITE_BEGIN_OPTION: "IMMEDIATE"})
        self._write_engine = write_engine
        self._write_sessions = async_sessionmaker(write_engine, expire_on_commit=False)
        self._read_sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # SQLite admits one writer at a time anyway.  Queueing this process's
        # writers here, in FIFO order, beats having them poll the file lock
        # through busy_timeout's sleeps; other processes still wait on that.
        self._writers_turn: AbstractAsyncContextManager[Any] = (
            asyncio.Lock() if self.dialect == "sqlite" else nullcontext()
        )
        self.fence: Fence | None = None
        """Set by the cluster member once it holds a slot (None: no cluster)."""
        self._hot_fence_cache: HotFence | None = None
        self.observe: Callable[[str, float], None] | None = None
        """Told ("write" or "read", seconds) after each transaction (metrics)."""

    @classmethod
    def from_url(
        cls,
        url: str | None = None,
        *,
        connect_args: Mapping[str, Any] | None = None,
        echo: bool = False,
    ) -> Database:
        """A Database for ``url`` (default: ``sqlite+aiosqlite:///tienlen.db``).

        Nothing connects until first use; call :meth:`upgrade` at start-up.
        """
        return cls(url or DEFAULT_URL, connect_args=connect_args, echo=echo)

    @property
    def url(self) -> str:
        return self._url

    @property
    def connect_args(self) -> dict[str, Any]:
        """The driver arguments every connection is opened with."""
        return dict(self._connect_args)

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.engine.dialect.name

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A read-write transaction; on SQLite it holds the write lock from BEGIN.

        Do not open a write unit inside another one: on SQLite the inner one
        would wait for the outer one forever.
        """
        async with self._timed("write"), self._writers_turn, self._write_sessions.begin() as session:
            if self.fence is not None:
                await self._check_fence(await session.connection(), self.fence)
            yield session

    @asynccontextmanager
    async def write_connection(self) -> AsyncIterator[AsyncConnection]:
        """Like :meth:`write`, but a Core connection (no ORM session) for hot paths."""
        async with self._timed("write"), self._writers_turn, self._write_engine.begin() as connection:
            if self.fence is not None:
                await self._check_fence(connection, self.fence)
            yield connection

    async def _check_fence(self, connection: AsyncConnection, fence: Fence) -> None:
        current = await connection.scalar(_FENCE_CHECK, {"slot": fence.slot})
        if current != fence.epoch:
            raise StaleEpoch(fence.slot, fence.epoch, current)

    async def hot_write(self, body: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``await body(connection, *args)`` as one write transaction of
        a hot path (:mod:`db.hot`), on a :class:`~db.hot.HotConnection`,
        committed, with the same lock, fence and metrics as :meth:`write`.

        The body must only read and write the database (it may run twice):
        when the connection turns out to be dead before COMMIT was sent, the
        server has rolled everything back and the whole transaction runs
        again on a new connection.  Lost after COMMIT was sent, it may have
        committed: that raises :class:`~db.errors.CommitOutcomeUnknown`.
        """
        pool = self.engine.sync_engine.pool
        dialect = self.engine.dialect
        for retries_left in (1, 0):
            check = self._hot_fence()
            attempt = hot.Attempt()
            # Timed inline (not through _timed): this is the hot path.
            started = time.perf_counter()
            try:
                async with self._writers_turn:
                    return await hot.transaction(pool, dialect, check, attempt, body, args)
            except DBAPIError as error:
                if attempt.committing and attempt.disconnected:
                    raise CommitOutcomeUnknown(error) from error
                if not (retries_left and attempt.retryable):
                    raise
            finally:
                if self.observe is not None:
                    self.observe("write", time.perf_counter() - started)
        raise AssertionError("unreachable")

    def _hot_fence(self) -> HotFence | None:
        fence = self.fence
        if fence is None:
            return None
        cached = self._hot_fence_cache
        if cached is None or (cached.slot, cached.epoch) != (fence.slot, fence.epoch):
            cached = self._hot_fence_cache = HotFence(fence.slot, fence.epoch, _HOT_FENCE_CHECK, _FENCE_HOLDING)
        return cached

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read transaction that takes no write lock."""
        async with self._timed("read"), self._read_sessions.begin() as session:
            yield session

    @asynccontextmanager
    async def _timed(self, kind: str) -> AsyncIterator[None]:
        if self.observe is None:
            yield
            return
        started = time.perf_counter()
        try:
            yield
        finally:
            self.observe(kind, time.perf_counter() - started)

    async def upgrade(self) -> None:
        """Migrate the schema to the newest revision, or raise SchemaError."""
        await upgrade_to_head(self._url, connect_args=self._connect_args)

    async def dispose(self) -> None:
        """Close every pooled connection; SQLite's driver threads end before this returns."""
        await self.engine.dispose()
        await stopped_driver_threads_ended()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.dispose()

    def __repr__(self) -> str:
        shown = make_url(self._url).render_as_string(hide_password=True)
        return f"Database({shown!r})"
