"""Hot-path write transactions: statements SQLAlchemy compiled once, run on
SQLAlchemy's pooled DBAPI connection, the whole transaction in one greenlet.

Settlements and the action log's group commit are the data layer's hot
paths.  Through :class:`~sqlalchemy.ext.asyncio.AsyncConnection` each
statement cost about 60 µs of CPU on top of the driver's own work (cache-key
lookup, parameter dictionaries, an execution context and a result object, a
new greenlet per awaited call) and each transaction about 170 µs (connection
and transaction objects, events, five greenlets): as much as the statements
themselves take on a fast database (BENCHMARKS.md, "Chips and records").

What stays SQLAlchemy's here: the engine and its pool (checkout and its
events, reset-on-return, invalidation), the
statements (Core, from the models, see :class:`HotStatement`), their SQL as
SQLAlchemy's dialect compiles it, the bind and result processing of their
column types, the dialect's DBAPI adapter that runs them (asyncpg's with its
prepared-statement cache and error translation, or :mod:`db.connect`'s
one-hop aiosqlite cursor) and SQLAlchemy's exception classes.  What this
module does itself is what ``Connection`` would do around them: begin,
commit or roll back on the DBAPI connection, check the cluster fence, turn
DBAPI errors into :class:`sqlalchemy.exc.DBAPIError` and invalidate the pool
on a disconnect.  Nothing else should use it: ordinary units of work go
through :meth:`db.Database.write` and :meth:`~db.Database.read`.

Statement logging (``echo``) and cursor events do not see hot statements.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Dialect, exc
from sqlalchemy.pool import Pool, PoolProxiedConnection
from sqlalchemy.sql import Executable

from db.connect import sqlite_begin
from db.errors import StaleEpoch

T = TypeVar("T")

__all__ = ["HotStatement", "HotConnection", "Attempt", "transaction"]


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
        processors = [column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns]
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


class HotConnection:
    """The running hot transaction's connection: executes HotStatements.

    Synchronous: the transaction body runs in a greenlet, and every call
    here waits for the database there (SQLAlchemy's ``await_``).
    """

    __slots__ = ("dialect", "_cursor")

    def __init__(self, cursor: Any, dialect: Dialect) -> None:
        self.dialect = dialect
        self._cursor = cursor

    def rows(self, statement: HotStatement, parameters: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Execute and return every row (empty when the statement returns none)."""
        compiled = statement.compiled(self.dialect)
        cursor = self._cursor
        positional = compiled.positional(parameters)
        _call(cursor.execute, compiled.sql, positional, self.dialect)
        if cursor.description is None:
            return []
        return compiled.result(cursor.fetchall())

    def first(self, statement: HotStatement, parameters: Mapping[str, Any]) -> tuple[Any, ...] | None:
        rows = self.rows(statement, parameters)
        return rows[0] if rows else None

    def execute_many(self, statement: HotStatement, parameters: Sequence[Mapping[str, Any]]) -> None:
        """Execute once per parameter set (the driver's executemany)."""
        if not statement.many:
            raise TypeError("executemany needs a HotStatement(..., many=True)")
        compiled = statement.compiled(self.dialect)
        positional = [compiled.positional(each) for each in parameters]
        _call(self._cursor.executemany, compiled.sql, positional, self.dialect)


class _DBAPIFailure(Exception):
    """A DBAPI error and the statement it came from, on its way to become
    SQLAlchemy's DBAPIError once the transaction knows whether it was a
    disconnect (wrapped so that the body's own handlers cannot take it for
    one of theirs)."""

    def __init__(self, error: Exception, statement: str | None, parameters: Any) -> None:
        super().__init__(error)
        self.error = error
        self.statement = statement
        self.parameters = parameters


def _dbapi(dialect: Dialect, statement: str | None, parameters: Any, call: Callable[..., T], *args: Any) -> T:
    try:
        return call(*args)
    except dialect.loaded_dbapi.Error as error:
        raise _DBAPIFailure(error, statement, parameters) from None


def _call(method: Callable[..., Any], sql: str, parameters: Any, dialect: Dialect) -> None:
    _dbapi(dialect, sql, parameters, method, sql, parameters)


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


def transaction(
    pool: Pool,
    dialect: Dialect,
    fence: tuple[HotStatement, int, int] | None,
    attempt: Attempt,
    body: Callable[..., T],
    args: Sequence[Any],
) -> T:
    """One write transaction: ``body(connection, *args)``, committed.

    Runs in a greenlet (``greenlet_spawn``).  ``fence`` is the epoch check
    (statement, slot, epoch) that every fenced write starts with, as in
    :meth:`db.Database.write`.  On any error the transaction is rolled back;
    a connection that cannot roll back is invalidated rather than returned
    to the pool with a transaction open.  DBAPI errors are raised as
    SQLAlchemy's DBAPIError; a disconnect invalidates the pool, as
    SQLAlchemy's Connection does, and is noted in ``attempt``.
    """
    try:
        fairy = _dbapi(dialect, None, None, pool.connect)
    except _DBAPIFailure as failure:
        attempt.disconnected = dialect.is_disconnect(failure.error, None, None)
        raise _as_sqlalchemy_error(failure, dialect, attempt.disconnected) from failure.error
    try:
        dbapi_connection = fairy.dbapi_connection
        assert dbapi_connection is not None
        cursor = dbapi_connection.cursor()
        try:
            if dialect.name == "sqlite":
                # Hold the write lock from BEGIN, as Database.write does.
                _dbapi(dialect, "BEGIN IMMEDIATE", None, sqlite_begin, cursor, "IMMEDIATE")
            # (On PostgreSQL the asyncpg adapter begins at the first statement.)
            connection = HotConnection(cursor, dialect)
            if fence is not None:
                _check_fence(connection, *fence)
            result = body(connection, *args)
            attempt.committing = True
            _dbapi(dialect, "COMMIT", None, dbapi_connection.commit)
            return result
        except _DBAPIFailure as failure:
            attempt.disconnected = dialect.is_disconnect(failure.error, dbapi_connection, cursor)
            if attempt.disconnected:
                # Every connection of the pool opened before this one is
                # replaced at its next checkout (what Connection does).
                pool._invalidate(fairy, failure.error)
            else:
                _roll_back(fairy, dbapi_connection)
            raise _as_sqlalchemy_error(failure, dialect, attempt.disconnected) from failure.error
        except BaseException:
            _roll_back(fairy, dbapi_connection)
            raise
        finally:
            cursor.close()
    finally:
        fairy.close()


def _as_sqlalchemy_error(failure: _DBAPIFailure, dialect: Dialect, disconnected: bool) -> Exception:
    return exc.DBAPIError.instance(
        failure.statement,
        failure.parameters,
        failure.error,
        dialect.loaded_dbapi.Error,
        connection_invalidated=disconnected,
        dialect=dialect,
    )


def _roll_back(fairy: PoolProxiedConnection, dbapi_connection: Any) -> None:
    if not fairy.is_valid:
        return
    try:
        dbapi_connection.rollback()
    except BaseException:
        # Cancelled again, or the connection broke: never hand it out again
        # with the transaction possibly still open.  The first error is the
        # one worth raising.
        fairy.invalidate()


def _check_fence(connection: HotConnection, statement: HotStatement, slot: int, epoch: int) -> None:
    row = connection.first(statement, {"slot": slot})
    current = row[0] if row else None
    if current != epoch:
        raise StaleEpoch(slot, epoch, current)
