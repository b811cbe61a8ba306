"""Random interleavings of commands, database faults and recoveries (hypothesis).

Two tables, four players, AI seats; commands as players press them, the
moves the scheduler would make (time-outs, AI moves) made here on demand,
and writes of a random kind failing for a while.  After every step:

* the tables in memory equal what a fresh process restores from the database;
* chips sum to zero (every account still holds the starting chips in all);
* every running game has exactly one live owner of its next move.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from runtime import scheduler
from runtime.service import NotEnoughChips
from runtime.steps import AiMove, Stale, TimeOut
from runtime.store import Refused, Unavailable
from tests.runtime.support import CHANNEL, GUILD, START, Harness, assert_one_owner
from tienlen import IllegalPlayError
from tienlen.ai import decide
from tienlen.table import TableError

CHANNELS = (CHANNEL, CHANNEL + 1)
USERS = (101, 102, 103, 104)
KINDS = ("table", "game", "action", "settlement", "abort", "delete", "account", "any")
EXPECTED = (TableError, IllegalPlayError, Unavailable, Stale, NotEnoughChips)

channels = st.sampled_from(CHANNELS)
users = st.sampled_from(USERS)


class TablesUnderFaults(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="tienlen-machine-"))
        self.loop = asyncio.new_event_loop()
        # Turn timers and AI seats never act by themselves here: the rules below
        # make their moves, so that hypothesis chooses when.
        self.harness = Harness(self.folder, ai_delay_seconds=10**6, deal_seed=None)
        self.run(self.harness.start())
        self.accounts: set[int] = set()

    def teardown(self) -> None:
        self.run(self.harness.close())
        self.loop.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    def attempt(self, coroutine) -> None:
        async def guarded() -> None:
            try:
                await coroutine
            except EXPECTED:
                pass
            await self.harness.settle_down()
            for _ in range(3):  # the scheduler's immediate steps (paying out, moving on)
                await asyncio.sleep(0.005)
                await self.harness.settle_down()

        self.run(guarded())

    @property
    def service(self):
        return self.harness.service

    @initialize()
    def open_tables(self) -> None:
        """A game under way at one table (two players and an AI), a lobby at the other."""
        first, second = CHANNELS
        self.accounts |= set(USERS)
        self.attempt(self.service.create_table(channel_id=first, guild_id=GUILD, user_id=101, name="u101",
                                               turn_seconds=120))
        self.attempt(self.service.join(first, 102, "u102"))
        self.attempt(self.service.add_ai(first, 101, "easy"))
        self.attempt(self.service.start_game(first, 101))
        self.attempt(self.service.create_table(channel_id=second, guild_id=GUILD, user_id=103, name="u103",
                                               turn_seconds=120))
        self.attempt(self.service.join(second, 104, "u104"))

    # ---------------------------------------------------------------- lobby
    @rule(channel=channels, user=users, turn=st.sampled_from([None, 120]))
    def create(self, channel: int, user: int, turn: int | None) -> None:
        self.accounts.add(user)
        self.attempt(self.service.create_table(channel_id=channel, guild_id=GUILD, user_id=user, name=f"u{user}",
                                               turn_seconds=turn or 120))

    @rule(channel=channels, user=users)
    def join(self, channel: int, user: int) -> None:
        self.accounts.add(user)
        self.attempt(self.service.join(channel, user, f"u{user}"))

    @rule(channel=channels, user=users)
    def leave(self, channel: int, user: int) -> None:
        self.attempt(self.service.leave(channel, user))

    @rule(channel=channels, user=users, level=st.sampled_from(["easy", "normal"]))
    def add_ai(self, channel: int, user: int, level: str) -> None:
        self.attempt(self.service.add_ai(channel, user, level))

    @rule(channel=channels, user=users)
    def remove_ai(self, channel: int, user: int) -> None:
        self.attempt(self.service.remove_ai(channel, user))

    @rule(channel=channels, user=users, bet=st.sampled_from([1, 5, 20]))
    def configure(self, channel: int, user: int, bet: int) -> None:
        self.attempt(self.service.configure(channel, user, bet=bet))

    @rule(channel=channels, user=users, new_host=users)
    def hand_over(self, channel: int, user: int, new_host: int) -> None:
        self.attempt(self.service.transfer_host(channel, user, new_host))

    @rule(channel=channels, user=users)
    def start(self, channel: int, user: int) -> None:
        self.attempt(self.service.start_game(channel, user))

    @rule(channel=channels, user=users)
    def next_game(self, channel: int, user: int) -> None:
        self.attempt(self.service.next_game(channel, user))

    @rule(channel=channels, user=users, admin=st.booleans())
    def end(self, channel: int, user: int, admin: bool) -> None:
        self.attempt(self.service.end(channel, user, is_admin=admin))

    # ---------------------------------------------------------------- moves
    def _turn(self, channel: int):
        state = self.service.state(channel)
        game = state.game if state is not None else None
        if game is None or game.finished or game.turn is None:
            return None
        return state, game, game.turn

    def _human_move(self, channel: int, choose) -> bool:
        """The human on turn plays ``choose(legal plays)`` (None: passes); False when no human is on turn."""
        found = self._turn(channel)
        if found is None:
            return False
        state, game, seat = found
        user = state.table.game_seats[seat].user_id
        if user is None:
            return False
        play = choose(game.legal_plays(seat))
        if play is None:
            self.attempt(self.service.pass_turn(channel, user))
        else:
            self.attempt(self.service.play(channel, user, play))
        return True

    @rule(channel=channels, pick=st.integers(0, 30), passing=st.booleans())
    def move(self, channel: int, pick: int, passing: bool) -> None:
        self._human_move(channel, lambda plays: None if passing or not plays else plays[pick % len(plays)])

    @rule(channel=channels, pick=st.integers(0, 30))
    def lowest_or_pass(self, channel: int, pick: int) -> None:
        """The commonest move (the AI's when an AI seat is on turn), so that games get played to the end."""
        lowest = lambda plays: min(plays, key=lambda combo: (combo.top, combo.size)) if plays else None  # noqa: E731
        if not self._human_move(channel, lowest):
            self.ai_move(channel, pick)

    @rule(channel=channels)
    def time_out(self, channel: int) -> None:
        found = self._turn(channel)
        if found is not None:
            state, game, _ = found
            self.attempt(self.service.execute(channel, TimeOut(game_id=state.table.game_id, version=len(game.actions))))

    @rule(channel=channels, seed=st.integers(0, 2**16))
    def ai_move(self, channel: int, seed: int) -> None:
        found = self._turn(channel)
        if found is None:
            return
        state, game, seat = found
        if not state.table.game_seats[seat].played_by_ai:
            return
        mask = decide(game.view(seat), "easy", seed)
        self.attempt(self.service.execute(channel, AiMove(game_id=state.table.game_id, version=len(game.actions),
                                                          seat=seat, mask=mask)))

    # ---------------------------------------------------------------- faults
    @rule(kind=st.sampled_from(KINDS))
    def writes_fail(self, kind: str) -> None:
        self.harness.database.failing = {kind}

    @precondition(lambda self: bool(self.harness.database.failing))
    @rule()
    def writes_recover(self) -> None:
        self.harness.database.failing = set()
        self.attempt(asyncio.sleep(3 * scheduler.RETRY_MAX))  # what was waiting lands

    # ------------------------------------------------------------ invariants
    @invariant()
    def memory_is_the_database(self) -> None:
        self.run(self.harness.assert_memory_is_the_database())

    @invariant()
    def chips_sum_to_zero(self) -> None:
        balances = self.run(self.harness.chips())
        assert sum(balances.values()) == START * len(balances)

    @invariant()
    def every_running_game_has_one_owner(self) -> None:
        assert_one_owner(self.service)


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    monkeypatch.setattr(scheduler, "RETRY_FIRST", 0.005)
    monkeypatch.setattr(scheduler, "RETRY_MAX", 0.02)


TablesUnderFaults.TestCase.settings = settings(
    max_examples=20, stateful_step_count=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
test_tables_under_faults = TablesUnderFaults.TestCase
