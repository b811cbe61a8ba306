"""The table manager: every change to a table goes through here, one at a time.

Each public coroutine takes the table's asyncio lock, asks the engine to apply
the change, stores it (each game action is written before anyone is answered),
schedules what comes next (turn timer, AI move) and then, outside the lock,
reports a fresh :class:`~runtime.snapshot.TableSnapshot` to the notifier.

Rule decisions are never taken here: the engine (:mod:`tienlen`) decides, the
database layer (:mod:`db`) keeps chips and records.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Protocol

import db
from runtime.action_log import ActionLog
from runtime.ai import AiRunner
from runtime.settings import Settings
from runtime.outcomes import events_of, outcome_json, summary_of
from runtime.snapshot import TAKEN_OVER, Event, GameSummary, HandSnapshot, TableSnapshot, hand_of, snapshot_of
from tienlen import Combo, Game, IllegalPlayError, Outcome, parse_cards
from tienlen.cards import Card, as_mask
from tienlen.table import NextLead, Phase, Seat, Table, TableError

log = logging.getLogger(__name__)

__all__ = ["TableManager", "Notifier", "TableError", "NotEnoughChips"]

RECENT_EVENTS = 5
QUIET_EVENTS = frozenset({"restored"})  # shown once, not kept in the running list
AI_NAMES = ("Bot Lan", "Bot Minh", "Bot Hùng", "Bot Mai", "Bot Tú", "Bot Hoa")


class NotEnoughChips(TableError):
    """The player cannot cover the table's maximum plausible loss (``name``: who, when not the caller)."""

    def __init__(self, need: int, have: int, name: str | None = None) -> None:
        if name is None:
            super().__init__("not_enough_chips", need=need, have=have)
        else:
            super().__init__("player_not_enough_chips", need=need, have=have, name=name)


class Notifier(Protocol):
    """What the runtime tells the Discord layer (implemented by the cogs)."""

    async def table_changed(self, snapshot: TableSnapshot) -> None: ...

    async def hands_dealt(self, snapshot: TableSnapshot, hands: dict[int, HandSnapshot]) -> None: ...

    async def hand_changed(self, snapshot: TableSnapshot, hand: HandSnapshot) -> None: ...


class _NullNotifier:
    async def table_changed(self, snapshot: TableSnapshot) -> None:
        return None

    async def hands_dealt(self, snapshot: TableSnapshot, hands: dict[int, HandSnapshot]) -> None:
        return None

    async def hand_changed(self, snapshot: TableSnapshot, hand: HandSnapshot) -> None:
        return None


@dataclass
class _Change:
    """What one locked operation produced, reported once the lock is released."""

    events: list[Event] = field(default_factory=list)
    lead: NextLead | None = None
    summary: GameSummary | None = None
    dealt: bool = False
    hands_to_refresh: set[int] = field(default_factory=set)
    closed: bool = False
    silent: bool = False  # the caller shows the result itself (a new table's first message)


