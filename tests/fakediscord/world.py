"""The fake Discord's in-memory world: users, guilds, channels, roles, messages.

Everything here is plain Python state with no I/O. The REST and gateway layers
read and mutate it; tests query it (``visible_to``, ``messages`` ...) to see what
the bot produced. Messages keep every revision so privacy tests can inspect all
content that was ever shown, not only the final state.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

DISCORD_EPOCH_MS = 1420070400000


class Perm(enum.IntFlag):
    """The Discord permission bits the fake needs to know about."""

    CREATE_INSTANT_INVITE = 1 << 0
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    USE_EXTERNAL_EMOJIS = 1 << 18
    CONNECT = 1 << 20
    SPEAK = 1 << 21
    CHANGE_NICKNAME = 1 << 26
    USE_APPLICATION_COMMANDS = 1 << 31
    SEND_MESSAGES_IN_THREADS = 1 << 38


ALL_PERMISSIONS = (1 << 53) - 1

# What a fresh guild grants @everyone (close to Discord's default role).
EVERYONE_PERMISSIONS = (
    Perm.CREATE_INSTANT_INVITE | Perm.ADD_REACTIONS | Perm.VIEW_CHANNEL | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS | Perm.ATTACH_FILES | Perm.READ_MESSAGE_HISTORY | Perm.USE_EXTERNAL_EMOJIS
    | Perm.CONNECT | Perm.SPEAK | Perm.CHANGE_NICKNAME | Perm.USE_APPLICATION_COMMANDS
    | Perm.SEND_MESSAGES_IN_THREADS
)

# The bot's managed role: what a typical invite link for a game bot grants.
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | Perm.MANAGE_MESSAGES

EPHEMERAL = 1 << 6
LOADING = 1 << 7

TEXT_CHANNEL = 0
DM_CHANNEL = 1


class Snowflakes:
    """Generates unique, increasing snowflake ids whose timestamp is 'now'."""

    def __init__(self) -> None:
        self._last = 0
        self._past_count = 0

    def next(self) -> int:
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        # max() keeps ids strictly increasing even within one millisecond.
        self._last = max(now_ms << 22, self._last + 1)
        return self._last

    def past(self, ago_ms: int) -> int:
        """A unique id whose timestamp is ``ago_ms`` before now (a backdated message).

        The low 22 bits (worker, process, increment on Discord) count up, so ids
        made in the same past millisecond stay distinct; ``next()`` is unaffected.
        """
        timestamp = int(time.time() * 1000) - DISCORD_EPOCH_MS - ago_ms
        self._past_count = (self._past_count + 1) % (1 << 22)
        return (timestamp << 22) | self._past_count

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next id whose guild events Discord routes to ``shard_id`` of ``shard_count``.

        Discord's formula is ``(guild_id >> 22) % shard_count``: the timestamp part
        decides, so the id is moved at most ``shard_count - 1`` ms ahead.
        """
        if not 0 <= shard_id < shard_count:
            raise ValueError(f"shard {shard_id} does not exist among {shard_count}")
        timestamp = self.next() >> 22
        timestamp += (shard_id - timestamp) % shard_count
        self._last = max(timestamp << 22, self._last)
        return self._last


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def snowflake_time(snowflake: int) -> dt.datetime:
    """The creation time Discord (and discord.py's ``snowflake_time``) reads from an id."""
    return dt.datetime.fromtimestamp(((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000, dt.timezone.utc)


@dataclass(eq=False)
class User:
    """A Discord account. ``dms_open`` and ``locale`` may be changed at any time."""

    id: int
    name: str
    locale: str = "en-US"
    dms_open: bool = True
    bot: bool = False

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __repr__(self) -> str:
        return f"<User {self.name} id={self.id}>"


@dataclass(eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False


@dataclass(eq=False)
class Member:
    """A user's membership in one guild."""

    user: User
    guild: "Guild"
    roles: list[Role] = field(default_factory=list)
    joined_at: dt.datetime = field(default_factory=utcnow)

    @property
    def permissions(self) -> int:
        """Guild-level permissions: @everyone plus every role, admin means all."""
        value = self.guild.everyone_role.permissions
        for role in self.roles:
            value |= role.permissions
        if self.guild.owner is self.user or value & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return value


@dataclass(eq=False)
class Channel:
    """A guild text channel (``guild`` set) or a DM channel (``recipient`` set)."""

    id: int
    name: str
    type: int = TEXT_CHANNEL
    guild: Optional["Guild"] = None
    recipient: Optional[User] = None
    position: int = 0

    @property
    def is_dm(self) -> bool:
        return self.type == DM_CHANNEL

    def __repr__(self) -> str:
        where = f"DM with {self.recipient.name}" if self.recipient else f"#{self.name}"
        return f"<Channel {where} id={self.id}>"


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    preferred_locale: str
    owner: User
    roles: list[Role] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)
    members: dict[int, Member] = field(default_factory=dict)

    @property
    def everyone_role(self) -> Role:
        return self.roles[0]

    def member(self, user: User) -> Optional[Member]:
        return self.members.get(user.id)

    def __repr__(self) -> str:
        return f"<Guild {self.name} id={self.id}>"


@dataclass(eq=False)
class Attachment:
    """A file the bot uploaded; ``data`` holds the exact bytes."""

    id: int
    filename: str
    data: bytes
    content_type: str = "application/octet-stream"
    description: Optional[str] = None

    @property
    def size(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"<Attachment {self.filename} {self.size} bytes>"


@dataclass(eq=False)
class Message:
    """A message as Discord stores it; edits update it in place."""

    id: int
    channel: Channel
    author: User
    content: str = ""
    embeds: list[dict] = field(default_factory=list)
    components: list[dict] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    ephemeral_to: Optional[User] = None
    type: int = 0
    webhook_id: Optional[int] = None
    interaction_metadata: Optional[dict] = None
    created_at: dt.datetime = field(default_factory=utcnow)
    edited_at: Optional[dt.datetime] = None
    edit_times: list[dt.datetime] = field(default_factory=list)
    """When each edit was applied (tests of the one-hour edit limit)."""
    deleted: bool = False
    # Snapshots of every state the message had, oldest first, current last.
    revisions: list[dict] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while a deferred ("thinking...") response has not been filled in."""
        return bool(self.flags & LOADING)

    @property
    def edited(self) -> bool:
        return self.edited_at is not None

    @property
    def guild(self) -> Optional[Guild]:
        return self.channel.guild

    @property
    def is_dm(self) -> bool:
        return self.channel.is_dm

    def walk_components(self) -> Iterator[dict]:
        """Every component dict, depth first (action rows, containers, sections...)."""
        yield from _walk(self.components)

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.walk_components() if "custom_id" in c]

    def component(self, custom_id: str) -> Optional[dict]:
        return next((c for c in self.walk_components() if c.get("custom_id") == custom_id), None)

    def has_component_prefix(self, prefix: str) -> bool:
        return any(cid.startswith(prefix) for cid in self.custom_ids())

    def text(self) -> str:
        """All human-readable text: content, embeds and component labels."""
        return "\n".join(_texts_of(self.snapshot()))

    def revision_texts(self) -> list[str]:
        """``text()`` of every revision, oldest first."""
        return ["\n".join(_texts_of(revision)) for revision in self.revisions]

    def snapshot(self) -> dict:
        return {
            "content": self.content,
            "embeds": [dict(e) for e in self.embeds],
            "components": list(self.components),
            "attachments": [a.filename for a in self.attachments],
            "flags": self.flags,
        }

    def record_revision(self) -> None:
        self.revisions.append(self.snapshot())

    def __repr__(self) -> str:
        scope = f"ephemeral to {self.ephemeral_to.name}" if self.ephemeral_to else repr(self.channel)
        return f"<Message id={self.id} {scope} content={self.content[:40]!r}>"


def _walk(components: list[dict]) -> Iterator[dict]:
    for component in components:
        yield component
        yield from _walk(component.get("components", []))
        if isinstance(component.get("accessory"), dict):
            yield component["accessory"]
        if isinstance(component.get("component"), dict):  # label (type 18)
            yield from _walk([component["component"]])


def _texts_of(value: Any) -> Iterator[str]:
    """Every string inside a JSON-like structure (used for privacy scans)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts_of(item)


class World:
    """All fake Discord state. Ids are snowflakes; lookups are by id."""

    def __init__(self, *, bot_name: str = "TienLenBot") -> None:
        self.ids = Snowflakes()
        self.users: dict[int, User] = {}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.attachments: dict[int, Attachment] = {}
        self._dm_channels: dict[int, Channel] = {}
        self.bot_user = self._new_user(bot_name, bot=True)
        self.application_id = self.bot_user.id
        self._owner_names = (f"owner-{n}" for n in itertools.count(1))
        # > 0 while backdating: new messages get snowflakes this many ms in the past.
        self._backdate_ms = 0

    # -- creation -------------------------------------------------------

    def _new_user(self, name: str, **options: Any) -> User:
        user = User(id=self.ids.next(), name=name, **options)
        self.users[user.id] = user
        return user

    def add_user(self, name: str, *, locale: str = "en-US", dms_open: bool = True) -> User:
        return self._new_user(name, locale=locale, dms_open=dms_open)

    def add_guild(self, name: str, *, preferred_locale: str = "en-US", guild_id: Optional[int] = None) -> Guild:
        # A dedicated owner keeps test users from silently getting all permissions.
        owner = self._new_user(next(self._owner_names))
        guild_id = guild_id or self.ids.next()
        everyone = Role(id=guild_id, guild_id=guild_id, name="@everyone", permissions=EVERYONE_PERMISSIONS)
        guild = Guild(id=guild_id, name=name, preferred_locale=preferred_locale, owner=owner, roles=[everyone])
        self.guilds[guild.id] = guild
        self.add_member(guild, owner)
        bot_role = self.add_role(guild, self.bot_user.name, BOT_PERMISSIONS, managed=True)
        self.add_member(guild, self.bot_user, roles=[bot_role])
        return guild

    def add_role(self, guild: Guild, name: str, permissions: int, *, managed: bool = False) -> Role:
        role = Role(self.ids.next(), guild.id, name, int(permissions), position=len(guild.roles), managed=managed)
        guild.roles.append(role)
        return role

    def add_member(self, guild: Guild, user: User, *, roles: Optional[list[Role]] = None) -> Member:
        member = Member(user=user, guild=guild, roles=list(roles or []))
        guild.members[user.id] = member
        return member

    def add_channel(self, guild: Guild, name: str) -> Channel:
        channel = Channel(id=self.ids.next(), name=name, guild=guild, position=len(guild.channels))
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    def dm_channel(self, user: User) -> Channel:
        """The bot's DM channel with ``user`` (created on first use, like Discord)."""
        channel = self._dm_channels.get(user.id)
        if channel is None:
            channel = Channel(id=self.ids.next(), name=f"dm-{user.name}", type=DM_CHANNEL, recipient=user)
            self._dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def existing_dm_channel(self, user: User) -> Optional[Channel]:
        return self._dm_channels.get(user.id)

    def new_message(self, channel: Channel, author: User, **fields: Any) -> Message:
        ident = self.ids.past(self._backdate_ms) if self._backdate_ms else self.ids.next()
        message = Message(id=ident, channel=channel, author=author, created_at=snowflake_time(ident), **fields)
        message.record_revision()
        self.messages[message.id] = message
        return message

    def new_attachment(self, filename: str, data: bytes, **fields: Any) -> Attachment:
        attachment = Attachment(id=self.ids.next(), filename=filename, data=data, **fields)
        self.attachments[attachment.id] = attachment
        return attachment

    # -- message age ------------------------------------------------------

    def backdate_next_messages(self, *, minutes: float = 0, seconds: float = 0) -> None:
        """Give every message created from now on a snowflake ``minutes`` in the past.

        The bot reads a message's age from its snowflake, so this is how a test
        makes "old" messages the bot also sees as old. ``stop_backdating()`` ends it.
        """
        self._backdate_ms = int((minutes * 60 + seconds) * 1000)

    def stop_backdating(self) -> None:
        self._backdate_ms = 0

    @contextlib.contextmanager
    def backdated(self, *, minutes: float = 0, seconds: float = 0) -> Iterator[None]:
        """``with world.backdated(minutes=59): ...`` -- messages created inside are that old."""
        previous = self._backdate_ms
        self.backdate_next_messages(minutes=minutes, seconds=seconds)
        try:
            yield
        finally:
            self._backdate_ms = previous

    def age_message(self, message: "Message | int", *, minutes: float = 0, seconds: float = 0) -> Message:
        """Make an existing message (or message id) ``minutes`` older *for the fake* (its ``created_at``).

        Its id is unchanged (the bot keeps it), so the bot's own snowflake-based
        age does not move; use ``backdated`` when the bot must see the age too.
        """
        if not isinstance(message, Message):
            message = self.messages[int(message)]
        message.created_at -= dt.timedelta(minutes=minutes, seconds=seconds)
        return message

    # -- queries --------------------------------------------------------

    def user_named(self, name: str) -> User:
        for user in self.users.values():
            if user.name == name:
                return user
        raise KeyError(f"no user named {name!r}")

    def can_see(self, user: User, message: Message) -> bool:
        """Discord's visibility rule for one message and one user."""
        if message.deleted:
            return False
        if message.ephemeral_to is not None:
            return message.ephemeral_to is user
        channel = message.channel
        if channel.is_dm:
            return channel.recipient is user
        return channel.guild is not None and user.id in channel.guild.members

    def visible_to(self, user: User) -> list[Message]:
        return [m for m in self.messages.values() if self.can_see(user, m)]

    def messages_in(self, channel: Channel, *, include_ephemeral: bool = False) -> list[Message]:
        return [
            m for m in self.messages.values()
            if m.channel is channel and not m.deleted and (include_ephemeral or m.ephemeral_to is None)
        ]

    def dm_messages(self, user: User) -> list[Message]:
        channel = self._dm_channels.get(user.id)
        return [] if channel is None else self.messages_in(channel)
