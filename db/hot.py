"""Hot-path write transactions: statements SQLAlchemy compiled once, run on
the driver connection of SQLAlchemy's pool.

Settlements and the action log's group commit are the data layer's hot
paths.  Through :class:`~sqlalchemy.ext.asyncio.AsyncConnection` each
statement cost about 60 µs of CPU on top of the driver's own work (cache-key
lookup, parameter dictionaries, an execution context and a result object, a
new greenlet per awaited call) and each transaction about 170 µs (connection
and transaction objects, events, five greenlets): as much as the statements
themselves take on a fast database.  Running the same compiled SQL through
SQLAlchemy's DBAPI adapter, in one greenlet per transaction, still cost
about 25 µs a statement and 100 µs a transaction more than the bare driver
(BENCHMARKS.md, "Chips and records").  So here the body of a hot
transaction is ordinary async code, and each statement is one call of the
driver (asyncpg, or one trip to aiosqlite's thread as :mod:`db.connect`'s
cursor makes it).

What stays SQLAlchemy's: the engine and its pool (checkout in a greenlet,
with its events and :mod:`db.connect`'s liveness checks, reset on return,
closing a returned connection it has no room for, also in a greenlet,
invalidation), the statements (Core, built from the models, see
:class:`HotStatement`), their SQL as SQLAlchemy's dialect compiles it, the
bind and result processing of their column types, the translation of driver
errors (the dialect adapter's own) and SQLAlchemy's exception classes.  What
this module does itself is what ``Connection`` would do around them: begin,
commit or roll back, check the cluster fence, raise
:class:`sqlalchemy.exc.DBAPIError` and invalidate the pool on a disconnect.
Nothing else should use it: ordinary units of work go through
:meth:`db.Database.write` and :meth:`~db.Database.read`.

Statement logging (``echo``) and cursor events do not see hot statements.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Dialect, exc
from sqlalchemy.sql import sqltypes
from sqlalchemy.pool import Pool, PoolProxiedConnection, QueuePool
from sqlalchemy.sql import Executable
from sqlalchemy.util import greenlet_spawn

from db.connect import run_statement, sqlite_begin_statement
from db.errors import StaleEpoch

T = TypeVar("T")

__all__ = ["HotStatement", "HotConnection", "HotFence", "Attempt", "transaction"]


class HotStatement:
    """A Core statement for the hot path, compiled once per dialect.

    Parameters are the statement's own ``bindparam`` names, given as a
    mapping at execution; constants SQLAlchemy bound itself (``x + 1``, a
    literal status) are filled in from the statement.  Expanding (``IN``
    list) parameters are not supported: build one statement per list length.
    """

    __slots__ = ("statement", "many", "_compiled")

    def __init__(self, statement: Executable, *, many: bool = False) -> None:
        self.statement = statement
        self.many = many
        """Compiled for ``executemany`` (an INSERT without RETURNING)."""
        self._compiled: dict[tuple[str, str], _Compiled] = {}

    def compiled(self, dialect: Dialect) -> _Compiled:
        key = (dialect.name, dialect.driver)
        found = self._compiled.get(key)
        if found is None:
            found = self._compiled[key] = _Compiled(self.statement, dialect, many=self.many)
        return found

    def __repr__(self) -> str:
        return f"HotStatement({str(self.statement)[:60]!r}...)"


class _Compiled:
    """One dialect's SQL for a statement, and how to fill its positional
    parameters and read its rows."""

    __slots__ = ("sql", "_plain", "_processed", "_constants", "_layout", "_result_processors")

    def __init__(self, statement: Executable, dialect: Dialect, *, many: bool) -> None:
        compiled = statement.compile(dialect=dialect, for_executemany=many)
        if compiled.positiontup is None:
            raise TypeError(f"{dialect.name}: hot statements need a positional paramstyle")
        if compiled.literal_execute_params or compiled.post_compile_params:
            raise TypeError("hot statements take plain bound parameters, not expanding ones")
        self.sql = compiled.string
        # Each distinct parameter is looked up (and processed) once, even
        # where the SQL repeats it (SQLite's "?" style repeats a name at
        # every use); the positions then pick from these values: first the
        # caller's parameters without a bind processor, then those with one,
        # then the constants SQLAlchemy bound itself, already processed.
        plain: list[str] = []
        processed: list[tuple[str, Callable[[Any], Any]]] = []
        constants: dict[str, Any] = {}
        for name in dict.fromkeys(compiled.positiontup):
            bind = compiled.binds[name]
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if not bind.required:
                value = bind.effective_value
                constants[name] = processor(value) if processor else value
            elif processor is None:
                plain.append(name)
            else:
                processed.append((name, processor))
        order = plain + [name for name, _ in processed] + list(constants)
        index = {name: n for n, name in enumerate(order)}
        layout = tuple(index[name] for name in compiled.positiontup)
        self._plain = tuple(plain)
        self._processed = tuple(processed)
        self._constants = tuple(constants.values())
        self._layout = None if layout == tuple(range(len(order))) else layout
        columns = list(getattr(statement, "exported_columns", ()))
        processors = [_result_processor(column.type, dialect) for column in columns]
        self._result_processors = tuple(processors) if any(processors) else None

    def positional(self, parameters: Mapping[str, Any]) -> tuple[Any, ...]:
        values = [parameters[name] for name in self._plain]
        values += [processor(parameters[name]) for name, processor in self._processed]
        values += self._constants
        layout = self._layout
        return tuple(values) if layout is None else tuple([values[n] for n in layout])

    def result(self, rows: Sequence[Any]) -> list[tuple[Any, ...]]:
        processors = self._result_processors
        if processors is None:
            return [tuple(row) for row in rows]
        return [
            tuple(processor(value) if processor else value for processor, value in zip(processors, row))
            for row in rows
        ]


def _result_processor(type_: Any, dialect: Dialect) -> Callable[[Any], Any] | None:
    """How a column's values read back.  Floats come back as floats from both
    drivers (asyncpg's float8, SQLite's REAL); PostgreSQL's numeric processor
    wants the column's type code, which a hot statement does not have."""
    if isinstance(type_, sqltypes.Float):
        return None
    return type_.dialect_impl(dialect).result_processor(dialect, None)


