"""The fake Discord gateway: websocket sessions speaking gateway v10 JSON.

Frames go out as uncompressed TEXT frames even though discord.py asks for
``compress=zlib-stream``: discord.py only decompresses BINARY frames, so text
works and keeps the fake simple. Supported: HELLO, HEARTBEAT -> HEARTBEAT_ACK,
IDENTIFY -> READY + GUILD_CREATE, RESUME -> replay + RESUMED (or
INVALID_SESSION), REQUEST_GUILD_MEMBERS -> one GUILD_MEMBERS_CHUNK, and
dispatching events (INTERACTION_CREATE, MESSAGE_*) to the sessions that would
receive them on Discord (by shard and intents).

A session outlives its websocket: events dispatched while the bot is
disconnected are buffered and replayed when it RESUMEs, as on Discord. A
normal close (1000/1001) ends the session; an abrupt one leaves it resumable.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Callable, Optional

from aiohttp import WSMsgType, web

from . import payloads
from .world import Guild, World

log = logging.getLogger("fakediscord.gateway")


class Op(IntEnum):
    DISPATCH = 0
    HEARTBEAT = 1
    IDENTIFY = 2
    PRESENCE_UPDATE = 3
    VOICE_STATE_UPDATE = 4
    RESUME = 6
    RECONNECT = 7
    REQUEST_GUILD_MEMBERS = 8
    INVALID_SESSION = 9
    HELLO = 10
    HEARTBEAT_ACK = 11


class Intent(IntEnum):
    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_MESSAGES = 1 << 9
    DIRECT_MESSAGES = 1 << 12


# Limited privileged intents, as an unverified bot with all toggles on has.
APPLICATION_FLAGS = (1 << 13) | (1 << 15) | (1 << 19)
NORMAL_CLOSE_CODES = (1000, 1001)
BUFFER_LIMIT = 5000


def shard_of(guild_id: int, shard_count: int) -> int:
    """Discord's routing formula: the shard that receives a guild's events."""
    return (guild_id >> 22) % shard_count


@dataclass
class GatewayEvent:
    """One frame sent or received, for assertions about gateway traffic."""

    direction: str  # "send" or "recv"
    op: int
    t: Optional[str]
    seq: Optional[int]
    session_id: Optional[str]
    at: float


@dataclass(eq=False)
class Connection:
    """One websocket; frames are queued so sends keep dispatch order."""

    ws: web.WebSocketResponse
    transport: Optional[asyncio.BaseTransport]
    path: str
    query: dict[str, str]
    outbox: asyncio.Queue = field(default_factory=asyncio.Queue)
    session: Optional["Session"] = None
    writer: Optional[asyncio.Task] = None

    def send(self, frame: str) -> None:
        self.outbox.put_nowait(frame)

    async def write_loop(self) -> None:
        while True:
            frame = await self.outbox.get()
            try:
                await self.ws.send_str(frame)
            except (ConnectionError, RuntimeError):
                return  # the socket went away; the reader notices and cleans up

    def abort(self) -> None:
        """Drop the TCP connection without a websocket close frame."""
        if self.transport is not None:
            self.transport.abort()


@dataclass(eq=False)
class Session:
    """A gateway session: sequence numbers and the events buffered for RESUME."""

    id: str
    token: str
    intents: int
    shard: tuple[int, int]
    sharded: bool = False  # whether IDENTIFY named a shard (then READY echoes it)
    seq: int = 0
    buffer: deque = field(default_factory=lambda: deque(maxlen=BUFFER_LIMIT))
    connection: Optional[Connection] = None
    ended: bool = False
    disconnected_at: Optional[float] = None

    def dispatch(self, event: str, data: Any) -> int:
        self.seq += 1
        frame = json.dumps({"op": Op.DISPATCH, "t": event, "s": self.seq, "d": data})
        self.buffer.append((self.seq, frame))
        if self.connection is not None:
            self.connection.send(frame)
        return self.seq

    def handles_guild(self, guild_id: Optional[int]) -> bool:
        shard_id, shard_count = self.shard
        # DMs always go to shard 0.
        return shard_of(guild_id, shard_count) == shard_id if guild_id else shard_id == 0

    def is_resumable(self, now: float, window: float) -> bool:
        if self.ended:
            return False
        return self.connection is not None or (self.disconnected_at is not None and now - self.disconnected_at <= window)


class Gateway:
    def __init__(self, world: World, *, heartbeat_interval_ms: int = 41250, resume_window: float = 60.0) -> None:
        self._world = world
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.resume_window = resume_window
        self.resume_url = ""  # set by the server once it has a port
        self.token_ok: Callable[[str], bool] = lambda token: bool(token)
        self.sessions: dict[str, Session] = {}
        self.connections: set[Connection] = set()
        self.events: list[GatewayEvent] = []  # every frame sent/received, in order
        self._session_change = asyncio.Event()

    # -- websocket handler ----------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        conn = Connection(ws=ws, transport=request.transport, path=request.path, query=dict(request.query))
        conn.writer = asyncio.create_task(conn.write_loop(), name="fakediscord-gateway-writer")
        self.connections.add(conn)
        self._send(conn, Op.HELLO, {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ["fake-discord"]})
        close_code: Optional[int] = None
        try:
            close_code = await self._read_frames(conn)
        finally:
            self._on_disconnect(conn, close_code)
        return ws

    async def _read_frames(self, conn: Connection) -> Optional[int]:
        """Handle frames until the socket ends; returns the client's close code.

        None means the socket died without a close frame (crash, abort, EOF),
        which aiohttp would otherwise report as a normal 1000 close.
        """
        while True:
            msg = await conn.ws.receive()
            if msg.type is WSMsgType.TEXT:
                await self._on_frame(conn, msg.data)
            elif msg.type is WSMsgType.BINARY:
                await conn.ws.close(code=4002, message=b"Decode error: binary frames are not supported")
            elif msg.type is WSMsgType.CLOSE:
                return int(msg.data)
            elif msg.type in (WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                return None

    async def _on_frame(self, conn: Connection, raw: str) -> None:
        try:
            frame = json.loads(raw)
            op, data = Op(frame["op"]), frame.get("d")
        except (ValueError, KeyError, TypeError):
            await conn.ws.close(code=4002, message=b"Decode error")
            return
        self._log("recv", op, None, None, conn)
        if op is Op.HEARTBEAT:
            self._send(conn, Op.HEARTBEAT_ACK, None)
        elif op is Op.IDENTIFY:
            await self._identify(conn, data)
        elif op is Op.RESUME:
            self._resume(conn, data)
        elif conn.session is None:
            await conn.ws.close(code=4003, message=b"Not authenticated")
        elif op is Op.REQUEST_GUILD_MEMBERS:
            self._send_member_chunks(conn.session, data)
        # PRESENCE_UPDATE and VOICE_STATE_UPDATE need no answer.

    async def _identify(self, conn: Connection, data: dict) -> None:
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated")
            return
        if not self.token_ok(data.get("token", "")):
            await conn.ws.close(code=4004, message=b"Authentication failed")
            return
        shard = data.get("shard")
        session = Session(
            id=secrets.token_hex(16), token=data["token"], intents=int(data.get("intents", 0)),
            shard=(int(shard[0]), int(shard[1])) if shard else (0, 1), sharded=bool(shard),
        )
        self.sessions[session.id] = session
        log.debug("IDENTIFY -> new session %s (intents=%s, shard=%s)", session.id, session.intents, session.shard)
        self._attach(session, conn)
        guilds = [g for g in self._world.guilds.values() if session.handles_guild(g.id)]
        self._dispatch_to(session, "READY", self._ready_payload(session, guilds))
        for guild in guilds:
            self._dispatch_to(session, "GUILD_CREATE", self.guild_payload(guild, session))

    def _resume(self, conn: Connection, data: dict) -> None:
        session = self.sessions.get(data.get("session_id", ""))
        seq = data.get("seq") or 0
        usable = (
            session is not None and session.token == data.get("token")
            and session.is_resumable(time.monotonic(), self.resume_window)
            and (not session.buffer or session.buffer[0][0] <= seq + 1)
        )
        if not usable:
            log.debug("RESUME of %s refused: INVALID_SESSION", data.get("session_id"))
            self._send(conn, Op.INVALID_SESSION, False)
            return
        assert session is not None
        if session.connection is not None and session.connection is not conn:
            session.connection.abort()  # Discord drops the old socket of a resumed session
        self._attach(session, conn)
        for frame_seq, frame in session.buffer:
            if frame_seq > seq:
                conn.send(frame)
        self._dispatch_to(session, "RESUMED", {"_trace": ["fake-discord"]})

    def _attach(self, session: Session, conn: Connection) -> None:
        session.connection, session.disconnected_at = conn, None
        conn.session = session
        self._session_changed()

    def _on_disconnect(self, conn: Connection, close_code: Optional[int]) -> None:
        self.connections.discard(conn)
        if conn.writer is not None:
            conn.writer.cancel()
        session = conn.session
        log.debug("gateway socket closed (code %s, session %s)", close_code, session.id if session else None)
        if session is not None and session.connection is conn:
            session.connection = None
            session.disconnected_at = time.monotonic()
            session.ended = close_code in NORMAL_CLOSE_CODES
        self._session_changed()

    def guild_payload(self, guild: Guild, session: Session) -> dict:
        # Member lists are only sent to sessions with the GUILD_MEMBERS intent.
        everyone = bool(session.intents & Intent.GUILD_MEMBERS)
        return payloads.guild_create(guild, bot=None if everyone else self._world.bot_user)

    def _ready_payload(self, session: Session, guilds: list[Guild]) -> dict:
        data = {
            "v": 10,
            "user": payloads.client_user(self._world.bot_user),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_url,
            "application": {"id": str(self._world.application_id), "flags": APPLICATION_FLAGS},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "_trace": ["fake-discord"],
        }
        if session.sharded:
            data["shard"] = list(session.shard)
        return data

    def _send_member_chunks(self, session: Session, data: dict) -> None:
        guild_ids = data.get("guild_id")
        for guild_id in guild_ids if isinstance(guild_ids, list) else [guild_ids]:
            guild = self._world.guilds.get(int(guild_id))
            if guild is None:
                continue
            wanted = {int(u) for u in data.get("user_ids") or []}
            members = [m for m in guild.members.values() if not wanted or m.user.id in wanted]
            chunk = {"guild_id": str(guild.id), "members": [payloads.member(m) for m in members],
                     "chunk_index": 0, "chunk_count": 1, "not_found": [], "nonce": data.get("nonce")}
            self._dispatch_to(session, "GUILD_MEMBERS_CHUNK", chunk)

    def _send(self, conn: Connection, op: Op, data: Any) -> None:
        conn.send(json.dumps({"op": op, "d": data, "s": None, "t": None}))
        self._log("send", op, None, None, conn)

    def _log(self, direction: str, op: int, t: Optional[str], seq: Optional[int], conn: Connection) -> None:
        session_id = conn.session.id if conn.session else None
        self.events.append(GatewayEvent(direction, int(op), t, seq, session_id, time.monotonic()))

    def _session_changed(self) -> None:
        self._session_change.set()
        self._session_change = asyncio.Event()

    # -- dispatching ----------------------------------------------------

    def receivers(self, guild_id: Optional[int], intent: Optional[int] = None, *, connected_only: bool = False) -> list[Session]:
        now = time.monotonic()
        return [
            s for s in self.sessions.values()
            if s.is_resumable(now, self.resume_window) and s.handles_guild(guild_id)
            and (intent is None or s.intents & intent)
            and (s.connection is not None or not connected_only)
        ]

    def dispatch(self, guild_id: Optional[int], event: str, data: Any, *, intent: Optional[int] = None) -> int:
        """Send an event to every session that would get it; returns how many did.

        ``data`` may be a function of the session for per-session payloads.
        """
        sessions = self.receivers(guild_id, intent)
        for session in sessions:
            self._dispatch_to(session, event, data(session) if callable(data) else data)
        return len(sessions)

    def _dispatch_to(self, session: Session, event: str, data: Any) -> None:
        seq = session.dispatch(event, data)
        self.events.append(GatewayEvent("send", Op.DISPATCH, event, seq, session.id, time.monotonic()))

    @property
    def connected_sessions(self) -> list[Session]:
        return [s for s in self.sessions.values() if s.connection is not None]

    async def wait_for_sessions(self, count: int = 1, timeout: float = 10.0) -> list[Session]:
        def enough() -> Optional[list[Session]]:
            sessions = self.connected_sessions
            return sessions if len(sessions) >= count else None
        return await self.wait_for_session(enough, timeout, f"{count} connected session(s)")

    async def wait_for_session(self, found: Callable[[], Any], timeout: float = 10.0, what: str = "a session") -> Any:
        """Wait until ``found()`` is truthy, checking whenever a session (dis)connects."""
        async def changes() -> Any:
            while not (result := found()):
                await self._session_change.wait()
            return result
        try:
            return await asyncio.wait_for(changes(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"gave up waiting for {what} after {timeout} s") from None

    # -- fault injection --------------------------------------------------

    def drop_connections(self) -> None:
        """Abort every websocket (no close frame); sessions stay resumable."""
        for conn in list(self.connections):
            conn.abort()

    def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the bot should reconnect and RESUME."""
        for conn in list(self.connections):
            self._send(conn, Op.RECONNECT, None)

    def invalidate_sessions(self) -> None:
        """Send op 9 INVALID_SESSION (not resumable): the bot must IDENTIFY again."""
        for conn in list(self.connections):
            if conn.session is not None:
                conn.session.ended = True
            self._send(conn, Op.INVALID_SESSION, False)

    async def close(self) -> None:
        for conn in list(self.connections):
            conn.abort()
            if conn.writer is not None:
                conn.writer.cancel()
