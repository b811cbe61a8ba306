"""A table: seats, host, options and a series of games (docs/rules.md §3, issue 8).

The table is the game-side model only: seats, host, options, the game in
progress and the series so far, with rule-checked transitions.  No asyncio,
no clock, no Discord: what the runtime needs besides (the table message, the
turn deadline, the last activity, players' languages) lives in the runtime.
The runtime changes a table on a copy (:meth:`Table.copy`), stores
:meth:`Table.to_json` and only then keeps the copy.

>>> table = Table.create(channel_id=1, guild_id=2, host=Seat.human(10, "An"), rules_name="mien-nam", bet=5)
>>> table.join(Seat.human(11, "Bình")); _ = table.add_ai("normal", name="Bot")
>>> [seat.name for seat in table.seats], table.phase
(['An', 'Bình', 'Bot'], <Phase.LOBBY: 'lobby'>)
>>> lead = table.next_lead()
>>> lead.first_game, lead.reason
(True, 'first-game')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from tienlen.errors import TienLenError
from tienlen.game import Game
from tienlen.rules import RULESETS, RuleSet

__all__ = ["Seat", "Phase", "Table", "TableError", "NextLead", "SeriesResult", "MIN_TURN_SECONDS", "MAX_TURN_SECONDS"]

MIN_TURN_SECONDS = 10
MAX_TURN_SECONDS = 120
AFK_TIMEOUTS = 3  # consecutive time-outs before the AI takes the seat (docs/rules.md §3)
RANKED_MIN_HUMANS = 3
"""A ranked table deals only to at least this many people (and no AI seat)."""


class TableError(TienLenError):
    """A table action that is not allowed now; ``code`` names why (translated by the bot)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class Phase(str, Enum):
    LOBBY = "lobby"  # seats being filled, no game yet
    PLAYING = "playing"
    BETWEEN = "between"  # a game has ended; the table waits for the next one


