"""``FakeDiscord``: the server plus the API tests use to act as Discord users.

Start it (``await fake.start()`` or ``async with FakeDiscord() as fake``), point
discord.py at it (``fake.patch_discord()`` in-process, ``fake.env()`` for a
subprocess), then drive the bot like users would: ``slash``, ``autocomplete``,
``click``, ``select``, ``submit_modal``. Each helper builds a real
INTERACTION_CREATE from the registered commands / stored messages, dispatches
it over the gateway and waits for the bot's first callback, failing with
``InteractionTimeout`` after Discord's 3 seconds. Queries (``visible_to``,
``messages``, ``latest_message`` ...) show what the bot produced.

REST answers follow Discord's rate limits (``fake.rate_limits``, see
``ratelimits.py``); ``fake.rate_limited`` counts the 429s by route. For
sharded and multi-process bots, ``recommended_shards`` is what
``GET /gateway/bot`` answers, ``add_guild_on_shard`` places a guild on a shard,
and ``wait_for_shard``/``connected_shards``/``sessions_for`` tell who is connected.
Messages created inside ``with fake.backdated(minutes=61):`` are that old (by
their snowflake); their edits meet Discord's 30046 limit (``fake.edit_limit``,
refusals in ``fake.edit_limit_refusals``).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, Callable, ContextManager, Iterable, Optional, Sequence

from aiohttp import web

from . import payloads
from .builders import check_select_values, interaction_payload, modal_answers, resolve_users
from .changes import ChangeFeed
from .activities import Activities
from .commands import CommandStore
from .editlimit import EditRefusal, OldMessageEdits
from .errors import ClientRefused, InteractionTimeout
from .gateway import Gateway, Intent, Session, shard_of
from .interactions import InteractionRegistry, InteractionResult, InteractionType, SentInteraction
from .messaging import BUTTON, SELECT_TYPES, STRING_SELECT
from .ratelimits import RateLimits
from .redirect import ENV_API_BASE, ENV_GATEWAY_URL, redirect_discord, restore_discord
from .rest import RecordedRequest, RestApi
from .world import Channel, Guild, Member, Message, Perm, User, World

DEFAULT_USERS = ("alice", "bob", "carol", "dave")
LINK_BUTTON_STYLE = 5
USER_SELECT = 5


class FakeDiscord:
    """A fake Discord API + gateway on 127.0.0.1 with a world tests can inspect.

    By default the world holds one guild (``fake.guild``) with one text
    channel (``fake.channel``) and four users (``fake.users``: alice, bob,
    carol, dave). ``token=None`` accepts any bot token.
    """

    def __init__(self, *, default_world: bool = True, response_deadline: float = 3.0,
                 token: Optional[str] = None, heartbeat_interval_ms: int = 41250,
                 rate_limits: "bool | RateLimits" = True, recommended_shards: int = 1) -> None:
        self.world = World()
        self.feed = ChangeFeed()
        self.commands = CommandStore(self.world)
        self.activities = Activities(self)  # OAuth2 codes and tokens, activity instances (activities.py)
        self.interactions = InteractionRegistry(self.world, self.feed, self._announce)
        # LAUNCH_ACTIVITY answers start an Activity in the interaction's channel, with its user in it.
        self.interactions.launch_activity = lambda channel, user: self.activities.launch(channel, [user])
        self.gateway = Gateway(self.world, heartbeat_interval_ms=heartbeat_interval_ms)
        self.gateway.token_ok = self.token_ok
        self.response_deadline = response_deadline
        self.token = token
        # Discord's REST limits (see ratelimits.py); ``rate_limits.enabled = False`` turns them off.
        self.rate_limits = rate_limits if isinstance(rate_limits, RateLimits) else RateLimits(enabled=rate_limits)
        # 30046 on edits of hour-old messages (see editlimit.py); shares the rate limits' clock and time scale.
        self.edit_limit = OldMessageEdits(self.rate_limits)
        self.interactions.edit_limit = self.edit_limit
        # 429s the fake answered, by "METHOD /route/{template}" (as RecordedRequest.key).
        self.rate_limited: Counter[str] = Counter()
        # What GET /gateway/bot recommends (an AutoShardedBot without shard_count uses it).
        self.recommended_shards = recommended_shards
        # The fixture fails the test at teardown if the bot hit unmodelled routes.
        self.fail_on_gaps = True
        self.requests: list[RecordedRequest] = []
        self.unknown_requests: list[str] = []
        self.errors: list[str] = []
        self.users: list[User] = []
        self._subscribers: list[asyncio.Queue] = []
        self._runner: Optional[web.AppRunner] = None
        self._saved_patch: Optional[tuple[Any, Any]] = None
        self.port = 0
        self.guild: Optional[Guild] = None
        self.channel: Optional[Channel] = None
        if default_world:
            self.guild = self.add_guild("Test Guild")
            self.channel = self.add_channel("general")
            for name in DEFAULT_USERS:
                self.add_user(name)

    # -- lifecycle ------------------------------------------------------

    async def start(self) -> "FakeDiscord":
        rest = RestApi(self)
        app = web.Application(middlewares=[rest.middleware], client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway/resume", self.gateway.handle)
        app.add_routes(rest.routes())
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        self.gateway.resume_url = f"ws://127.0.0.1:{self.port}/gateway/resume"
        self.commands.api_base = self.interactions.api_base = self.api_base
        return self

    async def stop(self) -> None:
        self.unpatch_discord()
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> "FakeDiscord":
        return await self.start()

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.stop()

    @property
    def api_base(self) -> str:
        """Value for ``discord.http.Route.BASE``."""
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        """Value for ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    def env(self) -> dict[str, str]:
        """Environment variables for a bot in a subprocess (see ``launch.py``)."""
        return {ENV_API_BASE: self.api_base, ENV_GATEWAY_URL: self.gateway_url}

    def patch_discord(self) -> Callable[[], None]:
        """Point discord.py (this process) at the fake; returns the undo function."""
        previous = redirect_discord(self.api_base, self.gateway_url)
        if self._saved_patch is None:
            self._saved_patch = previous
        return self.unpatch_discord

    def unpatch_discord(self) -> None:
        if self._saved_patch is not None:
            restore_discord(self._saved_patch)
            self._saved_patch = None

    def token_ok(self, token: str) -> bool:
        return bool(token) if self.token is None else token == self.token

    def check(self) -> None:
        """Fail if the bot hit routes the fake does not model, or the fake broke."""
        problems = [f"unmodelled route: {r}" for r in self.unknown_requests] + [f"fake error: {e}" for e in self.errors]
        if problems:
            raise AssertionError("fake discord problems:\n  " + "\n  ".join(problems))

    # -- world building ---------------------------------------------------

    def add_user(self, name: str, *, locale: str = "en-US", dms_open: bool = True, manage_guild: bool = False,
                 permissions: int = 0, guild: Optional[Guild] = None) -> User:
        """A new user, made a member of ``guild`` (default: the default guild)."""
        user = self.world.add_user(name, locale=locale, dms_open=dms_open)
        self.users.append(user)
        target = guild or self.guild
        if target is not None:
            self.add_member(user, target, manage_guild=manage_guild, permissions=permissions)
        return user

    def add_member(self, user: User, guild: Guild, *, manage_guild: bool = False, permissions: int = 0) -> Member:
        extra = int(permissions) | (Perm.MANAGE_GUILD if manage_guild else 0)
        roles = [self.world.add_role(guild, f"{user.name}-role", extra)] if extra else []
        member = self.world.add_member(guild, user, roles=roles)
        self.gateway.dispatch(guild.id, "GUILD_MEMBER_ADD", {**payloads.member(member), "guild_id": str(guild.id)},
                              intent=Intent.GUILD_MEMBERS)
        return member

    def add_guild(self, name: str = "Test Guild", *, preferred_locale: str = "en-US") -> Guild:
        guild = self.world.add_guild(name, preferred_locale=preferred_locale)
        self.gateway.dispatch(guild.id, "GUILD_CREATE", lambda session: self.gateway.guild_payload(guild, session),
                              intent=Intent.GUILDS)
        return guild

    def add_guild_on_shard(self, shard_id: int, shard_count: int, name: Optional[str] = None, *,
                           channel: str = "general", members: Iterable[User] = (),
                           preferred_locale: str = "en-US") -> Guild:
        """A guild whose events Discord sends to shard ``shard_id`` of ``shard_count``.

        It has one text channel (``guild.channels[0]``) and ``members`` (e.g.
        ``fake.users``) as members.
        """
        guild_id = self.world.ids.next_on_shard(shard_id, shard_count)
        guild = self.world.add_guild(name or f"Guild on shard {shard_id}/{shard_count}",
                                     preferred_locale=preferred_locale, guild_id=guild_id)
        self.world.add_channel(guild, channel)
        for user in members:
            self.world.add_member(guild, user)
        # Announced once complete, so GUILD_CREATE already lists the channel and members.
        self.gateway.dispatch(guild.id, "GUILD_CREATE", lambda session: self.gateway.guild_payload(guild, session),
                              intent=Intent.GUILDS)
        return guild

    def add_channel(self, name: str = "general", *, guild: Optional[Guild] = None) -> Channel:
        target = guild or self.guild
        if target is None:
            raise ValueError("add_channel needs a guild (there is no default guild)")
        channel = self.world.add_channel(target, name)
        self.gateway.dispatch(target.id, "CHANNEL_CREATE", payloads.channel(channel), intent=Intent.GUILDS)
        return channel

    def user(self, name: str) -> User:
        return self.world.user_named(name)

    @property
    def bot_user(self) -> User:
        return self.world.bot_user

    @property
    def application_id(self) -> int:
        return self.world.application_id

    # -- message age and Components V2 quirks --------------------------------

    def backdated(self, *, minutes: float = 0, seconds: float = 0) -> ContextManager[None]:
        """``with fake.backdated(minutes=59):`` messages created inside get snowflakes that old."""
        return self.world.backdated(minutes=minutes, seconds=seconds)

    def backdate_next_messages(self, *, minutes: float = 0, seconds: float = 0) -> None:
        """Backdate every message created from now on, until ``stop_backdating()``."""
        self.world.backdate_next_messages(minutes=minutes, seconds=seconds)

    def stop_backdating(self) -> None:
        self.world.stop_backdating()

    def age_message(self, message: "Message | int", *, minutes: float = 0, seconds: float = 0) -> Message:
        """Make a message older for the fake only (its id, hence the bot's view, is unchanged)."""
        return self.world.age_message(message, minutes=minutes, seconds=seconds)

    @property
    def edit_limit_refusals(self) -> list[EditRefusal]:
        """Every edit refused with 30046, oldest first."""
        return self.edit_limit.refusals

    @property
    def webhook_media_quirk(self) -> bool:
        """True: webhook edits bringing a new upload into a gallery/thumbnail get 400 (discord-api-docs #7529)."""
        return self.interactions.webhook_media_quirk

    @webhook_media_quirk.setter
    def webhook_media_quirk(self, value: bool) -> None:
        self.interactions.webhook_media_quirk = value

    # -- acting as users ---------------------------------------------------

    async def slash(self, user: User, command: str, *, channel: Optional[Channel] = None, dm: bool = False,
                    options: Optional[dict[str, Any]] = None, timeout: Optional[float] = None,
                    force: bool = False, **kwargs: Any) -> InteractionResult:
        """Run ``/command`` ("name [group] sub") as ``user``; kwargs are its options.

        Runs in ``channel`` (default: the default channel) or, with ``dm=True``,
        in the user's DM with the bot. Option values: str/int/float/bool, a User
        (user/mentionable), Channel, Role, or ``(filename, bytes)`` for attachments.
        """
        target = self._interaction_channel(user, channel, dm, force)
        member = target.guild.member(user) if target.guild else None
        data = self.commands.invocation(command, {**(options or {}), **kwargs}, guild=target.guild,
                                        member=member, enforce=not force)
        sent = self._new(InteractionType.APPLICATION_COMMAND, user, target, timeout, command_name=command.split()[0])
        return await self._run(sent, data, timeout)

    async def autocomplete(self, user: User, command: str, option: str, value: str, *,
                           channel: Optional[Channel] = None, dm: bool = False, timeout: Optional[float] = None,
                           **other_options: Any) -> list[dict]:
        """Type ``value`` into ``option`` of ``/command``; returns the bot's choices."""
        target = self._interaction_channel(user, channel, dm, False)
        member = target.guild.member(user) if target.guild else None
        data = self.commands.invocation(command, {**other_options, option: value}, guild=target.guild,
                                        member=member, focused=option)
        sent = self._new(InteractionType.AUTOCOMPLETE, user, target, timeout, command_name=command.split()[0])
        result = await self._run(sent, data, timeout)
        return result.choices or []

    async def click(self, user: User, message: Message, custom_id: str, *, timeout: Optional[float] = None,
                    force: bool = False) -> InteractionResult:
        """Press the button ``custom_id`` on ``message`` as ``user``.

        ``force=True`` skips the client-side checks (visibility, existence,
        disabled) to send a crafted interaction.
        """
        component = self._component(user, message, custom_id, force, kinds={BUTTON})
        if not force and component is not None:
            if component.get("disabled"):
                raise ClientRefused(f"button {custom_id!r} is disabled")
            if component.get("style") == LINK_BUTTON_STYLE:
                raise ClientRefused(f"{custom_id!r} is a link button")
        data = {"custom_id": custom_id, "component_type": BUTTON}
        return await self._component_interaction(user, message, data, timeout)

    async def select(self, user: User, message: Message, custom_id: str, values: Sequence[Any], *,
                     timeout: Optional[float] = None, force: bool = False) -> InteractionResult:
        """Choose ``values`` in the select menu ``custom_id`` on ``message`` as ``user``.

        String selects take option values; user selects take User objects.
        """
        component = self._component(user, message, custom_id, force, kinds=SELECT_TYPES)
        kind = component["type"] if component is not None else STRING_SELECT
        if component is not None and not force:
            check_select_values(component, values)
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind,
                                "values": [str(v.id) if isinstance(v, User) else v for v in values]}
        if kind == USER_SELECT:
            data["resolved"] = resolve_users(message.guild, [v for v in values if isinstance(v, User)])
        return await self._component_interaction(user, message, data, timeout)

    async def submit_modal(self, user: User, shown: InteractionResult, values: dict[str, str], *,
                           timeout: Optional[float] = None) -> InteractionResult:
        """Fill in and submit the modal the bot showed in ``shown`` (text inputs by custom_id)."""
        modal = shown.modal
        if modal is None:
            raise ClientRefused("the bot did not answer that interaction with a modal")
        origin = shown.interaction
        data = {"custom_id": modal["custom_id"], "components": modal_answers(modal.get("components", []), values)}
        sent = self._new(InteractionType.MODAL_SUBMIT, user, origin.channel, timeout, source=origin.source)
        return await self._run(sent, data, timeout)

    # -- queries ------------------------------------------------------------

    def visible_to(self, user: User) -> list[Message]:
        """Messages ``user`` can see: guild channels they are in, their ephemerals, their DMs."""
        return self.world.visible_to(user)

    def messages(self, channel: Optional[Channel] = None, *, include_ephemeral: bool = False) -> list[Message]:
        """Live messages in ``channel`` (default channel), oldest first."""
        target = channel or self.channel
        assert target is not None, "no default channel"
        return self.world.messages_in(target, include_ephemeral=include_ephemeral)

    def dm_messages(self, user: User) -> list[Message]:
        return self.world.dm_messages(user)

    def all_messages(self, *, include_deleted: bool = True) -> list[Message]:
        """Every message ever created (privacy scans: also check ``message.revisions``)."""
        return [m for m in self.world.messages.values() if include_deleted or not m.deleted]

    def public_texts(self) -> list[str]:
        """Every text ever shown publicly: all revisions of non-ephemeral guild messages.

        Includes content, embeds, component labels/custom_ids/options and
        attachment filenames -- for privacy assertions ("no card leaks").
        """
        return [
            text
            for message in self.world.messages.values()
            if message.ephemeral_to is None and not message.is_dm
            for text in message.revision_texts()
        ]

    def find_messages(self, user: Optional[User] = None, *, prefix: Optional[str] = None,
                      channel: Optional[Channel] = None, where: Optional[Callable[[Message], bool]] = None) -> list[Message]:
        """Live messages (visible to ``user`` if given) filtered by component custom_id prefix, channel, predicate."""
        pool = self.visible_to(user) if user is not None else self.all_messages(include_deleted=False)
        return [
            m for m in pool
            if (prefix is None or m.has_component_prefix(prefix))
            and (channel is None or m.channel is channel)
            and (where is None or where(m))
        ]

    def latest_message(self, user: Optional[User] = None, **filters: Any) -> Optional[Message]:
        """The newest message matching ``find_messages`` filters, or None."""
        found = self.find_messages(user, **filters)
        return found[-1] if found else None

    def latest_with_component(self, user: Optional[User], prefix: str) -> Optional[Message]:
        return self.latest_message(user, prefix=prefix)

    # -- waiting -------------------------------------------------------------

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 5.0, what: Optional[str] = None) -> Any:
        """Wait until ``predicate()`` (sync or async) is truthy; returns its value."""
        return await self.feed.wait_until(predicate, timeout, what)

    async def wait_for_message(self, user: Optional[User] = None, timeout: float = 5.0, **filters: Any) -> Message:
        """Wait for a message matching ``latest_message`` filters."""
        return await self.wait_for(lambda: self.latest_message(user, **filters), timeout, f"a message matching {filters}")

    async def wait_for_request(self, method: Optional[str] = None, route: Optional[str] = None, *,
                               since: int = 0, timeout: float = 5.0) -> RecordedRequest:
        """Wait for a REST request (by method and route template) made after index ``since``."""
        def match() -> Optional[RecordedRequest]:
            return next((r for r in self.requests[since:]
                         if (method is None or r.method == method) and (route is None or r.route == route)), None)
        return await self.wait_for(match, timeout, f"request {method or '*'} {route or '*'}")

    async def wait_for_bot(self, count: int = 1, timeout: float = 10.0) -> None:
        """Wait until ``count`` gateway sessions are connected."""
        await self.gateway.wait_for_sessions(count, timeout)

    async def wait_for_shard(self, shard_id: int, shard_count: Optional[int] = None, *,
                             timeout: float = 10.0, new: bool = False) -> Session:
        """Wait until a session for ``shard_id`` (of ``shard_count``, if given) is connected.

        ``new=True`` ignores sessions connected before the call: use it to wait
        for a replacement process to IDENTIFY while an old session is still up.
        """
        known = {s.id for s in self.gateway.connected_sessions} if new else set()

        def connected() -> Optional[Session]:
            return next((s for s in self.gateway.connected_sessions
                         if s.shard[0] == shard_id and (shard_count is None or s.shard[1] == shard_count)
                         and s.id not in known), None)
        what = f"shard {shard_id}" + (f" of {shard_count}" if shard_count else "")
        return await self.gateway.wait_for_session(connected, timeout, what)

    # -- shards ----------------------------------------------------------------

    @property
    def connected_shards(self) -> list[tuple[int, int]]:
        """``(shard_id, shard_count)`` of every connected gateway session, sorted."""
        return sorted(s.shard for s in self.gateway.connected_sessions)

    def sessions_for(self, guild: Optional[Guild] = None, *, connected: bool = True) -> list[Session]:
        """The sessions that receive ``guild``'s events (DMs with ``guild=None``).

        With ``connected=False`` this includes disconnected sessions that are
        still resumable (their events are buffered for a RESUME).
        """
        return self.gateway.receivers(guild.id if guild else None, connected_only=connected)

    @staticmethod
    def shard_of(guild: "Guild | int", shard_count: int) -> int:
        """The shard Discord sends a guild's events to: ``(guild_id >> 22) % shard_count``."""
        return shard_of(guild if isinstance(guild, int) else guild.id, shard_count)

    # -- rate limits -------------------------------------------------------------

    def rate_limited_requests(self, since: int = 0, *, scope: Optional[str] = None) -> list[RecordedRequest]:
        """Requests answered 429 since a mark, optionally only of one scope ("user", "global")."""
        return [r for r in self.requests[since:] if r.rate_limited and (scope is None or r.rate_limited == scope)]

    def subscribe(self) -> asyncio.Queue:
        """A queue receiving every RecordedRequest from now on."""
        queue: asyncio.Queue = asyncio.Queue()
        self._subscribers.append(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue) -> None:
        self._subscribers.remove(queue)

    # -- request accounting ----------------------------------------------------

    def mark(self) -> int:
        """An index into ``requests``; pass it to ``requests_since``/``route_counts``."""
        return len(self.requests)

    def requests_since(self, mark: int) -> list[RecordedRequest]:
        return self.requests[mark:]

    def route_counts(self, since: int = 0) -> Counter:
        """Requests per "METHOD /route/{template}" since a mark."""
        return Counter(r.key for r in self.requests[since:])

    # -- fault injection ---------------------------------------------------------

    def drop_gateway(self) -> None:
        """Abort every gateway socket without a close frame (the bot should RESUME)."""
        self.gateway.drop_connections()

    def request_reconnect(self) -> None:
        self.gateway.request_reconnect()

    def invalidate_sessions(self) -> None:
        self.gateway.invalidate_sessions()

    # -- internals ------------------------------------------------------------

    def message_json(self, message: Message) -> dict:
        return payloads.message(message, self.api_base)

    def _record(self, request: RecordedRequest) -> None:
        self.requests.append(request)
        if request.rate_limited:
            self.rate_limited[request.key] += 1
        for queue in self._subscribers:
            queue.put_nowait(request)
        self.feed.notify()

    def _announce(self, event: str, message: Message) -> None:
        """Send MESSAGE_CREATE/UPDATE/DELETE for a non-ephemeral message, as Discord does."""
        if message.ephemeral_to is not None:
            return
        guild = message.guild
        if event == "MESSAGE_DELETE":
            data: dict[str, Any] = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if guild is not None:
                data["guild_id"] = str(guild.id)
        else:
            data = payloads.message(message, self.api_base, with_member=True)
        intent = Intent.GUILD_MESSAGES if guild is not None else Intent.DIRECT_MESSAGES
        self.gateway.dispatch(guild.id if guild else None, event, data, intent=intent)

    def _interaction_channel(self, user: User, channel: Optional[Channel], dm: bool, force: bool) -> Channel:
        if dm:
            return self.world.dm_channel(user)
        target = channel or self.channel
        if target is None:
            raise ValueError("no channel given and the fake has no default channel")
        if not force and target.guild is not None and target.guild.member(user) is None:
            raise ClientRefused(f"{user.name} is not a member of {target.guild.name}")
        return target

    def _component(self, user: User, message: Message, custom_id: str, force: bool, *, kinds: Iterable[int]) -> Optional[dict]:
        component = message.component(custom_id)
        if force:
            return component
        if not self.world.can_see(user, message):
            raise ClientRefused(f"{user.name} cannot see {message!r}")
        if component is None or component.get("type") not in set(kinds):
            raise ClientRefused(f"{message!r} has no such component {custom_id!r}; it has {message.custom_ids()}")
        return component

    async def _component_interaction(self, user: User, message: Message, data: dict,
                                     timeout: Optional[float]) -> InteractionResult:
        sent = self._new(InteractionType.MESSAGE_COMPONENT, user, message.channel, timeout, source=message)
        return await self._run(sent, data, timeout)

    def _new(self, kind: InteractionType, user: User, channel: Channel, timeout: Optional[float], *,
             source: Optional[Message] = None, command_name: Optional[str] = None) -> SentInteraction:
        return self.interactions.new(
            type=kind, user=user, channel=channel, guild=channel.guild, source=source,
            command_name=command_name, deadline=timeout if timeout is not None else self.response_deadline,
        )

    async def _run(self, sent: SentInteraction, data: dict, timeout: Optional[float]) -> InteractionResult:
        sent.payload = interaction_payload(self.world, sent, data, self.api_base)
        guild_id = sent.guild.id if sent.guild else None
        if not self.gateway.receivers(guild_id, connected_only=True):
            raise AssertionError("no bot is connected to the fake gateway (start one with run_bot/start_bot)")
        self.gateway.dispatch(guild_id, "INTERACTION_CREATE", sent.payload)
        sent.dispatched_at = asyncio.get_running_loop().time()
        limit = timeout if timeout is not None else self.response_deadline
        try:
            await asyncio.wait_for(asyncio.shield(sent.first_response), limit)
        except asyncio.TimeoutError:
            sent.timed_out = True
            what = sent.command_name or sent.payload["data"].get("custom_id", "interaction")
            rejected = f"; the fake rejected its callback(s): {sent.rejected}" if sent.rejected else ""
            raise InteractionTimeout(
                f"the bot sent no response to {sent.user.name}'s {sent.type.name} ({what!r}) within {limit} s{rejected}"
            ) from None
        return self.interactions.result(sent)