class TableManager:
    def __init__(
        self,
        database: "db.Database",
        settings: Settings,
        *,
        notifier: Notifier | None = None,
        ai: AiRunner | None = None,
        clock: Callable[[], float] = time.time,
        owns_guild: Callable[[int], bool] | None = None,
    ) -> None:
        self.db = database
        self.settings = settings
        self.notifier: Notifier = notifier or _NullNotifier()
        self.ai = ai or AiRunner(workers=settings.ai_workers, budget_ms=settings.ai_budget_ms)
        self.clock = clock
        # In a cluster a process restores and runs only its own slot's tables.
        self.owns_guild = owns_guild or (lambda _guild_id: True)
        self.actions = ActionLog(database)
        self._tables: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._timers: dict[int, asyncio.Task[None]] = {}
        self._background: dict[int, list[asyncio.Task[None]]] = {}
        self._snapshots: dict[int, TableSnapshot] = {}
        self._summaries: dict[int, GameSummary] = {}
        self._notifications: dict[int, asyncio.Task[None]] = {}
        self._recent: dict[int, deque[Event]] = {}  # the last public events, shown on the table
        self._versions = itertools.count(1)
        self._sweeper: asyncio.Task[None] | None = None
        self._closing = False
        # Shuffles are unpredictable unless a test asks for reproducible deals.
        self._seeds = random.Random(settings.deal_seed) if settings.deal_seed is not None else None

    # ------------------------------------------------------------- queries
    def table(self, channel_id: int) -> Table | None:
        return self._tables.get(channel_id)

    def snapshot(self, channel_id: int) -> TableSnapshot | None:
        return self._snapshots.get(channel_id)

    @property
    def tables(self) -> list[Table]:
        return list(self._tables.values())

    def hand(self, channel_id: int, user_id: int, *, selected: tuple[Card, ...] = ()) -> HandSnapshot:
        """The user's private view of the game at ``channel_id``."""
        table = self._require(channel_id)
        if table.game is None or table.phase is not Phase.PLAYING:
            raise TableError("no_game")
        seat = table.game_seat_of(user_id)
        if seat is None:
            raise TableError("not_in_game")
        return hand_of(table, seat, selected=selected)

    def note_locale(self, channel_id: int, user_id: int, locale: str) -> None:
        """Remember the language a player's Discord client uses (for their DMs)."""
        table = self._tables.get(channel_id)
        if table is None:
            return
        for seat in table.seats + table.game_seats:
            if seat.user_id == user_id:
                seat.locale = locale

    def legal_plays(self, channel_id: int, user_id: int) -> list[Combo]:
        """The user's legal plays now (empty when they are not playing here)."""
        try:
            return list(self.hand(channel_id, user_id).legal)
        except TableError:
            return []

    # ------------------------------------------------------------- lifecycle
    async def start(self, *, took_over: bool = False) -> None:
        """Restore stored tables and games, then start the idle sweeper.

        ``took_over`` says this process took the tables over from an earlier
        holder of its cluster slot, which may have been another process (a
        failover) or this bot before a restart; the tables say so.
        """
        await self._restore(took_over)
        self._sweeper = asyncio.create_task(self._sweep_idle(), name="tienlen-idle-sweeper")

    async def close(self) -> None:
        self._closing = True
        tasks = list(self._timers.values()) + [task for tasks in self._background.values() for task in tasks]
        if self._sweeper is not None:
            tasks.append(self._sweeper)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.flush()
        self.ai.close()

    # ------------------------------------------------------------- the lock
    @contextlib.asynccontextmanager
    async def _locked(self, channel_id: int, *, create: Table | None = None) -> AsyncIterator[tuple[Table, _Change]]:
        lock = self._locks.setdefault(channel_id, asyncio.Lock())
        change = _Change()
        async with lock:
            if create is not None:
                if channel_id in self._tables:
                    raise TableError("table_exists")
                self._tables[channel_id] = create
            table = self._require(channel_id)
            yield table, change
            snapshot = self._publish(table, change)
            hands = self._hands_to_send(table, change)
        if not change.silent:
            self._queue_notification(table.channel_id, snapshot, hands)

    def _require(self, channel_id: int) -> Table:
        table = self._tables.get(channel_id)
        if table is None:
            raise TableError("no_table")
        return table

    def _publish(self, table: Table, change: _Change) -> TableSnapshot:
        if change.summary is not None:
            self._summaries[table.channel_id] = change.summary
        summary = self._summaries.get(table.channel_id) if table.phase is Phase.BETWEEN else None
        recent = self._recent.setdefault(table.channel_id, deque(maxlen=RECENT_EVENTS))
        recent.extend(event for event in change.events if event.kind not in QUIET_EVENTS)
        snapshot = snapshot_of(
            table,
            version=next(self._versions),
            events=tuple(recent) + tuple(event for event in change.events if event.kind in QUIET_EVENTS),
            lead=change.lead,
            summary=summary,
            closed=change.closed,
        )
        self._snapshots[table.channel_id] = snapshot
        return snapshot

    def _hands_to_send(self, table: Table, change: _Change) -> tuple[bool, dict[int, HandSnapshot]]:
        """Private hands to (re)send, built inside the lock: (dealt now?, hands)."""
        if table.game is None or change.closed:
            return False, {}
        if change.dealt:
            seats = {seat for seat, info in enumerate(table.game_seats) if not info.is_ai}
        else:
            seats = {seat for seat in change.hands_to_refresh if not table.game_seats[seat].is_ai}
        return change.dealt, {seat: hand_of(table, seat) for seat in sorted(seats)}

    def _queue_notification(self, channel_id: int, snapshot: TableSnapshot, hands: tuple[bool, dict[int, HandSnapshot]]) -> None:
        """Tell Discord in the background, one table's notifications in order,
        so nobody's interaction waits for other players' DMs."""
        previous = self._notifications.get(channel_id)
        task = asyncio.create_task(self._notify(previous, snapshot, hands), name=f"notify-{channel_id}")
        self._notifications[channel_id] = task

    async def _notify(
        self, previous: "asyncio.Task[None] | None", snapshot: TableSnapshot, hands: tuple[bool, dict[int, HandSnapshot]]
    ) -> None:
        if previous is not None and not previous.done():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await previous
        dealt, private = hands
        try:
            await self.notifier.table_changed(snapshot)
            if dealt:
                await self.notifier.hands_dealt(snapshot, private)
            else:
                for hand in private.values():
                    await self.notifier.hand_changed(snapshot, hand)
        except Exception:  # a Discord failure must never undo a stored change
            log.exception("notifier failed for table %s", snapshot.channel_id)

    async def flush(self, channel_id: int | None = None) -> None:
        """Wait until queued notifications have been sent (tests, shutdown)."""
        tasks = [self._notifications[channel_id]] if channel_id in self._notifications else (
            list(self._notifications.values()) if channel_id is None else [])
        for task in tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task

    # ---------------------------------------------------------------- lobby
    async def create_table(
        self,
        *,
        channel_id: int,
        guild_id: int,
        host: Seat,
        rules_name: str | None = None,
        bet: int | None = None,
        turn_seconds: int | None = None,
    ) -> TableSnapshot:
        rules_name = rules_name or self.settings.default_rules
        bet = bet or self.settings.default_bet
        table = Table.create(
            channel_id=channel_id,
            guild_id=guild_id,
            host=host,
            rules_name=rules_name,
            bet=bet,
            turn_seconds=turn_seconds or self.settings.default_turn_seconds,
            min_turn_seconds=self.settings.min_turn_seconds,
            now=self.clock(),
        )
        assert host.user_id is not None
        await self._check_chips(table, host.user_id)
        async with self._locked(channel_id, create=table) as (table, change):
            try:
                await self._save(table)
            except Exception:
                del self._tables[channel_id]
                raise
            change.events.append(Event("joined", name=host.name))
            change.silent = True
        return self._snapshots[channel_id]

    async def set_message(self, channel_id: int, message_id: int) -> None:
        """Remember the public table message (edited in place from now on)."""
        table = self._tables.get(channel_id)
        if table is None or table.message_id == message_id:
            return
        async with self._locks.setdefault(channel_id, asyncio.Lock()):
            table.message_id = message_id
            await self._save(table)

    async def join(self, channel_id: int, seat: Seat) -> TableSnapshot:
        assert seat.user_id is not None
        table = self._require(channel_id)
        await self._check_chips(table, seat.user_id)
        async with self._locked(channel_id) as (table, change):
            table.join(seat)
            self._touch(table)
            await self._save(table)
            change.events.append(Event("joined", name=seat.name))
        return self._snapshots[channel_id]

    async def add_ai(self, channel_id: int, requester: int, level: str = "normal") -> TableSnapshot:
        async with self._locked(channel_id) as (table, change):
            if not table.is_seated(requester) and requester != table.host_id:
                raise TableError("not_seated")
            taken = {seat.name for seat in table.seats}
            name = next((name for name in AI_NAMES if name not in taken), f"Bot {len(table.seats) + 1}")
            table.add_ai(level, name=name)
            self._touch(table)
            await self._save(table)
            change.events.append(Event("ai_added", name=name, other=level))
        return self._snapshots[channel_id]

    async def remove_ai(self, channel_id: int, requester: int) -> TableSnapshot:
        async with self._locked(channel_id) as (table, change):
            seat = table.remove_ai(requester)
            self._touch(table)
            await self._save(table)
            change.events.append(Event("ai_removed", name=seat.name))
        return self._snapshots[channel_id]

    async def leave(self, channel_id: int, user_id: int) -> TableSnapshot:
        """Leave the table; during a game this is a loss with the preset's penalty."""
        async with self._locked(channel_id) as (table, change):
            if table.phase is Phase.PLAYING and table.game_seat_of(user_id) is not None:
                seat = table.game_seat_of(user_id)
                assert seat is not None
                game = table.game
                assert game is not None
                if not game.in_play(seat):
                    raise TableError("already_out")
                await self._apply(table, change, lambda game: game.leave(seat))
                change.events.insert(0, Event("left_game", seat=seat, name=table.game_seats[seat].name))
            else:
                seat_obj = table.leave(user_id)
                change.events.append(Event("left_table", name=seat_obj.name))
                self._touch(table)
                if not table.humans:
                    await self._close(table, change, "empty")
                    return self._snapshots[channel_id]
                await self._save(table)
        return self._snapshots[channel_id]

    async def transfer_host(self, channel_id: int, requester: int, target: int) -> TableSnapshot:
        async with self._locked(channel_id) as (table, change):
            table.transfer_host(requester, target)
            index = table.seat_of(target)
            name = table.seats[index].name if index is not None else str(target)
            self._touch(table)
            await self._save(table)
            change.events.append(Event("host_changed", name=name))
        return self._snapshots[channel_id]

    async def configure(
        self,
        channel_id: int,
        requester: int,
        *,
        rules_name: str | None = None,
        bet: int | None = None,
        turn_seconds: int | None = None,
    ) -> TableSnapshot:
        async with self._locked(channel_id) as (table, change):
            table.configure(
                requester,
                rules_name=rules_name,
                bet=bet,
                turn_seconds=turn_seconds,
                min_turn_seconds=self.settings.min_turn_seconds,
            )
            self._touch(table)
            await self._save(table)
            change.events.append(Event("configured"))
        return self._snapshots[channel_id]

    async def end(self, channel_id: int, requester: int, *, is_admin: bool = False) -> TableSnapshot:
        """Close the table: the host or a server manager; a game in progress is
        aborted with no chips moved."""
        async with self._locked(channel_id) as (table, change):
            if requester != table.host_id and not is_admin:
                raise TableError("host_only")
            if table.phase is Phase.PLAYING and table.game_id is not None:
                await db.abort_game(self.db, table.game_id, "ended by host")
                change.events.append(Event("aborted"))
            await self._close(table, change, "ended")
        return self._snapshots[channel_id]

    # ---------------------------------------------------------------- games
    async def start_game(self, channel_id: int, requester: int | None) -> TableSnapshot:
        async with self._locked(channel_id) as (table, change):
            await self._start_game(table, change, requester)
        return self._snapshots[channel_id]

    async def next_game(self, channel_id: int, user_id: int) -> tuple[TableSnapshot, bool]:
        """"Next game": the host starts it at once; otherwise it starts when every
        seated human has pressed it.  Returns (snapshot, started)."""
        async with self._locked(channel_id) as (table, change):
            if table.phase is Phase.PLAYING:
                raise TableError("game_running", action="start")
            if table.seat_of(user_id) is None:
                raise TableError("not_seated")
            everyone = table.mark_ready(user_id)
            started = user_id == table.host_id or everyone
            if started:
                await self._start_game(table, change, None)
            else:
                self._touch(table)
                await self._save(table)
                change.events.append(Event("ready", name=table.seats[table.seat_of(user_id) or 0].name))
        return self._snapshots[channel_id], started

    async def _start_game(self, table: Table, change: _Change, requester: int | None) -> None:
        table.check_can_start(requester)
        for seat in table.humans:
            assert seat.user_id is not None
            await self._check_chips(table, seat.user_id, name=seat.name)
        lead = table.next_lead()
        seed = self._seeds.getrandbits(64) if self._seeds is not None else secrets.randbits(64)
        game = Game.deal(
            table.rules, len(table.seats), seed, first_game=lead.first_game, previous_winner=lead.seat
        )
        record = game.to_json()
        record.pop("actions")
        game_id = await db.create_game(
            self.db,
            guild_id=table.guild_id,
            channel_id=table.channel_id,
            rules=table.rules.name,
            options=table.rules.options(),
            bet=table.bet,
            seats=[{"user_id": s.user_id, "name": s.name, "ai": s.ai_level} for s in table.seats],
            record=record,
        )
        table.start_game(game, game_id, now=self.clock())
        change.lead = lead
        change.dealt = True
        change.events.append(Event("game_started", seat=game.turn, name=table.game_seats[game.turn].name
                                   if game.turn is not None else ""))
        log.info("table %s: game %s started (%s, %d seats)", table.channel_id, game_id, table.rules.name, game.players)
        if game.finished:  # an instant win
            await self._finish(table, change)
        else:
            await self._save(table)
            self._schedule(table)

    async def play(
        self, channel_id: int, user_id: int, cards: "Combo | str | list[Card] | int", *, refresh_dm: bool = True
    ) -> HandSnapshot:
        """A human plays ``cards``; raises IllegalPlayError/TableError with a reason.

        ``refresh_dm=False`` when the answer to this very interaction updates the
        player's DM hand message (the click came from it)."""
        if isinstance(cards, str):
            cards = parse_cards(cards)
        combo = cards if isinstance(cards, Combo) else as_mask(cards)
        async with self._locked(channel_id) as (table, change):
            seat = self._human_seat(table, user_id)
            await self._apply(table, change, lambda game: game.play(seat, combo), actor=seat, refresh_actor=refresh_dm)
            return hand_of(table, seat)

    async def pass_turn(self, channel_id: int, user_id: int, *, refresh_dm: bool = True) -> HandSnapshot:
        async with self._locked(channel_id) as (table, change):
            seat = self._human_seat(table, user_id)
            await self._apply(table, change, lambda game: game.pass_turn(seat), actor=seat, refresh_actor=refresh_dm)
            return hand_of(table, seat)

    def _human_seat(self, table: Table, user_id: int) -> int:
        if table.phase is not Phase.PLAYING or table.game is None:
            raise TableError("no_game")
        seat = table.game_seat_of(user_id)
        if seat is None:
            raise TableError("not_in_game")
        return seat

    async def _apply(
        self,
        table: Table,
        change: _Change,
        action: Callable[[Game], Outcome],
        *,
        actor: int | None = None,
        refresh_actor: bool = True,
    ) -> Outcome:
        """Apply one engine action, store it, then schedule what comes next."""
        game = table.game
        assert game is not None and table.game_id is not None
        before = game.copy()
        outcome = action(game)  # IllegalPlayError: nothing changed
        try:
            await self.actions.append(table.game_id, len(game.actions) - 1, game.actions[-1].to_json())
        except Exception:
            table.game = before
            raise
        if actor is not None:
            seat = table.game_seats[actor]
            seat.timeouts = 0
            if seat.afk:
                seat.afk = False
                change.events.append(Event("back", seat=actor, name=seat.name))
        self._touch(table)
        change.events.extend(events_of(table, outcome))
        if refresh_actor:
            change.hands_to_refresh.add(outcome.action.seat)
        if game.turn is not None:
            change.hands_to_refresh.add(game.turn)  # their DM now says "your turn" and shows what to beat
        change.hands_to_refresh.update(self._chop_watchers(table))
        if game.finished:
            try:
                await self._finish(table, change)
            except Exception:
                # The move is stored; settlement is idempotent, so try again later
                # (a restart would also settle it).
                log.exception("settling game %s failed; will retry", table.game_id)
                self._spawn(table.channel_id, self._retry_settlement(table.channel_id))
        else:
            self._schedule(table)
        return outcome

    async def _retry_settlement(self, channel_id: int) -> None:
        delay = 1.0
        while not self._closing:
            await asyncio.sleep(delay)
            try:
                async with self._locked(channel_id) as (table, change):
                    game = table.game
                    if table.phase is not Phase.PLAYING or game is None or not game.finished:
                        return
                    await self._finish(table, change)
                    return
            except TableError:
                return
            except Exception:
                log.exception("settling at table %s failed again", channel_id)
                delay = min(delay * 2, 60.0)

    def _chop_watchers(self, table: Table) -> set[int]:
        """Humans not on turn who may chop out of turn now (their controls must offer it)."""
        game = table.game
        assert game is not None
        if game.finished or not game.rules.four_pairs_out_of_turn or game.top is None:
            return set()
        return {
            seat
            for seat, info in enumerate(table.game_seats)
            if not info.played_by_ai and seat != game.turn and game.legal_plays(seat)
        }

    async def _finish(self, table: Table, change: _Change) -> None:
        """Settle a finished game in one transaction and keep the table open."""
        game = table.game
        assert game is not None and game.finished and table.game_id is not None
        payments = [db.SeatPayment(p.payer, p.payee, p.units, p.reason.value) for p in game.payments()]
        net = game.settlement()
        chops = game.chop_counts()
        places = game.places
        results = {
            seat: db.SeatResult(place=places.index(seat), won=net[seat] > 0,
                                chops_made=chops[seat][0], chops_suffered=chops[seat][1])
            for seat in range(game.players)
        }
        settlement = await db.settle_game(
            self.db, table.game_id, payments=payments, results=results, bet=table.bet,
            rake_percent=table.rules.rake_percent,
        )
        chips = {line.user_id: line.net for line in settlement.lines.values()}
        summary = summary_of(table, game, settlement)
        await db.finish_game(self.db, table.game_id, outcome_json(game, settlement))
        table.finish_game(chips)
        self._cancel_timer(table.channel_id)
        self._touch(table)
        await self._save(table)
        change.summary = summary
        change.events.append(Event("game_over", name=summary.places[0]))
        log.info("table %s: game %s finished", table.channel_id, table.game_id)

    # ------------------------------------------------------ timers and AI
    def _token(self, table: Table) -> tuple[int | None, int] | None:
        if table.game is None or table.phase is not Phase.PLAYING:
            return None
        return (table.game_id, len(table.game.actions))

    def _schedule(self, table: Table) -> None:
        """After every change: the turn timer for a human, or the AI's move."""
        self._cancel_timer(table.channel_id)
        game = table.game
        if game is None or game.finished or self._closing:
            table.deadline = None
            return
        token = self._token(table)
        seat = game.turn
        assert seat is not None
        if table.game_seats[seat].played_by_ai:
            table.deadline = None
            self._spawn_ai(table, seat, token)
        else:
            table.deadline = self.clock() + table.turn_seconds
            self._timers[table.channel_id] = asyncio.create_task(
                self._timer(table.channel_id, token, float(table.turn_seconds)), name=f"timer-{table.channel_id}"
            )
        for other, info in enumerate(table.game_seats):
            if other != seat and info.played_by_ai and game.top is not None and game.legal_plays(other):
                self._spawn_ai(table, other, token)

    def _spawn_ai(self, table: Table, seat: int, token: Any) -> None:
        self._spawn(table.channel_id, self._ai_move(table.channel_id, seat, token))

    def _spawn(self, channel_id: int, work: Any) -> None:
        """Run ``work`` in the background, cancelled when the table closes."""
        tasks = [task for task in self._background.get(channel_id, []) if not task.done()]
        tasks.append(asyncio.create_task(work, name=f"table-{channel_id}"))
        self._background[channel_id] = tasks

    def _cancel_timer(self, channel_id: int) -> None:
        timer = self._timers.pop(channel_id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()

    async def _timer(self, channel_id: int, token: Any, seconds: float) -> None:
        await asyncio.sleep(seconds)
        try:
            async with self._locked(channel_id) as (table, change):
                if self._token(table) != token:
                    return
                game = table.game
                assert game is not None and game.turn is not None
                seat = game.turn
                await self._apply(table, change, lambda game: game.timeout(seat))
                info = table.game_seats[seat]
                info.timeouts += 1
                change.events.insert(0, Event("timeout", seat=seat, name=info.name))
                if info.timeouts >= 3 and not info.afk and not info.is_ai:
                    info.afk = True
                    change.events.append(Event("afk", seat=seat, name=info.name))
                    await self._save(table)
                    self._schedule(table)
        except TableError:
            return  # the table closed meanwhile
        except Exception:
            log.exception("turn timer failed at table %s", channel_id)

    async def _ai_move(self, channel_id: int, seat: int, token: Any) -> None:
        try:
            table = self._require(channel_id)
            game = table.game
            assert game is not None
            on_turn = game.turn == seat
            if on_turn:
                await asyncio.sleep(self.settings.ai_delay_seconds)
            if self._token(table) != token:
                return
            info = table.game_seats[seat]
            level = info.ai_level or "normal"
            mask = await self.ai.decide(game.view(seat), level, random.getrandbits(32))
            if mask is None and not on_turn:
                return
            async with self._locked(channel_id) as (table, change):
                if self._token(table) != token:
                    return
                if mask is None:
                    await self._apply(table, change, lambda game: game.pass_turn(seat))
                else:
                    await self._apply(table, change, lambda game: game.play(seat, mask))
        except (TableError, asyncio.CancelledError):
            return
        except IllegalPlayError:
            log.exception("AI chose an illegal play at table %s", channel_id)
        except Exception:
            log.exception("AI move failed at table %s", channel_id)

    # ------------------------------------------------------------ chips
    async def _check_chips(self, table: Table, user_id: int, *, name: str | None = None) -> None:
        """A player must cover the preset's maximum plausible loss for one game."""
        # A read suffices for players who already have an account (most of them);
        # a write is only needed to grant a newcomer their starting chips.
        account = await db.get_account(self.db, table.guild_id, user_id)
        if account is None:
            account = await db.get_or_create_account(
                self.db, table.guild_id, user_id, starting_chips=self.settings.starting_chips
            )
        need = table.bet * table.rules.max_plausible_loss(table.rules.max_players)
        if account.balance < need:
            raise NotEnoughChips(need=need, have=account.balance, name=name)

    # ---------------------------------------------------------- persistence
    async def _save(self, table: Table) -> None:
        await db.save_table(self.db, table.channel_id, table.guild_id, table.to_json())

    def _touch(self, table: Table) -> None:
        table.last_activity = self.clock()

    async def _close(self, table: Table, change: _Change, reason: str) -> None:
        self._cancel_timer(table.channel_id)
        for task in self._background.pop(table.channel_id, []):
            if task is not asyncio.current_task():
                task.cancel()
        await db.delete_table(self.db, table.channel_id)
        self._tables.pop(table.channel_id, None)
        self._summaries.pop(table.channel_id, None)
        change.closed = True
        change.events.append(Event("closed", other=reason))
        log.info("table %s closed (%s)", table.channel_id, reason)

    async def _restore(self, took_over: bool = False) -> None:
        """Rebuild tables and unfinished games from the database after a restart."""
        why = TAKEN_OVER if took_over else ""
        for stored in await db.load_tables(self.db):
            if not self.owns_guild(stored.guild_id):
                continue
            game = None
            state = stored.state
            if state.get("phase") == Phase.PLAYING.value and state.get("game_id") is not None:
                try:
                    game = await self._load_game(state["game_id"])
                except Exception:
                    log.exception("could not restore game %s", state.get("game_id"))
            table = Table.from_json(state, game)
            if table.phase is Phase.PLAYING and game is None:
                table.abort_game()
            self._tables[table.channel_id] = table
            async with self._locked(table.channel_id) as (table, change):
                change.events.append(Event("restored", other=why))
                if table.phase is Phase.PLAYING and table.game is not None:
                    if table.game.finished:
                        await self._finish(table, change)
                    else:
                        self._schedule(table)  # the turn restarts with full time
                        if table.game.turn is not None:
                            change.hands_to_refresh.add(table.game.turn)
            log.info("restored table %s (%s)", table.channel_id, table.phase.value)

    async def _load_game(self, game_id: int) -> Game:
        stored = await db.load_game(self.db, game_id)
        record = dict(stored.record)
        record["actions"] = list(stored.actions)
        return Game.from_json(record)

    async def _sweep_idle(self) -> None:
        """Close lobbies and finished tables nobody has touched for a while."""
        idle = self.settings.idle_minutes * 60
        interval = max(0.05, min(30.0, idle / 4))
        while True:
            await asyncio.sleep(interval)
            now = self.clock()
            for table in list(self._tables.values()):
                if table.phase is not Phase.PLAYING and now - table.last_activity >= idle:
                    with contextlib.suppress(TableError):
                        async with self._locked(table.channel_id) as (locked, change):
                            if locked.phase is not Phase.PLAYING and now - locked.last_activity >= idle:
                                await self._close(locked, change, "idle")
