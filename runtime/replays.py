"""Replays of finished games, made from what the database stored of them.

A stored game is its deal and its actions; :class:`tienlen.replay.Replay`
plays them again one by one.  This module finds the game a player asks for,
refuses what may not be shown (a game still being played keeps its hands
secret; a called-off game has no end; a game of another server is not this
server's to show), and keeps the last replays built, since a player stepping
through one asks for the same game again and again.  Nothing here holds the
deck's seed or a card that was never dealt: the replay does not have them.
"""

from __future__ import annotations

import datetime
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from runtime.outcomes import events_of
from runtime.snapshot import Event
from tienlen.replay import Frame, Replay
from tienlen.table import Seat, TableError

if TYPE_CHECKING:
    from runtime.store import Store

__all__ = ["ReplayGame", "Replays", "ReplayRefused", "step_events", "CACHED_REPLAYS"]

CACHED_REPLAYS = 64


class ReplayRefused(TableError):
    """The replay may not be shown; ``code`` says why (translated by the bot)."""


@dataclass(frozen=True)
class ReplayGame:
    """A finished game ready to step through, with the public facts around it."""

    game_id: int
    guild_id: int
    channel_id: int
    rules: str
    bet: int
    names: tuple[str, ...]
    """The seats' names, in seat order."""
    ai: tuple[bool, ...]
    started_at: datetime.datetime
    replay: Replay


class Replays:
    """Finds, checks and caches replays (one per process; reads only)."""

    def __init__(self, store: "Store", *, cached: int = CACHED_REPLAYS) -> None:
        self.store = store
        self._cached = cached
        self._games: OrderedDict[int, ReplayGame] = OrderedDict()

    async def game(self, guild_id: int, game_id: int) -> ReplayGame:
        """The replay of game ``game_id`` of server ``guild_id``; raises ReplayRefused."""
        if not 0 < game_id < 2**63:  # a forged button's number: no row can have it
            raise ReplayRefused("replay_not_found", game=str(game_id))
        known = self._games.get(game_id)
        if known is not None:
            self._games.move_to_end(game_id)
            if known.guild_id != guild_id:
                raise ReplayRefused("replay_not_found", game=str(game_id))
            return known
        stored = await self.store.stored_game(game_id)
        if stored is None or stored.guild_id != guild_id:
            raise ReplayRefused("replay_not_found", game=str(game_id))
        if stored.status != "finished":
            # A running game's hands are secret; a called-off game never ended.
            raise ReplayRefused("replay_running" if stored.status == "running" else "replay_aborted", game=str(game_id))
        made = ReplayGame(
            game_id=game_id, guild_id=stored.guild_id, channel_id=stored.channel_id, rules=stored.rules,
            bet=stored.bet, names=tuple(str(seat.get("name", "")) for seat in stored.seats),
            ai=tuple(seat.get("user_id") is None for seat in stored.seats), started_at=stored.started_at,
            replay=Replay.of_record(stored.record))
        self._games[game_id] = made
        while len(self._games) > self._cached:
            self._games.popitem(last=False)
        return made

    async def latest(self, guild_id: int, channel_id: int) -> ReplayGame:
        """The last finished game played in the channel; raises ReplayRefused."""
        game_id = await self.store.latest_finished_game(guild_id, channel_id)
        if game_id is None:
            raise ReplayRefused("replay_none")
        return await self.game(guild_id, game_id)


def step_events(game: ReplayGame, frame: Frame) -> tuple[Event, ...]:
    """What the step's action did, as the table announced it: the play or pass,
    a chop and what it is worth, a player out, a new round; at the deal, who leads."""
    seats = [Seat(user_id=None, name=name) for name in game.names]
    if frame.outcome is None:
        if game.replay.instant_winner is not None:
            return ()
        leader = game.names[frame.turn] if frame.turn is not None else ""
        return (Event(kind="game_started", name=leader),)
    events = events_of(seats, frame.outcome)
    action = frame.outcome.action
    if action.kind == "leave":
        events.insert(0, Event(kind="left_game", seat=action.seat, name=game.names[action.seat]))
    elif action.kind == "timeout":
        events.insert(0, Event(kind="timeout", seat=action.seat, name=game.names[action.seat]))
    return tuple(events)
