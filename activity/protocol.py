"""The Activity's WebSocket protocol: what a client may send, checked before anything acts on it.

A frame is one JSON object of at most :data:`MAX_FRAME` bytes with a ``type``
and, optionally, a client-chosen ``id`` that the answer repeats.  The first
frame of a connection is ``hello`` (the access token and the activity instance
id); every later one is an action.  Pure functions: a refusal is a
:class:`ProtocolError` whose ``code`` is an ``activity.error.*`` catalogue key,
and nothing has been done when it is raised.

Client → server::

    {"type": "hello", "access_token": "...", "instance_id": "..."}
    {"type": "play", "cards": ["3S", "4S", "5S"], "id": 7}
    {"type": "select", "cards": ["3S"]}          # is this selection a legal play now?
    {"type": "pass"} {"type": "chop", "cards": [...]} {"type": "ping"}
    {"type": "join"} {"type": "leave"} {"type": "start"} {"type": "next"}
    {"type": "addbot", "level": "normal"} {"type": "removebot"} {"type": "end"} {"type": "create"}
    {"type": "replay", "game": 42, "step": 0}    # a step of a finished game of this table

Server → client: ``welcome`` (who you are, your language, the client's strings),
``table`` (the public table), ``hand`` (your cards; ``null`` when you play no
game here), ``ok`` / ``error`` (the answer to a frame with its ``id``),
``selection``, ``replay`` (one step of a finished game), ``pong``, and ``bye`` just before the server closes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tienlen import Card, InvalidCardError
from tienlen.ai import LEVELS

__all__ = ["MAX_FRAME", "MAX_STEP", "ACTIONS", "LEVELS", "ProtocolError", "Hello", "Action", "parse_hello", "parse_action"]

MAX_FRAME = 4096
"""Bytes in one client frame; the largest real one (13 card codes) is under 200."""
ACTIONS = frozenset({"play", "select", "pass", "chop", "ping", "join", "leave", "start", "next", "addbot",
                     "removebot", "end", "create", "replay"})

_INSTANCE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MAX_TOKEN = 512
_MAX_CARDS = 13
MAX_STEP = 10_000
"""The largest replay step a client may ask for (a game has a few hundred; later ones show the last)."""


class ProtocolError(Exception):
    """A frame refused before anything acted on it; ``code`` names an ``activity.error`` key."""

    def __init__(self, code: str, request_id: Any = None, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.request_id = request_id
        self.params = params


@dataclass(frozen=True)
class Hello:
    access_token: str
    instance_id: str


@dataclass(frozen=True)
class Action:
    type: str
    request_id: Any = None
    cards: tuple[Card, ...] = ()
    level: str = "normal"
    game: int = 0
    """``replay``: the game's number (its id, as the summary gives it)."""
    step: int = 0


def _object(text: "str | bytes") -> dict[str, Any]:
    if isinstance(text, (bytes, bytearray)):
        raise ProtocolError("binary")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME:
        raise ProtocolError("too_big", limit=MAX_FRAME)
    try:
        data = json.loads(text)
    except ValueError:
        raise ProtocolError("malformed") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ProtocolError("malformed")
    return data


def _request_id(data: dict[str, Any]) -> Any:
    """The client's id for its frame, repeated in the answer: a short string or a small integer."""
    value = data.get("id")
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53):
        return value
    if isinstance(value, str) and len(value) <= 64:
        return value
    raise ProtocolError("malformed")


def parse_hello(text: "str | bytes") -> Hello:
    data = _object(text)
    if data["type"] != "hello":
        raise ProtocolError("hello_first")
    token, instance = data.get("access_token"), data.get("instance_id")
    if not isinstance(token, str) or not 0 < len(token) <= _MAX_TOKEN or not token.isprintable():
        raise ProtocolError("auth_failed")
    if not isinstance(instance, str) or not _INSTANCE_ID.fullmatch(instance):
        raise ProtocolError("bad_instance")
    return Hello(access_token=token, instance_id=instance)


def parse_action(text: "str | bytes") -> Action:
    data = _object(text)
    request_id = _request_id(data)
    kind = data["type"]
    if kind == "hello":
        raise ProtocolError("already_hello", request_id)
    if kind not in ACTIONS:
        raise ProtocolError("unknown_action", request_id, action=kind[:32])
    cards: tuple[Card, ...] = ()
    if kind in ("play", "select", "chop") or "cards" in data:
        cards = _cards(data.get("cards"), request_id, required=kind in ("play", "select"))
    level = data.get("level", "normal")
    if kind == "addbot" and level not in LEVELS:
        raise ProtocolError("bad_level", request_id, known=", ".join(LEVELS))
    game = step = 0
    if kind == "replay":
        game, step = data.get("game"), data.get("step", 0)
        if not _whole(game) or not 0 < game < 2**53:
            raise ProtocolError("bad_game", request_id, game=str(game)[:16])
        if not _whole(step) or not 0 <= step <= MAX_STEP:
            raise ProtocolError("bad_step", request_id, max=MAX_STEP)
    return Action(type=kind, request_id=request_id, cards=cards, level=level if isinstance(level, str) else "normal",
                  game=game, step=step)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cards(value: Any, request_id: Any, *, required: bool) -> tuple[Card, ...]:
    if value is None and not required:
        return ()
    if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
        raise ProtocolError("malformed", request_id)
    if not value:
        raise ProtocolError("no_cards", request_id)
    if len(value) > _MAX_CARDS:
        raise ProtocolError("too_many_cards", request_id, max=_MAX_CARDS)
    cards: list[Card] = []
    for code in value:
        try:
            card = Card.parse(code)
        except InvalidCardError:
            raise ProtocolError("bad_card", request_id, card=code[:8]) from None
        if card in cards:
            raise ProtocolError("card_twice", request_id, card=card.code)
        cards.append(card)
    return tuple(cards)
