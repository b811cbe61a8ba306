"""The commands the Discord layer calls, each one a step: lock, step, commit, keep, publish.

Every change of a table goes through :meth:`TableService.execute`:

1. take the table's lock and read its committed state;
2. **step**: :func:`runtime.steps.apply` returns the new state, the events
   and the records (an illegal command raises here: nothing happened);
3. **commit**: the store writes the records in one transaction; if that
   fails, the committed state is untouched, so "nothing changed" is true;
   if its answer is lost (the connection dropped during COMMIT), the table
   is read back: the step stands if it is stored, else it failed;
4. **keep**: the new state (completed with what the commit made known)
   replaces the committed one;
5. **schedule**: the scheduler derives what the table waits for next;
6. **publish**: the outbox tells Discord, in the background.

Steps 2–6 run in a task of their own that the caller awaits: a caller that
is cancelled (a replaced timer, an interaction given up) never leaves a
commit half kept.

Rules are the engine's (:mod:`tienlen`), storage is the store's
(:mod:`runtime.store`); this module decides neither.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from dataclasses import replace
from typing import Any, Callable

from runtime import steps
from runtime.ai import AiRunner
from runtime.outbox import NullNotifier, Notifier, Outbox
from runtime.outcomes import summary_of
from runtime.registry import TableRegistry
from runtime.replays import Replays
from runtime.scheduler import Scheduler
from runtime.server_settings import ServerSettings
from runtime.settings import Settings
from runtime.snapshot import TAKEN_OVER, Event, GameSummary, HandSnapshot, TableSnapshot, hand_of, snapshot_of
from runtime.state import TableState
from runtime.steps import Context, GameJustEnded, Step
from runtime.store import Database, OutcomeUnknown, Refused, Store
from tienlen import Combo, parse_cards
from tienlen.cards import Card, as_mask
from tienlen.game import SeatView
from tienlen.table import Phase, Table, TableError

log = logging.getLogger(__name__)

__all__ = ["TableService", "NotEnoughChips", "GameJustEnded", "TableError"]


class NotEnoughChips(TableError):
    """The player cannot cover the table's maximum plausible loss (``name``: who, when not the caller)."""

    def __init__(self, need: int, have: int, name: str | None = None) -> None:
        if name is None:
            super().__init__("not_enough_chips", need=need, have=have)
        else:
            super().__init__("player_not_enough_chips", need=need, have=have, name=name)


async def _settled(commit: "asyncio.Future[Any]") -> bool:
    """Wait until the commit has an outcome; whether the caller was cancelled meanwhile.

    A commit that has been sent may already be stored: whoever started it
    waits for its outcome and keeps the new state before giving up, or
    memory would fall behind the database."""
    cancelled = False
    while not commit.done():
        try:
            await asyncio.wait({commit})
        except asyncio.CancelledError:
            cancelled = True
    return cancelled


