"""The runtime's storage: the only runtime module that imports :mod:`db`.

:meth:`Store.commit` writes all the records of one step in one transaction
and returns the :class:`~runtime.records.Receipt`.  Steps of different
tables that arrive while a transaction is in flight are written together in
the next one (group commit): a step never waits for more than one commit
ahead of it, and a busy bot commits a few times a second rather than once
per move.  Order within a table holds because a table holds its lock until
its own step is stored.

Failures come in four kinds, each its own exception:

* :class:`Unavailable` — the database failed (unreachable, refusing
  writes): nothing was stored, and trying again later may work;
* :class:`OutcomeUnknown` (an Unavailable) — the connection was lost while
  the transaction committed: the step may be stored or not, and only
  reading the table back can tell;
* :class:`Refused` — the data refused the step (an action stored
  differently, a game no longer running): nothing of it was stored, and the
  same step will be refused again;
* :class:`db.StaleEpoch` — this process lost its cluster slot: it must stop.

The store also reads what a restart needs (:meth:`Store.load`) and keeps the
summaries' delivery marks.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import db
from runtime.outages import Outages
from runtime.server_settings import ServerSettings
from runtime.settings import Settings
from runtime.records import (
    AbortGame, AppendAction, CreateGame, DeleteTable, Payout, PayoutLine, RatingMove, Receipt, Record, SaveTable,
    SettleGame,
)
from runtime.state import TableState
from tienlen import Game
from tienlen.ratings import Rating
from tienlen.table import Phase, Seat

log = logging.getLogger(__name__)

__all__ = ["Store", "Database", "Unavailable", "OutcomeUnknown", "Refused", "StaleEpoch", "Restored", "StoredSummary",
           "StoredGameRecord"]

Database = db.Database
StaleEpoch = db.StaleEpoch


class Unavailable(Exception):
    """The database failed; nothing of the step was stored."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(f"the database failed: {type(error).__name__}")
        self.error = error


class OutcomeUnknown(Unavailable):
    """The step may or may not be stored (its COMMIT's answer was lost): read the table back.
    Told to a player, it is an outage, as an Unavailable."""


class Refused(Exception):
    """The stored data refused the step; nothing of it was stored."""

    def __init__(self, error: "db.DbError") -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class Restored:
    """A stored table, ready to run again."""

    state: TableState
    lost_game: int | None = None
    """The game it was playing, when that game could not be rebuilt (it is called off)."""


@dataclass(frozen=True)
class StoredGameRecord:
    """A stored game as a replay reads it; ``record`` holds every hand (and the
    seed): it is private, never logged nor shown."""

    game_id: int
    guild_id: int
    channel_id: int
    status: str
    """"running", "finished" or "aborted"."""
    rules: str
    bet: int
    seats: tuple[dict[str, Any], ...]
    record: dict[str, Any] = field(repr=False)
    started_at: Any = None


@dataclass(frozen=True)
class StoredSummary:
    """What an end-of-game summary is made from, as stored."""

    game_id: int
    channel_id: int
    guild_id: int
    game: Game
    seats: tuple[Seat, ...]
    payout: Payout
    bet: int
    rake_percent: int


