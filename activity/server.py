"""The Activity's web server: the client's files, the token exchange, seat avatars, and one WebSocket per client.

Started by ``bot.py`` when ``ACTIVITY_PORT`` is set (see docs/activity.md).
A WebSocket's first frame is ``hello`` with the access token the client got
from ``POST /api/token`` and the activity instance id from Discord's launch;
the user comes from ``GET /users/@me`` with that token and the channel from the
activity instance (with the bot's token), and the user must be one of the
instance's users.  Every later frame is an action that calls the same
:class:`~runtime.service.TableService` method as the matching button, so the
table message, the DMs and the other clients follow as for a click.

``GET /api/avatar/{user_id}`` serves the avatar of a player at a table a client
here watches (:mod:`activity.avatars`), or asks the owners this process carries
clients to (their pages load from here), and 404 for anyone else.

A ``replay`` frame is answered with one step of a finished game of the
client's own table (:mod:`activity.replay`), never of a game still being played.

Bad input is answered with an ``error`` frame in the player's language
(``activity.error.*`` or the bot's own refusals) and changes nothing: frames
that are not JSON objects, too big, binary, unknown actions, cards that are
not cards; refusals of the rules (out of turn, cards not held) come from the
engine as for a button.  Frames beyond the per-connection budget are served
late, paced at its rate (the socket is not read meanwhile), so a quick player
loses nothing; a client that stays over the budget frame after frame is closed.

In a cluster, a client whose table another process owns is carried to that
process by :mod:`activity.relay` once Discord has said who and where it is.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from aiohttp import WSMsgType, web

from activity.avatars import Avatars
from activity.discord_api import DiscordApi, DiscordRefused, DiscordUnreachable
from activity.hub import CLOSE_AUTH, CLOSE_FLOOD, Connection, FrameBudget, Hub, goodbye
from activity.protocol import LEVELS, Action, ProtocolError, parse_action, parse_hello
from activity.relay import RELAYED_HEADER, Relay
from activity.replay import replay_of, replay_view
from activity.settings import ActivitySettings
from cogs.delivery.answers import EXPECTED, explain
from i18n import catalogue, language_of, t
from runtime.steps import GameJustEnded
from tienlen import IllegalPlayError
from tienlen.table import Phase, TableError

if TYPE_CHECKING:
    from runtime.service import TableService

log = logging.getLogger(__name__)

__all__ = ["ActivityServer", "CLIENT_DIR", "client_strings", "level_names"]

CLIENT_DIR = Path(__file__).parent / "client"
MAX_TRANSPORT_FRAME = 64 * 1024
"""Frames above this are closed by aiohttp (1009) before they are read; up to it, refused with a reason."""
HELLO_SECONDS = 10.0
FLOOD_CLOSE_AFTER = 100
"""Frames in a row that each had to wait for the budget, after which a flooding client is closed
(10 s of sending as fast as it is served, at 10 frames a second: no person taps like that)."""
_CLIENT_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
                 ".png": "image/png", ".woff2": "font/woff2"}


def client_strings(lang: str) -> dict[str, str]:
    """What the client writes itself: the ``activity.ui`` part of the catalogue, in ``lang``."""
    prefix = "activity.ui."
    return {key[len(prefix):]: str(text) for key, text in catalogue(lang).items() if key.startswith(prefix)}


def level_names(lang: str) -> list[list[str]]:
    """The AI levels Add AI offers, ``[code, name]`` in ``lang`` (the bot's own words for them)."""
    return [[level, t(lang, f"level.{level}")] for level in LEVELS]


@dataclass(frozen=True)
class _Elsewhere:
    """A signed-in client whose table another cluster process owns."""

    hello: str
    guild_id: int
    lang: str


class ActivityServer:
    def __init__(self, service: "TableService", settings: ActivitySettings, *, api: DiscordApi,
                 queue_size: int = 64, send_timeout: float = 5.0, frame_rate: float = 10.0, frame_burst: int = 20,
                 clock: Callable[[], float] = time.time,
                 owner_of: "Callable[[int], Awaitable[str | None]] | None" = None) -> None:
        self.service = service
        self.settings = settings
        self.api = api
        self.hub = Hub(service)
        self.avatars = Avatars(api)
        self.queue_size, self.send_timeout = queue_size, send_timeout
        self.frame_rate, self.frame_burst = frame_rate, frame_burst
        self.clock = clock
        self.hello_seconds = HELLO_SECONDS
        # In a cluster: where the owner of another slot's guild serves the Activity (activity/relay.py).
        self.relay = Relay(owner_of, max_frame=MAX_TRANSPORT_FRAME, send_timeout=send_timeout) if owner_of else None
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    # ------------------------------------------------------------- lifecycle
    def app(self) -> web.Application:
        app = web.Application(client_max_size=16 * 1024)
        app.router.add_get("/", self.index)
        app.router.add_get("/ws", self.websocket)
        app.router.add_post("/api/token", self.token)
        app.router.add_get("/api/avatar/{user_id}", self.avatar)
        app.router.add_get("/client/{name}", self.client_file)
        return app

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app(), access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.settings.host, self.settings.port or 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        log.info("activity served on %s:%s", self.settings.host, self.port)

    async def close(self) -> None:
        for connection in list(self.hub.by_user.values()):
            connection.say_goodbye(1001, "restarting", t(connection.lang, "activity.error.restarting"))
        await asyncio.sleep(0)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.relay is not None:
            await self.relay.close()
        await self.api.close()

    # ------------------------------------------------------------- files
    async def index(self, request: web.Request) -> web.StreamResponse:
        html = (CLIENT_DIR / "index.html").read_text(encoding="utf-8")
        attributes = f'data-client-id="{int(self.api.application_id or 0)}" '  # the SDK needs the application's id
        if self.settings.test_hooks:  # only a test server lets the client skip Discord's handshake
            attributes += 'data-test-hooks="1" '
        html = html.replace("<html ", "<html " + attributes, 1)
        return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-cache"})

    async def client_file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = CLIENT_DIR / name
        if "/" in name or name.startswith(".") or path.suffix not in _CLIENT_TYPES or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Content-Type": _CLIENT_TYPES[path.suffix],
                                               "Cache-Control": "no-cache"})

    # ------------------------------------------------------------- OAuth2
    async def token(self, request: web.Request) -> web.Response:
        """``{"code"}`` → ``{"access_token"}``, exchanged at Discord's OAuth2 endpoint."""
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            body = None
        code = body.get("code") if isinstance(body, dict) else None
        if not isinstance(code, str) or not 0 < len(code) <= 256 or not code.isprintable():
            return web.json_response({"error": "bad_code"}, status=400)
        try:
            access_token = await self.api.exchange(code)
        except DiscordRefused:
            return web.json_response({"error": "code_refused"}, status=401)
        except DiscordUnreachable:
            return web.json_response({"error": "discord_down"}, status=502)
        return web.json_response({"access_token": access_token})

    # ------------------------------------------------------------- avatars
    async def avatar(self, request: web.Request) -> web.StreamResponse:
        """A seated (or connected) player's avatar, a 64 px PNG from Discord's CDN through this server, which is
        all the page may load.  Only users at a table that a client of this process watches, or that an owner
        this process carries clients to vouches for: anyone else is 404, so the route is no open proxy to Discord."""
        text = request.match_info["user_id"]
        if not text.isdigit() or len(text) > 20:
            return web.json_response({"error": "unknown_user"}, status=404)
        if not self._shown_here(int(text)):
            return await self._avatar_elsewhere(request, int(text))
        try:
            picture = await self.avatars.picture(int(text))
        except DiscordUnreachable:
            return web.json_response({"error": "discord_down"}, status=502)
        if picture is None:
            return web.json_response({"error": "unknown_user"}, status=404)
        headers = {"Cache-Control": "private, max-age=3600", "ETag": picture.etag}
        if request.headers.get("If-None-Match") == picture.etag:
            return web.Response(status=304, headers=headers)
        return web.Response(body=picture.data, content_type="image/png", headers=headers)

    async def _avatar_elsewhere(self, request: web.Request, user_id: int) -> web.StreamResponse:
        """The page of a client carried to another process loads its avatars here: asked of the owners."""
        answer = None
        if self.relay is not None and RELAYED_HEADER not in request.headers:
            answer = await self.relay.avatar(user_id, request.headers.get("If-None-Match"))
        if answer is None:
            return web.json_response({"error": "unknown_user"}, status=404)
        status, body, headers = answer
        return web.Response(status=status, body=body if status != 304 else None, headers=headers)

    def _shown_here(self, user_id: int) -> bool:
        """Is ``user_id`` connected, or seated at a table a client of this process watches?"""
        if user_id in self.hub.by_user:
            return True
        for channel in list(self.hub.by_channel):
            table = self.service.table(channel)
            if table is not None and any(seat.user_id == user_id for seat in (*table.seats, *table.game_seats)):
                return True
        return False

    # ------------------------------------------------------------- the socket
    async def websocket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=MAX_TRANSPORT_FRAME, heartbeat=30.0)
        await ws.prepare(request)
        connection = await self._authenticate(ws, request)
        if isinstance(connection, _Elsewhere):
            assert self.relay is not None
            await self.relay.carry(ws, request.transport, connection.hello, connection.guild_id, connection.lang)
            return ws
        if connection is None:
            return ws
        self.hub.attach(connection)
        try:
            connection.send({"type": "welcome", "user": str(connection.user_id), "name": connection.name,
                             "lang": connection.lang, "channel": str(connection.channel_id),
                             "now": self.clock(), "strings": client_strings(connection.lang),
                             "levels": level_names(connection.lang)})
            self.hub.show(connection)
            await self._serve(ws, connection)
        finally:
            self.hub.detach(connection)
            if not connection.closed:
                connection.say_goodbye(1000, "closed", "")
            await connection.finished()
        return ws

    async def _authenticate(self, ws: web.WebSocketResponse,
                            request: web.Request) -> "Connection | _Elsewhere | None":
        """The first frame, checked with Discord; None when refused (the socket is closed with the reason),
        :class:`_Elsewhere` when another cluster process owns the table (the client is carried there)."""
        lang = "en"
        try:
            message = await ws.receive(timeout=self.hello_seconds)
        except asyncio.TimeoutError:
            return await self._refuse(ws, "hello_timeout", lang)
        if message.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
            return None
        try:
            hello = parse_hello(message.data)
            user, instance = await self._who_and_where(hello)
        except ProtocolError as error:
            return await self._refuse(ws, error.code, lang)
        except DiscordRefused as error:
            # 401 from /users/@me: a forged or expired token; 404 from the instance: not a real launch.
            return await self._refuse(ws, "auth_failed" if error.status == 401 else "bad_instance", lang)
        except DiscordUnreachable:
            return await self._refuse(ws, "discord_down", lang)
        lang = language_of(user.locale)
        if user.id not in instance.users:
            log.info("activity: user %s is not in instance %s", user.id, instance.instance_id)
            return await self._refuse(ws, "not_in_instance", lang)
        if instance.channel_id is None or instance.guild_id is None:
            return await self._refuse(ws, "guild_only", lang)
        if not self.service.owns_guild(instance.guild_id):
            # Another cluster process runs this server's tables; acting here would fork them.  Carried once
            # only: a relayed client that lands here again means a takeover is under way.
            if request.headers.get(RELAYED_HEADER):
                return await self._refuse(ws, "moving", lang)
            if self.relay is None:
                return await self._refuse(ws, "elsewhere", lang)
            return _Elsewhere(message.data, instance.guild_id, lang)
        return Connection(ws, user_id=user.id, name=user.name, locale=user.locale, channel_id=instance.channel_id,
                          guild_id=instance.guild_id, queue_size=self.queue_size, send_timeout=self.send_timeout,
                          transport=request.transport)

    async def _who_and_where(self, hello: Any) -> tuple[Any, Any]:
        """The user (from their token) and the instance (with the bot's token, which shares the bot's global
        rate limit: a recent answer that counts this user serves again)."""
        kept = self.api.kept_instance(hello.instance_id)
        if kept is None:
            return await asyncio.gather(self.api.user(hello.access_token), self.api.instance(hello.instance_id))
        user = await self.api.user(hello.access_token)
        return user, kept if user.id in kept.users else await self.api.instance(hello.instance_id)

    async def _refuse(self, ws: web.WebSocketResponse, code: str, lang: str) -> None:
        await goodbye(ws, code, lang, CLOSE_AUTH)
        return None

    async def _serve(self, ws: web.WebSocketResponse, connection: Connection) -> None:
        budget = FrameBudget(self.frame_rate, self.frame_burst)
        paced = 0
        async for message in ws:
            if connection.closed:
                break
            if message.type == WSMsgType.ERROR:
                break
            wait = budget.take()
            if wait:
                paced += 1
                if paced >= FLOOD_CLOSE_AFTER:
                    connection.say_goodbye(CLOSE_FLOOD, "flood", t(connection.lang, "activity.error.flood"))
                    break
                await asyncio.sleep(wait)
                if connection.closed:
                    break
            else:
                paced = 0
            data = message.data if message.type in (WSMsgType.TEXT, WSMsgType.BINARY) else None
            if data is None:
                continue
            try:
                action = parse_action(data)
            except ProtocolError as error:
                self._error(connection, error.code, error.request_id, **error.params)
                continue
            await self._act(connection, action)

    def _error(self, connection: Connection, code: str, request_id: Any, text: str | None = None,
               **params: Any) -> None:
        if text is None:
            text = t(connection.lang, f"activity.error.{code}", **params)
        connection.send({"type": "error", "id": request_id, "code": code, "text": text})

    # ------------------------------------------------------------- actions
    async def _act(self, connection: Connection, action: Action) -> None:
        if action.type == "ping":
            connection.send({"type": "pong", "id": action.request_id, "now": self.clock()})
            return
        if action.type == "select":
            connection.send(self._selection(connection, action))
            return
        try:
            if action.type == "replay":
                connection.send(await self._replay(connection, action))
                return
            await self._run(connection, action)
        except ProtocolError as error:
            self._error(connection, error.code, action.request_id, **error.params)
            return
        except GameJustEnded:
            self._error(connection, "game_just_ended", action.request_id,
                        text=t(connection.lang, "error.game_just_ended"))
            return
        except Exception as error:
            if not isinstance(error, EXPECTED):
                log.error("activity: unexpected error in a %s", action.type, exc_info=error)
            code = getattr(error, "code", "generic")
            self._error(connection, str(code), action.request_id, text=explain(error, connection.lang))
            return
        connection.send({"type": "ok", "id": action.request_id, "action": action.type})

    async def _run(self, connection: Connection, action: Action) -> None:
        """The same service calls as the buttons (cogs/tienlen_cog.py)."""
        service, channel, user = self.service, connection.channel_id, connection.user_id
        kind = action.type
        await service.note_locale(channel, user, connection.locale)
        if kind in ("play", "chop"):
            cards = action.cards or self._chop_cards(connection)
            await service.play(channel, user, list(cards))
        elif kind == "pass":
            await service.pass_turn(channel, user)
        elif kind == "join":
            await service.join(channel, user, connection.name, connection.locale)
        elif kind == "leave":
            await service.leave(channel, user)
        elif kind == "addbot":
            await service.add_ai(channel, user, action.level)
        elif kind == "removebot":
            await service.remove_ai(channel, user)
        elif kind == "start":
            await service.start_game(channel, user)
        elif kind == "next":
            await service.next_game(channel, user)
        elif kind == "end":
            await service.end(channel, user)
        elif kind == "create":
            snapshot = await service.create_table(channel_id=channel, guild_id=connection.guild_id, user_id=user,
                                                  name=connection.name, locale=connection.locale)
            # /tienlen create posts the table message in its answer; with no interaction to answer, the outbox
            # hands the new table to the Discord layer (which posts it) and to every client, as any change.
            service.outbox.publish(snapshot)
        else:  # parse_action lets through only the actions above
            raise ProtocolError("unknown_action", action=kind)

    async def _replay(self, connection: Connection, action: Action) -> dict[str, Any]:
        """A step of a finished game of this table, as the bot's Replay shows it (refused for a game still
        being played: its hands are secret)."""
        game = await replay_of(self.service.replays, guild_id=connection.guild_id, channel_id=connection.channel_id,
                               game_id=action.game)
        return {**replay_view(game, action.step, connection.lang), "id": action.request_id}

    def _chop_cards(self, connection: Connection) -> tuple:
        """"Chop" without cards: the player's out-of-turn chop, as the DM's "Chop now" offers it."""
        hand = self.hub.hand_of(connection)
        chops = [combo for combo in hand.legal if combo.bomb is not None] if hand is not None else []
        if hand is None or not hand.out_of_turn or not chops:
            raise ProtocolError("no_chop")
        return tuple(chops[0].cards)

    def _selection(self, connection: Connection, action: Action) -> dict[str, Any]:
        """Would these cards be a legal play now?  Asked of a copy of the committed game, so the engine
        answers (with its reason) and nothing changes."""
        answer: dict[str, Any] = {"type": "selection", "id": action.request_id,
                                  "cards": [card.code for card in action.cards]}
        state = self.service.state(connection.channel_id)
        table = state.table if state is not None else None
        seat = table.game_seat_of(connection.user_id) if table is not None and table.game is not None else None
        if table is None or table.phase is not Phase.PLAYING or seat is None:
            return {**answer, "legal": False, "text": t(connection.lang, "error.not_in_game")}
        game = table.game.copy()
        try:
            game.play(seat, list(action.cards))
        except (IllegalPlayError, TableError) as error:
            return {**answer, "legal": False, "text": explain(error, connection.lang)}
        return {**answer, "legal": True, "text": ""}