class TableService:
    def __init__(
        self,
        database: Database,
        settings: Settings,
        *,
        notifier: Notifier | None = None,
        ai: AiRunner | None = None,
        clock: Callable[[], float] = time.time,
        owns_guild: Callable[[int], bool] | None = None,
    ) -> None:
        self.db = database
        self.settings = settings
        self.clock = clock
        # In a cluster a process restores and runs only its own slot's tables.
        self.owns_guild = owns_guild or (lambda _guild_id: True)
        self.ai = ai or AiRunner(workers=settings.ai_workers, budget_ms=settings.ai_budget_ms)
        self.store = Store(database)
        self.replays = Replays(self.store)
        self.registry = TableRegistry()
        self.outbox = Outbox(notifier or NullNotifier(), mark_posted=self.store.summary_posted)
        self.scheduler = Scheduler(run=self.execute, decide=self._decide, clock=clock,
                                   ai_delay=settings.ai_delay_seconds, idle_seconds=settings.idle_minutes * 60)
        self._active = 0
        """Steps in flight."""
        self._actor_hand: HandSnapshot | None = None
        """The hand of the player whose move was just published (their answer shows it)."""
        # Shuffles are unpredictable unless a test asks for reproducible deals.
        self._seeds = random.Random(settings.deal_seed) if settings.deal_seed is not None else None

    @property
    def notifier(self) -> Notifier:
        return self.outbox.notifier

    @notifier.setter
    def notifier(self, notifier: Notifier) -> None:
        self.outbox.notifier = notifier

    # ------------------------------------------------------------- queries
    def table(self, channel_id: int) -> Table | None:
        """The committed game-side table (read it; never change it)."""
        state = self.registry.get(channel_id)
        return state.table if state is not None else None

    def state(self, channel_id: int) -> TableState | None:
        return self.registry.get(channel_id)

    def snapshot(self, channel_id: int) -> TableSnapshot | None:
        return self.registry.snapshot(channel_id)

    @property
    def tables(self) -> list[Table]:
        return [state.table for state in self.registry]

    def hand(self, channel_id: int, user_id: int, *, selected: tuple[Card, ...] = ()) -> HandSnapshot:
        """The user's private view of the game at ``channel_id``."""
        state = self._require(channel_id)
        table = state.table
        if table.game is None or table.phase is not Phase.PLAYING:
            raise TableError("no_game")
        seat = table.game_seat_of(user_id)
        if seat is None:
            raise TableError("not_in_game")
        return hand_of(state, seat, deadline=self.scheduler.deadline(channel_id), selected=selected)

    def legal_plays(self, channel_id: int, user_id: int) -> list[Combo]:
        """The user's legal plays now (empty when they are not playing here)."""
        try:
            return list(self.hand(channel_id, user_id).legal)
        except TableError:
            return []

    def _require(self, channel_id: int) -> TableState:
        state = self.registry.get(channel_id)
        if state is None:
            raise TableError("no_table")
        return state

    # ------------------------------------------------------------- the path
    async def execute(self, channel_id: int, command: "steps.Command", *, check: Any = None,
                      refresh_actor: bool = True) -> Step:
        """Run ``command`` on the table: step, commit, keep, schedule, publish.

        ``check(state)``: an awaitable precondition read under the lock (the
        players' chips before a deal).

        A step the stored data refuses means memory and the database disagree
        (a commit that was stored although its answer was lost, say): the
        table is read back from the database and shown before the refusal is
        raised, so the next command starts from what was stored.  A commit
        whose answer was lost is read back at once (see :meth:`_read_back`)."""
        self._active += 1
        try:
            try:
                return await self._execute(channel_id, command, check, refresh_actor)
            except Refused:
                with contextlib.suppress(Exception):  # the database may be failing too: kept as it was
                    await self.resync(channel_id)
                raise
        finally:
            self._active -= 1

    async def _execute(self, channel_id: int, command: "steps.Command", check: Any, refresh_actor: bool) -> Step:
        async with self.registry.lock(channel_id):
            state = self.registry.get(channel_id)
            if check is not None:
                await check(state)
            step = steps.apply(state, command, self._context())
            guild_id = state.guild_id if state is not None else getattr(command, "guild_id")
            commit = self.store.submit(channel_id, guild_id, step.records)
            cancelled = await _settled(commit)
            try:
                kept = steps.complete(step, commit.result())
            except OutcomeUnknown as unknown:
                kept = await self._read_back(channel_id, step, unknown)
                step = replace(step, state=kept)  # as stored: with the new game's id, what was paid
            self._keep(channel_id, kept)
            if not isinstance(command, (steps.SetMessage, steps.NoteLocale, steps.CreateTable)):
                self._publish(channel_id, state, kept, step, refresh_actor=refresh_actor)
            elif kept is not None:
                self._show(kept, step)
        if cancelled:
            raise asyncio.CancelledError()
        return step

    async def quiet(self) -> None:
        """Wait until no step is in flight (tests, shutdown)."""
        while self._active:
            await asyncio.sleep(0.001)

    def _context(self) -> Context:
        return Context(now=self.clock(), min_turn_seconds=self.settings.min_turn_seconds,
                       idle_seconds=self.settings.idle_minutes * 60)

    def _keep(self, channel_id: int, state: TableState | None) -> None:
        self.registry.keep(channel_id, state)
        self.scheduler.committed(channel_id, state)

    def _show(self, state: TableState, step: Step, *, closed: bool = False) -> TableSnapshot:
        """The table's public picture after ``step`` (built under the lock)."""
        channel_id = state.channel_id
        summary = self.registry.summary(channel_id) if state.table.phase is Phase.BETWEEN else None
        return self.registry.shown(snapshot_of(
            state, version=self.registry.next_version(), deadline=self.scheduler.deadline(channel_id),
            events=self.registry.events(channel_id, step.events), lead=step.lead, summary=summary, closed=closed))

    def _publish(self, channel_id: int, before: TableState | None, kept: TableState | None, step: Step, *,
                 refresh_actor: bool) -> None:
        summary = self._summary(before, kept) if step.concluded else None
        if kept is None:
            assert before is not None
            self.outbox.publish(self._show(step.final or before, step, closed=True), summary=summary)
            self.registry.keep(channel_id, None)  # forget its news too
            log.info("table %s closed (%s)", channel_id, step.closed)
            return
        snapshot = self._show(kept, step)
        seats = set(step.refresh)
        if not refresh_actor and step.actor is not None:
            seats.discard(step.actor)
        game = kept.table.game
        hands = {}
        if game is not None and kept.table.game_id is not None:
            hands = {seat: hand_of(kept, seat, deadline=snapshot.deadline) for seat in sorted(seats)
                     if not kept.table.game_seats[seat].is_ai}
            if step.actor is not None and step.actor in hands:
                self._actor_hand = hands[step.actor]  # the answer to the actor's own press shows it too
        self.outbox.publish(snapshot, dealt=step.dealt, hands=hands, summary=summary)
        if step.dealt:
            log.info("table %s: game %s started (%s, %d seats)", channel_id, kept.table.game_id,
                     kept.table.rules.name, len(kept.table.game_seats))
        if step.concluded:
            log.info("table %s: game %s finished", channel_id, before.table.game_id if before else None)

    def _summary(self, before: TableState | None, kept: TableState | None) -> GameSummary | None:
        """The summary of the game a Conclude step paid out (shown on the table
        until the next deal; posted all the same when the step closed the table)."""
        if before is None or before.payout is None or before.table.game is None:
            return None
        table = before.table
        summary = summary_of(game_id=table.game_id or 0, game=table.game, seats=table.game_seats,
                             payout=before.payout, bet=table.bet, rake_percent=table.rules.rake_percent,
                             language=before.language)
        if kept is not None:
            self.registry.summary(kept.channel_id, summary)
        return summary

    async def _read_back(self, channel_id: int, step: Step, unknown: OutcomeUnknown) -> TableState | None:
        """The table as stored, after a commit whose answer was lost (under the
        lock): the state to keep when the step is in the store.  When it is
        not, memory takes what was stored all the same, and the step fails
        as in an outage; when the database cannot be read either, memory
        stays as it was (should the step be stored, the next one is refused
        and resyncs)."""
        try:
            stored = await self._stored_state(channel_id)
        except Exception as error:
            raise unknown from error
        if steps.in_store(step, stored):
            log.info("table %s: a commit whose answer was lost is stored", channel_id)
            return stored
        before = self.registry.get(channel_id)
        self._keep(channel_id, stored)
        if not steps.in_store(Step(state=before), stored):  # memory was behind: show what is stored
            self._show_stored(channel_id, before, stored)
        raise unknown

    async def _stored_state(self, channel_id: int) -> TableState | None:
        loaded = {restored.state.channel_id: restored for restored in
                  await self.store.load(lambda guild_id: True, only=channel_id)}
        return loaded[channel_id].state if channel_id in loaded else None

    async def resync(self, channel_id: int) -> None:
        """Read the table back from the database and show it (after the database
        refused a step: memory may be behind what was stored)."""
        async with self.registry.lock(channel_id):
            before = self.registry.get(channel_id)
            state = await self._stored_state(channel_id)
            self._keep(channel_id, state)
            if before is None and state is None:
                return
            self._show_stored(channel_id, before, state)

    def _show_stored(self, channel_id: int, before: TableState | None, state: TableState | None) -> None:
        """Show the table as read back from the database, every player's hand with it."""
        players = len(state.table.game_seats) if state is not None and state.game is not None else 0
        self._publish(channel_id, before, state, Step(state=state, refresh=frozenset(range(players))),
                      refresh_actor=True)

    # ---------------------------------------------------------------- chips
    async def server(self, guild_id: int) -> ServerSettings:
        """The server's settings (its admins' choices, else the bot's defaults)."""
        return await self.store.server_settings(guild_id, self.settings)

    async def _covers(self, table: Table, user_id: int, server: ServerSettings, *, name: str | None = None) -> None:
        """A player must cover the preset's maximum plausible loss for one game."""
        balance = await self.store.balance(table.guild_id, user_id, starting_chips=server.starting_chips)
        need = table.bet * table.rules.max_plausible_loss(table.rules.max_players)
        if balance < need:
            raise NotEnoughChips(need=need, have=balance, name=name)

    def _deal_check(self, server: ServerSettings, *, deals: Callable[[TableState], bool] = lambda _state: True):
        """What must hold before a deal, read under the table's lock: AI seats
        allowed by the server, and every player's chips."""

        async def check(state: TableState | None) -> None:
            if state is None or not deals(state):
                return
            if not server.ai_allowed and any(seat.is_ai for seat in state.table.seats):
                raise TableError("ai_off")
            for seat in state.table.humans:
                assert seat.user_id is not None
                await self._covers(state.table, seat.user_id, server, name=seat.name)

        return check

    def _seed(self) -> int:
        return self._seeds.getrandbits(64) if self._seeds is not None else secrets.randbits(64)

    # ---------------------------------------------------------------- lobby
    async def create_table(self, *, channel_id: int, guild_id: int, user_id: int, name: str, locale: str = "en-US",
                           rules_name: str | None = None, bet: int | None = None,
                           turn_seconds: int | None = None, ranked: bool = False) -> TableSnapshot:
        """Open a table; options left None are the server's defaults.  A ranked
        table seats people only, at least three, at the rule set's turn time."""
        if self.registry.get(channel_id) is not None:
            raise TableError("table_exists")
        server = await self.server(guild_id)
        if not server.allows_tables_in(channel_id):
            raise TableError("channel_not_allowed", channels=server.table_channels)
        command = steps.CreateTable(
            channel_id=channel_id, guild_id=guild_id, host_id=user_id, host_name=name, locale=locale,
            rules_name=rules_name if rules_name is not None else server.default_rules,
            bet=bet if bet is not None else server.default_bet,
            turn_seconds=turn_seconds if turn_seconds is not None else server.default_turn_seconds,
            language=server.table_language, ranked=ranked)
        probe = steps.apply(None, command, self._context())  # the options are checked before the chips
        assert probe.state is not None
        await self._covers(probe.state.table, user_id, server)
        await self.execute(channel_id, command)
        snapshot = self.registry.snapshot(channel_id)
        assert snapshot is not None
        return snapshot

    async def set_message(self, channel_id: int, message_id: int) -> None:
        """Remember the public table message (edited in place from now on)."""
        state = self.registry.get(channel_id)
        if state is None or state.message_id == message_id:
            return
        with contextlib.suppress(steps.Stale, TableError):
            await self.execute(channel_id, steps.SetMessage(message_id=message_id))

    async def note_locale(self, channel_id: int, user_id: int, locale: str) -> None:
        """Remember the language a player's Discord client uses (for their DMs)."""
        state = self.registry.get(channel_id)
        if state is None or state.locales.get(user_id, locale) == locale:
            return
        with contextlib.suppress(steps.Stale, TableError):
            await self.execute(channel_id, steps.NoteLocale(user_id=user_id, locale=locale))

    async def join(self, channel_id: int, user_id: int, name: str, locale: str = "en-US") -> TableSnapshot:
        table = self._require(channel_id).table
        await self._covers(table, user_id, await self.server(table.guild_id))
        return await self._snapshot_after(channel_id, steps.Join(user_id=user_id, name=name, locale=locale))

    async def add_ai(self, channel_id: int, requester: int, level: str = "normal") -> TableSnapshot:
        if not (await self.server(self._require(channel_id).guild_id)).ai_allowed:
            raise TableError("ai_off")
        return await self._snapshot_after(channel_id, steps.AddAi(requester=requester, level=level))

    async def remove_ai(self, channel_id: int, requester: int) -> TableSnapshot:
        return await self._snapshot_after(channel_id, steps.RemoveAi(requester=requester))

    async def leave(self, channel_id: int, user_id: int) -> TableSnapshot:
        """Leave the table; during a game this is a loss with the preset's penalty."""
        return await self._snapshot_after(channel_id, steps.Leave(user_id=user_id))

    async def transfer_host(self, channel_id: int, requester: int, target: int) -> TableSnapshot:
        return await self._snapshot_after(channel_id, steps.TransferHost(requester=requester, target=target))

    async def configure(self, channel_id: int, requester: int, *, rules_name: str | None = None,
                        bet: int | None = None, turn_seconds: int | None = None) -> TableSnapshot:
        return await self._snapshot_after(channel_id, steps.Configure(
            requester=requester, rules_name=rules_name, bet=bet, turn_seconds=turn_seconds))

    async def end(self, channel_id: int, requester: int, *, is_admin: bool = False) -> TableSnapshot:
        """Close the table: the host or a server manager; a game in progress is
        aborted with no chips moved.

        Raises :class:`GameJustEnded`, with the table closed all the same,
        when the game's last move came just before: that game stands as played."""
        step = await self.execute(channel_id, steps.End(requester=requester, is_admin=is_admin))
        if step.just_ended:
            raise GameJustEnded()
        snapshot = self.registry.snapshot(channel_id)
        assert snapshot is not None
        return snapshot

    async def _snapshot_after(self, channel_id: int, command: "steps.Command", **options: Any) -> TableSnapshot:
        await self.execute(channel_id, command, **options)
        snapshot = self.registry.snapshot(channel_id)
        assert snapshot is not None
        return snapshot

    # ---------------------------------------------------------------- games
    async def start_game(self, channel_id: int, requester: int | None) -> TableSnapshot:
        server = await self.server(self._require(channel_id).guild_id)
        command = steps.Start(requester=requester, seed=self._seed(), language=server.table_language,
                              ranked_only=server.ranked_only)
        return await self._snapshot_after(channel_id, command, check=self._deal_check(server))

    async def next_game(self, channel_id: int, user_id: int) -> tuple[TableSnapshot, bool]:
        """"Next game": the host starts it at once; otherwise it starts when every
        seated human has pressed it.  Returns (snapshot, started)."""
        server = await self.server(self._require(channel_id).guild_id)
        command = steps.NextGame(user_id=user_id, seed=self._seed(), language=server.table_language,
                                 ranked_only=server.ranked_only)
        check = self._deal_check(server, deals=lambda state: steps.next_game_deals(state, user_id))
        step = await self.execute(channel_id, command, check=check)
        snapshot = self.registry.snapshot(channel_id)
        assert snapshot is not None
        return snapshot, step.started

    async def play(self, channel_id: int, user_id: int, cards: "Combo | str | list[Card] | int", *,
                   refresh_dm: bool = True) -> HandSnapshot:
        """A human plays ``cards``; raises IllegalPlayError/TableError with a reason.

        ``refresh_dm=False`` when the answer to this very interaction updates the
        player's DM hand message (the click came from it)."""
        if isinstance(cards, str):
            cards = parse_cards(cards)
        combo = cards if isinstance(cards, (Combo, int)) else as_mask(cards)
        step = await self.execute(channel_id, steps.Play(user_id=user_id, cards=combo), refresh_actor=refresh_dm)
        return self._own_hand(channel_id, step)

    async def pass_turn(self, channel_id: int, user_id: int, *, refresh_dm: bool = True) -> HandSnapshot:
        step = await self.execute(channel_id, steps.Pass(user_id=user_id), refresh_actor=refresh_dm)
        return self._own_hand(channel_id, step)

    def _own_hand(self, channel_id: int, step: Step) -> HandSnapshot:
        """The actor's hand right after their own move (the table may have moved on since)."""
        state = step.state
        assert state is not None and step.actor is not None
        made, self._actor_hand = self._actor_hand, None
        if made is not None and made.channel_id == channel_id and made.version == len(state.table.game.actions):
            return made
        return hand_of(state, step.actor, deadline=self.scheduler.deadline(channel_id))

    async def _decide(self, view: SeatView, level: str, levels: "tuple[str | None, ...]") -> int | None:
        return await self.ai.decide(view, level, random.getrandbits(32), levels)

    # ------------------------------------------------------------ lifecycle
    async def start(self, *, took_over: bool = False) -> None:
        """Restore this process's stored tables, then let the scheduler drive them.

        ``took_over`` says this process took the tables over from an earlier
        holder of its cluster slot, which may have been another process (a
        failover) or this bot before a restart; the tables say so."""
        for summary in await self.store.unposted_summaries(self.owns_guild):
            self.outbox.summary(summary.channel_id, summary.guild_id, summary_of(
                game_id=summary.game_id, game=summary.game, seats=summary.seats, payout=summary.payout,
                bet=summary.bet, rake_percent=summary.rake_percent))
        restored_event = Event(kind="restored", other=TAKEN_OVER if took_over else "")
        for restored in await self.store.load(self.owns_guild):
            await self._restore(restored.state, restored.lost_game, restored_event)

    async def _restore(self, state: TableState, lost_game: int | None, event: Event) -> None:
        channel_id = state.channel_id
        async with self.registry.lock(channel_id):
            events: tuple[Event, ...] = (event,)
            if lost_game is not None:  # its game could not be rebuilt: called off, no chips moved
                called_off = steps.abandon(state, lost_game)
                await self.store.commit(channel_id, state.guild_id, called_off.records)
                assert called_off.state is not None
                state, events = called_off.state, events + called_off.events
            self._keep(channel_id, state)
            game = state.game
            # The player on turn gets a fresh hand message: the turn starts again with full time.
            refresh = frozenset({game.turn}) if game is not None and game.turn is not None else frozenset()
            self._publish(channel_id, state, state, Step(state=state, events=events, refresh=refresh),
                          refresh_actor=True)
        log.info("restored table %s (%s)", channel_id, state.table.phase.value)

    async def flush(self, channel_id: int | None = None) -> None:
        """Wait until queued notifications have been sent (tests, shutdown)."""
        await self.outbox.flush(channel_id)

    async def close(self) -> None:
        await self.scheduler.close()
        await self.quiet()
        await self.outbox.close()
        self.ai.close()