class Store:
    def __init__(self, database: "db.Database", *, outages: Outages | None = None) -> None:
        self.db = database
        self.outages = outages or Outages("The database", logger=log)
        self._pending: list[tuple[db.TableChange, asyncio.Future[Receipt]]] = []
        self._writer: asyncio.Task[None] | None = None
        self.commits = 0
        self.steps = 0

    # ------------------------------------------------------------- writing
    async def commit(self, channel_id: int, guild_id: int, records: Sequence[Record]) -> Receipt:
        """Store ``records`` (one step's) in one transaction."""
        return await self.submit(channel_id, guild_id, records)

    def submit(self, channel_id: int, guild_id: int, records: Sequence[Record]) -> "asyncio.Future[Receipt]":
        """Queue ``records`` (one step's) for the next transaction; the future
        gets the receipt, or Unavailable, Refused or StaleEpoch.  The commit
        goes on whether or not anybody still waits for it."""
        future: asyncio.Future[Receipt] = asyncio.get_running_loop().create_future()
        if not records:
            future.set_result(Receipt())
            return future
        self._pending.append((table_change(channel_id, guild_id, records), future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_all(), name="store-writer")
        return future

    async def _write_all(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                results = await db.commit_changes(self.db, [change for change, _ in batch])
            except db.StaleEpoch as error:
                _fail(batch, error)
                continue
            except db.CommitOutcomeUnknown as error:
                self.outages.failed("writes", error.error)
                _fail(batch, OutcomeUnknown(error.error))
                continue
            except Exception as error:  # the whole transaction failed: nobody's step is stored
                self.outages.failed("writes", error)
                _fail(batch, Unavailable(error))
                continue
            except BaseException:
                _fail(batch, Unavailable(RuntimeError("cancelled")))
                raise
            self.outages.recovered("writes")
            self.commits += 1
            self.steps += len(batch)
            for (_, future), result in zip(batch, results):
                if future.done():
                    continue
                if isinstance(result, db.StaleEpoch):
                    future.set_exception(result)
                elif isinstance(result, db.DbError):
                    future.set_exception(Refused(result))
                else:
                    future.set_result(_receipt(result))

    # ------------------------------------------------------------- accounts
    async def balance(self, guild_id: int, user_id: int, *, starting_chips: int) -> int:
        """The player's chips here (a newcomer gets their starting chips)."""
        # A read suffices for players who already have an account (most of
        # them); a write is only needed to grant a newcomer their chips.
        try:
            account = await db.get_account(self.db, guild_id, user_id)
            if account is None:
                account = await db.get_or_create_account(self.db, guild_id, user_id, starting_chips=starting_chips)
        except db.DbError:
            raise
        except Exception as error:
            raise Unavailable(error) from error
        return account.balance

    async def server_settings(self, guild_id: int, defaults: Settings) -> ServerSettings:
        """The server's settings: its admins' choices, else ``defaults``."""
        try:
            stored = await db.get_guild_settings(self.db, guild_id)
        except db.DbError:
            raise
        except Exception as error:
            raise Unavailable(error) from error
        fields = {name: getattr(stored, name) for name in db.guilds.SETTINGS}
        return ServerSettings.of(guild_id, defaults, fields)

    # ------------------------------------------------------------- restoring
    async def load(self, owns_guild: Callable[[int], bool], *, only: int | None = None) -> list[Restored]:
        """This process's stored tables (or just the one in channel ``only``)
        with their games; running games that no table plays (left by an older
        version) are aborted."""
        tables = [stored for stored in await db.load_tables(self.db)
                  if owns_guild(stored.guild_id) and only in (None, stored.channel_id)]
        if only is None:
            playing = {stored.game_id for stored in tables if stored.game_id is not None}
            await self._abort_orphans(owns_guild, playing)
        return [await self._restored(stored) for stored in tables]

    async def _restored(self, stored: "db.StoredTable") -> Restored:
        state = stored.state
        game_id = stored.game_id
        game, payout, lost = None, None, None
        if state.get("phase") == Phase.PLAYING.value and game_id is not None:
            try:
                game = await self.game(game_id)
                if game.finished:
                    payout = await self.payout(game_id)
            except (Unavailable, StaleEpoch):
                raise
            except Exception:
                log.exception("could not restore game %s; it is called off", game_id)
                game, lost = None, game_id
        return Restored(TableState.from_stored(state, game=game, game_id=game_id if game else None, payout=payout),
                        lost_game=lost)

    async def _abort_orphans(self, owns_guild: Callable[[int], bool], playing: set[int]) -> None:
        for stored in await db.unfinished_games(self.db):
            if stored.id not in playing and owns_guild(stored.guild_id):
                await db.abort_game(self.db, stored.id, "no table plays it")
                log.warning("aborted game %s: no table plays it", stored.id)

    async def game(self, game_id: int) -> Game:
        stored = await db.load_game(self.db, game_id)
        return _game_of(stored)

    async def payout(self, game_id: int) -> Payout | None:
        settlement = await db.settlement_of(self.db, game_id)
        return _payout(settlement) if settlement is not None else None

    # ------------------------------------------------------------- summaries
    async def unposted_summaries(self, owns_guild: Callable[[int], bool]) -> list[StoredSummary]:
        found = []
        for stored in await db.unposted_summaries(self.db):
            if not owns_guild(stored.guild_id):
                continue
            payout = await self.payout(stored.id)
            if payout is None:
                continue
            seats = tuple(Seat(user_id=seat.get("user_id"), name=str(seat.get("name", "")), ai_level=seat.get("ai"))
                          for seat in stored.seats)
            game = _game_of(stored)
            found.append(StoredSummary(game_id=stored.id, channel_id=stored.channel_id, guild_id=stored.guild_id,
                                       game=game, seats=seats, payout=payout, bet=stored.bet,
                                       rake_percent=game.rules.rake_percent))
        return found

    async def summary_posted(self, game_id: int) -> None:
        await db.mark_summary_posted(self.db, game_id)

    # ------------------------------------------------------------- replays
    async def stored_game(self, game_id: int) -> "StoredGameRecord | None":
        """A stored game with its actions (None: no such game); for replays."""
        try:
            stored = await db.load_game(self.db, game_id)
        except db.GameNotFound:
            return None
        except db.DbError:
            raise
        except Exception as error:
            raise Unavailable(error) from error
        record = dict(stored.record)
        record["actions"] = list(stored.actions)
        return StoredGameRecord(game_id=stored.id, guild_id=stored.guild_id, channel_id=stored.channel_id,
                                status=stored.status.value, rules=stored.rules, bet=stored.bet,
                                seats=tuple(stored.seats), record=record, started_at=stored.started_at)

    async def latest_finished_game(self, guild_id: int, channel_id: int) -> int | None:
        try:
            return await db.latest_finished_game(self.db, guild_id, channel_id)
        except db.DbError:
            raise
        except Exception as error:
            raise Unavailable(error) from error


# --------------------------------------------------------------- translation
def table_change(channel_id: int, guild_id: int, records: Sequence[Record]) -> "db.TableChange":
    """One step's records as the database's change of one table."""
    if len(records) == 1 and type(records[0]) is AppendAction:  # a move: most steps
        move = records[0]
        return db.TableChange(channel_id=channel_id, guild_id=guild_id, game_id=move.game_id,
                              actions=((move.seq, move.action),))
    fields: dict[str, Any] = {"channel_id": channel_id, "guild_id": guild_id}
    actions: list[tuple[int, Any]] = []
    for record in records:
        if isinstance(record, SaveTable):
            fields["state"] = record.state
            if record.game_id is not None:
                _same_game(fields, record.game_id)
            # The row points at the game it plays, or at the one this step creates.
            fields["playing"] = record.game_id is not None or any(isinstance(other, CreateGame) for other in records)
        elif isinstance(record, DeleteTable):
            fields["delete"] = True
        elif isinstance(record, CreateGame):
            fields["new_game"] = db.NewGame(rules=record.rules, options=record.options, bet=record.bet,
                                            seats=record.seats, record=record.record, rated=record.rated)
        elif isinstance(record, AppendAction):
            _same_game(fields, record.game_id)
            actions.append((record.seq, record.action))
        elif isinstance(record, SettleGame):
            if record.game_id is not None:
                _same_game(fields, record.game_id)
            fields["settle"] = db.GameSettlement(
                payments=[db.SeatPayment(payer=p.payer, payee=p.payee, units=p.units, reason=p.reason.value)
                          for p in record.payments],
                results={seat: db.SeatResult(place=result.place, won=result.won, chops_made=result.chops_made,
                                             chops_suffered=result.chops_suffered)
                         for seat, result in record.results.items()},
                bet=record.bet, rake_percent=record.rake_percent, outcome=record.outcome,
                ranks={seat: rank for seat, rank in enumerate(record.ranks)} if record.ranks else None)
        elif isinstance(record, AbortGame):
            _same_game(fields, record.game_id)
            fields["abort"] = record.reason
        else:  # pragma: no cover - every record kind is handled above
            raise TypeError(f"not a record: {record!r}")
    fields["actions"] = tuple(actions)
    return db.TableChange(**fields)


def _same_game(fields: dict[str, Any], game_id: int) -> None:
    if fields.setdefault("game_id", game_id) != game_id:
        raise ValueError("one step's records name two games")


_NOTHING_NEW = Receipt()


def _receipt(result: "db.ChangeReceipt") -> Receipt:
    if result is db.NOTHING_NEW:
        return _NOTHING_NEW
    return Receipt(game_id=result.game_id,
                   payout=_payout(result.settlement) if result.settlement is not None else None)


def _payout(settlement: "db.Settlement") -> Payout:
    return Payout(
        game_id=settlement.game_id,
        lines={seat: PayoutLine(user_id=line.user_id, net=line.net, balance_after=line.balance_after)
               for seat, line in settlement.lines.items()},
        ratings={seat: RatingMove(before=Rating(mu=change.mu_before, sigma=change.sigma_before).shown,
                                  after=Rating(mu=change.mu_after, sigma=change.sigma_after).shown)
                 for seat, change in settlement.ratings.items()})


def _game_of(stored: "db.StoredGame") -> Game:
    record = dict(stored.record)
    record["actions"] = list(stored.actions)
    return Game.from_json(record)


def _fail(batch: list[tuple[Any, asyncio.Future[Any]]], error: BaseException) -> None:
    for _, future in batch:
        if not future.done():
            future.set_exception(error)