@dataclass(frozen=True)
class Seat:
    """A chair at the table: a human (``user_id``) or an AI seat (``user_id`` None).

    Immutable: the table replaces a seat to change it, so copies of a table share them."""

    user_id: int | None
    name: str
    ai_level: str | None = None
    afk: bool = False
    timeouts: int = 0
    ready: bool = False  # pressed "Next game"

    @classmethod
    def human(cls, user_id: int, name: str) -> "Seat":
        return cls(user_id=user_id, name=name)

    @classmethod
    def ai(cls, level: str, name: str) -> "Seat":
        return cls(user_id=None, name=name, ai_level=level)

    @property
    def is_ai(self) -> bool:
        return self.user_id is None

    @property
    def played_by_ai(self) -> bool:
        """AI seats, and humans the AI has taken over after time-outs."""
        return self.user_id is None or self.afk

    def to_json(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "name": self.name,
            "ai_level": self.ai_level,
            "afk": self.afk,
            "timeouts": self.timeouts,
            "ready": self.ready,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Seat":
        return cls(**{name: data[name] for name in _SEAT_FIELDS if name in data})


@dataclass
class SeriesResult:
    """What the next game needs to know about the last one (by user, not seat,
    because seats change between games).  ``None`` entries mean an AI seat."""

    winner: int | None
    winner_seat_name: str
    second: int | None
    second_seat_name: str
    penalty_leader: int | None = None  # iwin "đền bài"
    winner_was_ai: bool = False
    second_was_ai: bool = False

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


_SEAT_FIELDS = ("user_id", "name", "ai_level", "afk", "timeouts", "ready")
"""What a stored seat holds (older rows also carry a language, kept by the runtime now)."""


@dataclass(frozen=True)
class NextLead:
    """How the next game starts: ``first_game`` (3♠ rule) or led by ``seat``."""

    first_game: bool
    seat: int | None
    reason: str  # "first-game", "previous-winner", "winner-left", "second-place", "penalty"


@dataclass
class Table:
    """One table in one channel: a lobby, then a series of games."""

    channel_id: int
    guild_id: int
    host_id: int
    rules: RuleSet
    bet: int
    turn_seconds: int
    seats: list[Seat] = field(default_factory=list)
    phase: Phase = Phase.LOBBY
    game: Game | None = None
    game_id: int | None = None
    games_played: int = 0
    tally: dict[int, int] = field(default_factory=dict)
    """Chips won (+) or lost (−) this session, per user id."""
    last_result: SeriesResult | None = None
    game_seats: list[Seat] = field(default_factory=list)
    """The seats of the game in progress (frozen at the deal)."""
    ranked: bool = False
    """A ranked table: people only (three or more), the rule set's own turn time."""

    def copy(self) -> "Table":
        """An independent copy to change: the seat lists, the tally and the game
        copied (the game in about a microsecond), the rest shared (immutable)."""
        other = _shallow(self)
        other.seats = self.seats[:]
        other.game_seats = self.game_seats[:]
        other.game = self.game.copy() if self.game is not None else None
        other.tally = dict(self.tally)
        return other

    # -------------------------------------------------------------- creation
    @classmethod
    def create(
        cls,
        *,
        channel_id: int,
        guild_id: int,
        host: Seat,
        rules_name: str = "mien-nam",
        bet: int = 10,
        turn_seconds: int | None = None,
        min_turn_seconds: int = MIN_TURN_SECONDS,
        ranked: bool = False,
    ) -> "Table":
        rules = _preset(rules_name)
        seconds = rules.turn_seconds if turn_seconds is None or ranked else turn_seconds
        _check_turn_seconds(seconds, min_turn_seconds)
        _check_bet(bet)
        return cls(
            channel_id=channel_id,
            guild_id=guild_id,
            host_id=host.user_id or 0,
            rules=rules,
            bet=bet,
            turn_seconds=seconds,
            seats=[host],
            ranked=ranked,
        )

    # ------------------------------------------------------------------ seats
    def seat_of(self, user_id: int) -> int | None:
        """Index of the user's seat at the table (lobby order), or None."""
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return index
        return None

    def game_seat_of(self, user_id: int) -> int | None:
        """The user's seat in the game in progress, or None."""
        for index, seat in enumerate(self.game_seats):
            if seat.user_id == user_id:
                return index
        return None

    def is_seated(self, user_id: int) -> bool:
        return self.seat_of(user_id) is not None or self.game_seat_of(user_id) is not None

    @property
    def humans(self) -> list[Seat]:
        return [seat for seat in self.seats if not seat.is_ai]

    def join(self, seat: Seat) -> None:
        self._check_not_playing("join")
        if seat.user_id is not None and self.seat_of(seat.user_id) is not None:
            raise TableError("already_seated")
        if len(self.seats) >= self.rules.max_players:
            raise TableError("table_full", max=self.rules.max_players)
        self.seats.append(seat)
        self._unready()

    def add_ai(self, level: str, *, name: str) -> Seat:
        if self.ranked:
            raise TableError("ranked_no_ai")
        seat = Seat.ai(level, name)
        self.join(seat)
        return seat

    def remove_seat(self, index: int) -> Seat:
        """Free a seat between games (no penalty); hands the host role on if needed."""
        self._check_not_playing("leave")
        seat = self.seats.pop(index)
        if seat.user_id is not None and seat.user_id == self.host_id:
            self._pass_host_on()
        self._unready()
        return seat

    def leave(self, user_id: int) -> Seat:
        index = self.seat_of(user_id)
        if index is None:
            raise TableError("not_seated")
        return self.remove_seat(index)

    def _pass_host_on(self) -> None:
        """The next seated human becomes host (0 when only AI seats remain)."""
        humans = self.humans
        self.host_id = humans[0].user_id or 0 if humans else 0

    def transfer_host(self, from_user: int, to_user: int) -> None:
        self._check_host(from_user)
        if self.seat_of(to_user) is None:
            raise TableError("target_not_seated")
        self.host_id = to_user

    def remove_ai(self, requester: int) -> Seat:
        """The host removes the last AI seat (between games)."""
        self._check_host(requester)
        for index in range(len(self.seats) - 1, -1, -1):
            if self.seats[index].is_ai:
                return self.remove_seat(index)
        raise TableError("no_ai_seat")

    # ---------------------------------------------------------------- options
    def configure(
        self,
        requester: int,
        *,
        rules_name: str | None = None,
        bet: int | None = None,
        turn_seconds: int | None = None,
        min_turn_seconds: int = MIN_TURN_SECONDS,
    ) -> None:
        """The host changes rules, bet or turn time between games."""
        self._check_host(requester)
        self._check_not_playing("configure")
        if bet is not None:
            _check_bet(bet)
        if turn_seconds is not None:
            if self.ranked:
                raise TableError("ranked_turn_fixed")
            _check_turn_seconds(turn_seconds, min_turn_seconds)
        if rules_name is not None:
            rules = _preset(rules_name)
            if len(self.seats) > rules.max_players:
                raise TableError("table_full", max=rules.max_players)
            if rules.name != self.rules.name:
                self.rules = rules
                self.last_result = None  # a new rule set starts a new series
                if turn_seconds is None:
                    self.turn_seconds = max(rules.turn_seconds, min_turn_seconds)
        if bet is not None:
            self.bet = bet
        if turn_seconds is not None:
            self.turn_seconds = turn_seconds
        self._unready()

    # ------------------------------------------------------------ game start
    def check_can_start(self, requester: int | None) -> None:
        if requester is not None:
            self._check_host(requester)
        self._check_not_playing("start")
        if not self.rules.players_ok(len(self.seats)):
            raise TableError("need_players", min=self.rules.min_players, max=self.rules.max_players)
        if not self.humans:
            raise TableError("need_human")
        if self.ranked and (len(self.humans) < RANKED_MIN_HUMANS or len(self.humans) < len(self.seats)):
            raise TableError("ranked_needs_people", min=RANKED_MIN_HUMANS)

    def next_lead(self) -> NextLead:
        """Who leads the next game with the current seats (docs/rules.md §3, issue 8)."""
        result = self.last_result
        if result is None:
            return NextLead(first_game=True, seat=None, reason="first-game")
        if result.penalty_leader is not None:
            seat = self.seat_of(result.penalty_leader)
            if seat is not None:
                return NextLead(first_game=False, seat=seat, reason="penalty")
        winner = self._seat_of_result(result.winner, result.winner_was_ai, result.winner_seat_name)
        if winner is not None:
            return NextLead(first_game=False, seat=winner, reason="previous-winner")
        if self.rules.winner_left_lead == "second-place":
            second = self._seat_of_result(result.second, result.second_was_ai, result.second_seat_name)
            if second is not None:
                return NextLead(first_game=False, seat=second, reason="second-place")
        return NextLead(first_game=True, seat=None, reason="winner-left")

    def _seat_of_result(self, user_id: int | None, was_ai: bool, name: str) -> int | None:
        if not was_ai and user_id is not None:
            return self.seat_of(user_id)
        for index, seat in enumerate(self.seats):
            if seat.is_ai and seat.name == name:
                return index
        return None

    def start_game(self, game: Game, game_id: int | None) -> None:
        """Record that ``game`` (dealt to the current seats) has begun."""
        self.game = game
        self.game_id = game_id
        self.game_seats = [replace(seat, timeouts=0, ready=False) for seat in self.seats]
        self._unready()  # "ready for the next game" is asked afresh after this one
        self.phase = Phase.PLAYING

    # ------------------------------------------------------------ time-outs
    def note_timeout(self, seat: int) -> bool:
        """The human at game seat ``seat`` ran out of time; True when this
        makes the seat AFK (docs/rules.md §3: the AI plays it from now on)."""
        info = self.game_seats[seat]
        turns_afk = info.timeouts + 1 >= AFK_TIMEOUTS and not info.afk and not info.is_ai
        self.game_seats[seat] = replace(info, timeouts=info.timeouts + 1, afk=info.afk or turns_afk)
        return turns_afk

    def note_acted(self, seat: int) -> bool:
        """The human at game seat ``seat`` acted; True when they were AFK
        (they play their seat again)."""
        info = self.game_seats[seat]
        if info.timeouts or info.afk:
            self.game_seats[seat] = replace(info, timeouts=0, afk=False)
        return info.afk

    def finish_game(self, chips: dict[int, int]) -> SeriesResult:
        """The game is over: remember the result and the session tally."""
        game = self.game
        assert game is not None and game.finished
        places = game.places
        seats = self.game_seats
        first, second = seats[places[0]], seats[places[1]]
        leader = game.next_game_leader()
        result = SeriesResult(
            winner=first.user_id,
            winner_seat_name=first.name,
            second=second.user_id,
            second_seat_name=second.name,
            penalty_leader=seats[leader].user_id if leader is not None and leader != places[0] else None,
            winner_was_ai=first.is_ai,
            second_was_ai=second.is_ai,
        )
        for user_id, amount in chips.items():
            self.tally[user_id] = self.tally.get(user_id, 0) + amount
        self.last_result = result
        self.games_played += 1
        self._drop_departed()
        self.game = None
        self.game_id = None
        self.phase = Phase.BETWEEN
        return result

    def abort_game(self) -> None:
        """Cancel the game in progress; no chips move, the seats stay."""
        self._drop_departed()
        self.game = None
        self.game_id = None
        self.phase = Phase.BETWEEN if self.games_played else Phase.LOBBY

    def _drop_departed(self) -> None:
        """Seats whose player left mid-game are freed once the game ends."""
        game = self.game
        if game is None:
            return
        departed = {self.game_seats[seat].user_id for seat in game.left if not self.game_seats[seat].is_ai}
        self.seats = [seat for seat in self.seats if seat.user_id is None or seat.user_id not in departed]
        if self.host_id in departed:
            self._pass_host_on()
        for seat in self.game_seats:
            if seat.afk and not seat.is_ai:
                lobby = self.seat_of(seat.user_id)  # type: ignore[arg-type]
                if lobby is not None:
                    self.seats[lobby] = replace(self.seats[lobby], afk=False)

    def mark_ready(self, user_id: int) -> bool:
        """A seated human pressed "Next game"; True when every human is ready."""
        index = self.seat_of(user_id)
        if index is None:
            raise TableError("not_seated")
        self.seats[index] = replace(self.seats[index], ready=True)
        return all(seat.ready for seat in self.humans)

    def _unready(self) -> None:
        self.seats = [replace(seat, ready=False) if seat.ready else seat for seat in self.seats]

    # ----------------------------------------------------------------- checks
    def _check_host(self, user_id: int) -> None:
        if user_id != self.host_id:
            raise TableError("host_only")

    def _check_not_playing(self, action: str) -> None:
        if self.phase is Phase.PLAYING:
            raise TableError("game_running", action=action)

    # ---------------------------------------------------------------- storage
    def to_json(self) -> dict[str, Any]:
        """The table's state for storage (the game itself, and which game it
        is, are stored separately)."""
        return {
            "format": 1,
            "channel_id": self.channel_id,
            "guild_id": self.guild_id,
            "host_id": self.host_id,
            "rules": self.rules.name,
            "options": self.rules.options(),
            "bet": self.bet,
            "turn_seconds": self.turn_seconds,
            "ranked": self.ranked,
            "seats": [seat.to_json() for seat in self.seats],
            "game_seats": [seat.to_json() for seat in self.game_seats],
            "phase": self.phase.value,
            "games_played": self.games_played,
            "tally": {str(user): amount for user, amount in self.tally.items()},
            "last_result": self.last_result.to_json() if self.last_result else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], game: Game | None = None, game_id: int | None = None) -> "Table":
        result = data.get("last_result")
        return cls(
            channel_id=data["channel_id"],
            guild_id=data["guild_id"],
            host_id=data["host_id"],
            rules=RuleSet.from_options(data["rules"], data.get("options")),
            bet=data["bet"],
            turn_seconds=data["turn_seconds"],
            ranked=bool(data.get("ranked", False)),
            seats=[Seat.from_json(seat) for seat in data["seats"]],
            game_seats=[Seat.from_json(seat) for seat in data.get("game_seats", [])],
            phase=Phase(data["phase"]),
            game=game,
            game_id=game_id,
            games_played=data.get("games_played", 0),
            tally={int(user): amount for user, amount in data.get("tally", {}).items()},
            last_result=SeriesResult(**result) if result else None,
        )


def _shallow(value: Any) -> Any:
    """A shallow copy of a dataclass instance (a fifth of ``dataclasses.replace``'s cost:
    a step copies the table on every move)."""
    other = object.__new__(type(value))
    other.__dict__.update(value.__dict__)
    return other


def _preset(name: str) -> RuleSet:
    if name not in RULESETS:
        raise TableError("unknown_rules", rules=name, known=", ".join(RULESETS))
    return RULESETS[name]


def _check_bet(bet: int) -> None:
    if not isinstance(bet, int) or not 1 <= bet <= 1_000_000:
        raise TableError("bad_bet", min=1, max=1_000_000)


def _check_turn_seconds(seconds: int, minimum: int) -> None:
    if not minimum <= seconds <= MAX_TURN_SECONDS:
        raise TableError("bad_turn_seconds", min=minimum, max=MAX_TURN_SECONDS)