class HotFence:
    """The cluster fence as hot writes check it: in the same trip to the
    database as BEGIN (see :meth:`_Driver.begin`).

    ``current`` reads the slot's epoch, share-locked until the transaction
    ends (the check of :meth:`db.Database.write`); ``holding`` returns a row,
    share-locked, only while the epoch is still ``epoch``.
    """

    __slots__ = ("slot", "epoch", "current", "_holding", "_holding_sql")

    def __init__(self, slot: int, epoch: int, current: HotStatement, holding: Executable) -> None:
        self.slot = slot
        self.epoch = epoch
        self.current = current
        self._holding = holding
        self._holding_sql: dict[str, str] = {}

    def holding_sql(self, dialect: Dialect) -> str:
        """``holding`` with this slot and epoch as literals (for a simple
        query, which takes no parameters), compiled once."""
        sql = self._holding_sql.get(dialect.name)
        if sql is None:
            bound = self._holding.params(slot=self.slot, epoch=self.epoch)  # type: ignore[attr-defined]
            sql = str(bound.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
            self._holding_sql[dialect.name] = sql
        return sql

    async def stale(self, driver: _Driver) -> StaleEpoch:
        """The error for a write refused by the fence, with the epoch now stored."""
        compiled = self.current.compiled(driver.dialect)
        rows = compiled.result(await driver.fetch(compiled.sql, compiled.positional({"slot": self.slot})))
        return StaleEpoch(self.slot, self.epoch, rows[0][0] if rows else None)


class HotConnection:
    """The running hot transaction's connection: executes HotStatements on
    the driver connection (``await connection.rows(...)``)."""

    __slots__ = ("dialect", "_driver")

    def __init__(self, driver: _Driver, dialect: Dialect) -> None:
        self.dialect = dialect
        self._driver = driver

    async def rows(self, statement: HotStatement, parameters: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Execute and return every row (empty when the statement returns none)."""
        compiled = statement.compiled(self.dialect)
        positional = compiled.positional(parameters)
        return compiled.result(await self._driver.fetch(compiled.sql, positional))

    async def first(self, statement: HotStatement, parameters: Mapping[str, Any]) -> tuple[Any, ...] | None:
        rows = await self.rows(statement, parameters)
        return rows[0] if rows else None

    async def execute_many(self, statement: HotStatement, parameters: Sequence[Mapping[str, Any]]) -> None:
        """Execute once per parameter set (the driver's executemany)."""
        if not statement.many:
            raise TypeError("executemany needs a HotStatement(..., many=True)")
        compiled = statement.compiled(self.dialect)
        await self._driver.executemany(compiled.sql, [compiled.positional(each) for each in parameters])


class _DBAPIFailure(Exception):
    """A driver error, as SQLAlchemy's DBAPI adapter translates it, and the
    statement it came from: on its way to become SQLAlchemy's DBAPIError
    once the transaction knows whether it was a disconnect (wrapped so that
    the body's own handlers cannot take it for one of theirs)."""

    def __init__(self, error: Exception, statement: str | None, parameters: Any) -> None:
        super().__init__(error)
        self.error = error
        self.statement = statement
        self.parameters = parameters


class _Driver(ABC):
    """One checked-out connection's driver, for one transaction at a time:
    begin, fetch, executemany, commit and roll back, errors translated."""

    def __init__(self, fairy: PoolProxiedConnection, dialect: Dialect) -> None:
        self.fairy = fairy
        self.dialect = dialect
        self.connection: Any = fairy.driver_connection
        self.in_transaction = False

    @abstractmethod
    async def begin(self, fence: HotFence | None) -> None:
        """BEGIN, and with a fence check it in the same trip to the database
        (raises StaleEpoch; the transaction is open either way)."""

    @abstractmethod
    async def fetch(self, sql: str, parameters: Sequence[Any]) -> Sequence[Any]:
        """Every row (none for a statement that returns none)."""

    @abstractmethod
    async def executemany(self, sql: str, parameters: Sequence[Sequence[Any]]) -> None: ...

    @abstractmethod
    async def commit(self) -> None: ...

    @abstractmethod
    async def rollback(self) -> None: ...

    def failure(self, error: Exception, statement: str | None, parameters: Any) -> Exception:
        """``error`` as SQLAlchemy's adapter would have raised it, wrapped in
        _DBAPIFailure when it is a DBAPI error (else as it is)."""
        dbapi = self.dialect.loaded_dbapi
        translated = error
        if not isinstance(error, dbapi.Error):
            try:
                type(self.fairy.dbapi_connection)._handle_exception_no_connection(dbapi, error)
            except Exception as raised:
                translated = raised
        if isinstance(translated, dbapi.Error):
            return _DBAPIFailure(translated, statement, parameters)
        return error


class _Asyncpg(_Driver):
    """asyncpg: statements go through its own prepared-statement cache;
    BEGIN, COMMIT and ROLLBACK are simple queries, as asyncpg's own
    Transaction sends them, so that BEGIN can carry the fence check."""

    async def begin(self, fence: HotFence | None) -> None:
        query = _BEGIN if fence is None else f"{_BEGIN}; {fence.holding_sql(self.dialect)}"
        try:
            status = await self.connection.execute(query)
        except Exception as error:
            raise self.failure(error, query, None) from error
        finally:
            self.in_transaction = self.connection.is_in_transaction()
        # A simple query answers with the last statement's status only:
        # "SELECT 1" when the slot still has our epoch (now share-locked).
        if fence is not None and status != "SELECT 1":
            raise await fence.stale(self)

    async def fetch(self, sql: str, parameters: Sequence[Any]) -> Sequence[Any]:
        try:
            return await self.connection.fetch(sql, *parameters)
        except Exception as error:
            raise self.failure(error, sql, parameters) from error

    async def executemany(self, sql: str, parameters: Sequence[Sequence[Any]]) -> None:
        try:
            await self.connection.executemany(sql, parameters)
        except Exception as error:
            raise self.failure(error, sql, parameters) from error

    async def commit(self) -> None:
        try:
            await self.connection.execute(_COMMIT)
        except Exception as error:
            raise self.failure(error, _COMMIT, None) from error
        finally:
            self.in_transaction = self.connection.is_in_transaction()

    async def rollback(self) -> None:
        try:
            await self.connection.execute(_ROLLBACK)
        finally:
            self.in_transaction = self.connection.is_in_transaction()


class _Aiosqlite(_Driver):
    """aiosqlite: each statement is one trip to its thread (as db.connect's
    cursor does it: execute, fetch every row, close)."""

    async def fetch(self, sql: str, parameters: Any, many: bool = False) -> Sequence[Any]:
        connection = self.connection
        try:
            _description, _rowcount, _lastrowid, rows = await connection._execute(
                run_statement, connection._conn, sql, parameters, many
            )
        except Exception as error:
            raise self.failure(error, sql, parameters) from error
        return rows or ()

    async def begin(self, fence: HotFence | None) -> None:
        # Hold the write lock from BEGIN, as Database.write does.
        if fence is None:
            await self.fetch(_BEGIN_IMMEDIATE, None)
            self.in_transaction = True
            return
        compiled = fence.current.compiled(self.dialect)
        parameters = compiled.positional({"slot": fence.slot})
        connection = self.connection
        try:
            rows = await connection._execute(_begin_and_read, connection._conn, compiled.sql, parameters)
        except Exception as error:
            raise self.failure(error, compiled.sql, parameters) from error
        finally:
            self.in_transaction = self._open()
        current = compiled.result(rows)[0][0] if rows else None
        if current != fence.epoch:
            raise StaleEpoch(fence.slot, fence.epoch, current)

    async def executemany(self, sql: str, parameters: Sequence[Sequence[Any]]) -> None:
        await self.fetch(sql, parameters, True)

    async def commit(self) -> None:
        try:
            await self.connection.commit()
        except Exception as error:
            raise self.failure(error, "COMMIT", None) from error
        finally:
            self.in_transaction = self._open()

    async def rollback(self) -> None:
        try:
            await self.connection.rollback()
        finally:
            self.in_transaction = self._open()

    def _open(self) -> bool:
        sqlite_connection = self.connection._connection
        return sqlite_connection is not None and sqlite_connection.in_transaction


def _begin_and_read(connection: Any, sql: str, parameters: Any) -> Sequence[Any]:
    """In aiosqlite's thread: BEGIN IMMEDIATE, then one statement's rows."""
    run_statement(connection, _BEGIN_IMMEDIATE, None, False)
    return run_statement(connection, sql, parameters, False)[3] or ()


# Transaction control, the only SQL here not built by SQLAlchemy (it emits
# these as plain strings too).
_BEGIN_IMMEDIATE = sqlite_begin_statement("IMMEDIATE")
_BEGIN, _COMMIT, _ROLLBACK = "BEGIN", "COMMIT", "ROLLBACK"

_DRIVERS: dict[str, type[_Driver]] = {"asyncpg": _Asyncpg, "aiosqlite": _Aiosqlite}


@dataclass
class Attempt:
    """How far one run of :func:`transaction` got (read after it raised)."""

    committing: bool = False
    """True once COMMIT was sent: a failure from then on may have committed."""
    disconnected: bool = False
    """The connection was lost (and the pool invalidated)."""

    @property
    def retryable(self) -> bool:
        """Lost before COMMIT: the server rolled it all back, so running the
        whole transaction again on a new connection is safe."""
        return self.disconnected and not self.committing


async def transaction(
    pool: Pool,
    dialect: Dialect,
    fence: HotFence | None,
    attempt: Attempt,
    body: Callable[..., Awaitable[T]],
    args: Sequence[Any],
) -> T:
    """One write transaction: ``await body(connection, *args)``, committed.

    ``fence``: the cluster fence every write checks before anything else,
    as :meth:`db.Database.write` does (here in BEGIN's own round trip).  On
    any error, or a cancellation, the transaction is rolled back, and a
    connection that could not roll back is invalidated rather than returned
    to the pool with a transaction open.  DBAPI errors are raised as
    SQLAlchemy's DBAPIError; a disconnect invalidates the pool, as
    SQLAlchemy's Connection does, and is noted in ``attempt``.
    """
    driver_class = _DRIVERS.get(dialect.driver)
    if driver_class is None:
        raise TypeError(f"hot paths run on asyncpg or aiosqlite, not {dialect.driver}")
    fairy = await _checkout(pool, dialect, attempt)
    driver = driver_class(fairy, dialect)
    try:
        await driver.begin(fence)
        result = await body(HotConnection(driver, dialect), *args)
        attempt.committing = True
        await driver.commit()
        return result
    except _DBAPIFailure as failure:
        attempt.disconnected = dialect.is_disconnect(failure.error, fairy.dbapi_connection, None)
        if attempt.disconnected:
            # Every connection of the pool opened before this one is
            # replaced at its next checkout (what Connection does).
            pool._invalidate(fairy, failure.error)
        else:
            await _roll_back(driver)
        raise _as_sqlalchemy_error(failure, dialect, attempt.disconnected) from failure.error
    except BaseException:
        await _roll_back(driver)
        raise
    finally:
        if fairy.is_valid and driver.in_transaction:
            fairy.invalidate()  # never handed out again mid-transaction
        # With no transaction open, giving the connection back needs no
        # database call (the adapters' rollback on return has nothing to do),
        # unless the pool has no room for it and closes it: that is I/O, which
        # the drivers' adapters do only in a greenlet.
        if fairy.is_valid and _full(pool):
            await greenlet_spawn(fairy.close)
        else:
            fairy.close()


def _full(pool: Pool) -> bool:
    """Whether a connection given back to ``pool`` now is closed rather than kept (an overflow connection)."""
    return not isinstance(pool, QueuePool) or pool.checkedin() >= pool.size()


async def _checkout(pool: Pool, dialect: Dialect, attempt: Attempt) -> PoolProxiedConnection:
    """A connection from the pool; on SQLite without a greenlet when none is needed.

    Handing out an idle SQLite connection needs no I/O (the pool has no
    checkout events there), and a new greenlet costs as much as that
    checkout and its return together (~30 µs: CPython gives each greenlet a
    fresh frame stack, mapped and unmapped).  Should the checkout have to
    wait after all (a reconnect), SQLAlchemy's await_ raises MissingGreenlet
    before anything started (aiosqlite's connection object is inert until
    awaited), the pool unwinds as from a failed connect, and the checkout
    is done again in a greenlet.  On PostgreSQL, where a checkout may
    reconnect or ping (db.connect) and the round trips dominate anyway, it
    is always made in a greenlet.
    """
    try:
        if dialect.driver == "aiosqlite" and pool.checkedin():  # type: ignore[attr-defined]
            try:
                return pool.connect()
            except exc.MissingGreenlet:
                pass
        return await greenlet_spawn(pool.connect)
    except dialect.loaded_dbapi.Error as error:
        attempt.disconnected = dialect.is_disconnect(error, None, None)
        failure = _DBAPIFailure(error, None, None)
        raise _as_sqlalchemy_error(failure, dialect, attempt.disconnected) from error


def _as_sqlalchemy_error(failure: _DBAPIFailure, dialect: Dialect, disconnected: bool) -> Exception:
    return exc.DBAPIError.instance(
        failure.statement,
        failure.parameters,
        failure.error,
        dialect.loaded_dbapi.Error,
        hide_parameters=True,  # as the engines: parameters carry hands and played cards
        connection_invalidated=disconnected,
        dialect=dialect,
    )


async def _roll_back(driver: _Driver) -> None:
    if not (driver.fairy.is_valid and driver.in_transaction):
        return
    try:
        await driver.rollback()
    except BaseException:
        # Cancelled again, or the connection broke: the caller invalidates
        # it.  The first error is the one worth raising.
        pass
