"""Interactions the fake sent to the bot, and how the bot's responses apply.

``InteractionRegistry`` tracks every INTERACTION_CREATE by id and token and
implements the server side of the interaction endpoints: the initial callback
(types 1, 4-9), followups through the application webhook and the
``@original``/``{message_id}`` message routes. ``InteractionResult`` is what
the test helpers return: a live view of the response (the message it created
or edited keeps updating as the bot edits it).
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Callable, Optional

from . import payloads
from .changes import ChangeFeed
from .editlimit import OldMessageEdits
from .messaging import create_message, edit_message, new_upload_references, validate_edit, validate_send
from .wire import (
    ApiError, Body, already_acknowledged, invalid_form, unknown_interaction, unknown_message, unknown_webhook,
)
from .world import EPHEMERAL, Channel, Guild, Message, User, World


class InteractionType(IntEnum):
    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class ResponseType(IntEnum):
    PONG = 1
    CHANNEL_MESSAGE = 4
    DEFERRED_CHANNEL_MESSAGE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    AUTOCOMPLETE_RESULT = 8
    MODAL = 9
    LAUNCH_ACTIVITY = 12


# Which first responses Discord accepts for each interaction type.
_ALLOWED = {
    InteractionType.PING: {1},
    InteractionType.APPLICATION_COMMAND: {4, 5, 9, 12},
    InteractionType.MESSAGE_COMPONENT: {4, 5, 6, 7, 9, 12},
    InteractionType.AUTOCOMPLETE: {8},
    InteractionType.MODAL_SUBMIT: {4, 5, 6, 7},
}

CHAT_INPUT_COMMAND_MESSAGE = 20

MessageHook = Callable[[str, Message], None]


@dataclass(eq=False)
class SentInteraction:
    """One interaction as the fake dispatched it, plus the bot's responses."""

    id: int
    token: str
    type: InteractionType
    user: User
    channel: Channel
    guild: Optional[Guild]
    source: Optional[Message]  # the message a component/modal came from
    command_name: Optional[str]
    deadline: float
    dispatched_at: float
    first_response: asyncio.Future = field(repr=False)
    payload: dict = field(default_factory=dict, repr=False)
    response_type: Optional[ResponseType] = None
    responded_at: Optional[float] = None
    original: Optional[Message] = None
    followups: list[Message] = field(default_factory=list)
    choices: Optional[list[dict]] = None
    modal: Optional[dict] = None
    timed_out: bool = False
    # LAUNCH_ACTIVITY (12): the activity instance Discord started for the user (activities.py).
    activity_instance: Optional[str] = None
    # Callbacks the fake refused (e.g. invalid payloads), to explain a timeout.
    rejected: list[str] = field(default_factory=list)

    @property
    def responded(self) -> bool:
        return self.response_type is not None


class InteractionResult:
    """The outcome of one helper call; attributes read live state."""

    def __init__(self, sent: SentInteraction, feed: ChangeFeed) -> None:
        self.interaction = sent
        self._feed = feed

    @property
    def response_type(self) -> Optional[ResponseType]:
        return self.interaction.response_type

    @property
    def message(self) -> Optional[Message]:
        """The message the first response created (4, 5) or edited (6, 7)."""
        return self.interaction.original

    @property
    def ephemeral(self) -> bool:
        return self.message is not None and self.message.ephemeral

    @property
    def deferred(self) -> bool:
        return self.response_type in (ResponseType.DEFERRED_CHANNEL_MESSAGE, ResponseType.DEFERRED_UPDATE_MESSAGE)

    @property
    def followups(self) -> list[Message]:
        return self.interaction.followups

    @property
    def choices(self) -> Optional[list[dict]]:
        return self.interaction.choices

    @property
    def modal(self) -> Optional[dict]:
        return self.interaction.modal

    @property
    def latency(self) -> float:
        """Seconds from dispatching INTERACTION_CREATE to the first callback."""
        sent = self.interaction
        return (sent.responded_at or sent.dispatched_at) - sent.dispatched_at

    @property
    def content(self) -> str:
        return self.message.content if self.message is not None else ""

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[Message]:
        """Wait until at least ``count`` followup messages exist."""
        return await self._feed.wait_until(
            lambda: self.followups if len(self.followups) >= count else None, timeout, f"{count} followup(s)"
        )

    async def wait_final(self, timeout: float = 5.0) -> Message:
        """Wait until a deferred ("thinking") original message has been filled in."""
        return await self._feed.wait_until(
            lambda: self.message if self.message is not None and not self.message.loading else None,
            timeout, "the deferred response to be completed",
        )

    def __repr__(self) -> str:
        kind = self.response_type.name if self.response_type else "no response"
        return f"<InteractionResult {kind} message={self.message!r} followups={len(self.followups)}>"


class InteractionRegistry:
    def __init__(self, world: World, feed: ChangeFeed, announce: MessageHook) -> None:
        self._world = world
        self._feed = feed
        self._announce = announce
        self.api_base = ""
        self.by_id: dict[int, SentInteraction] = {}
        # True: refuse webhook edits whose gallery/thumbnail names a new upload (components_v2 docstring).
        self.webhook_media_quirk = False
        # FakeDiscord.edit_limit (30046 on edits of hour-old messages); None: no limit.
        self.edit_limit: Optional[OldMessageEdits] = None
        self._by_token: dict[str, SentInteraction] = {}
        # Starts an Activity for LAUNCH_ACTIVITY (12): (channel, user) -> instance id; set by FakeDiscord.
        self.launch_activity: Optional[Callable[[Channel, User], str]] = None

    def new(self, *, type: InteractionType, user: User, channel: Channel, guild: Optional[Guild],
            source: Optional[Message] = None, command_name: Optional[str] = None,
            deadline: float = 3.0) -> SentInteraction:
        loop = asyncio.get_running_loop()
        sent = SentInteraction(
            id=self._world.ids.next(), token=f"fake-interaction-{secrets.token_urlsafe(24)}",
            type=type, user=user, channel=channel, guild=guild, source=source, command_name=command_name,
            deadline=deadline, dispatched_at=loop.time(), first_response=loop.create_future(),
        )
        self.by_id[sent.id] = sent
        self._by_token[sent.token] = sent
        return sent

    def result(self, sent: SentInteraction) -> InteractionResult:
        return InteractionResult(sent, self._feed)

    # -- POST /interactions/{id}/{token}/callback -------------------------

    def respond(self, interaction_id: int, token: str, body: Body) -> dict:
        sent = self.by_id.get(interaction_id)
        if sent is None or sent.token != token:
            raise unknown_interaction()
        loop = asyncio.get_running_loop()
        if sent.responded:
            raise already_acknowledged()
        if sent.timed_out or loop.time() - sent.dispatched_at > sent.deadline:
            # Discord forgets interactions that were not acknowledged within 3 s.
            raise unknown_interaction()
        try:
            response = _require_dict(body.json)
            kind = _response_type(sent, response)
            self._apply(sent, kind, response.get("data") or {}, body)
        except ApiError as error:
            sent.rejected.append(str(error))
            raise
        sent.response_type, sent.responded_at = kind, loop.time()
        if not sent.first_response.done():
            sent.first_response.set_result(sent)
        return self._callback_payload(sent, kind)

    def _apply(self, sent: SentInteraction, kind: ResponseType, data: dict, body: Body) -> None:
        if kind is ResponseType.CHANNEL_MESSAGE:
            sent.original = self._create(sent, validate_send(data, body.uploads), body, original=True)
        elif kind is ResponseType.DEFERRED_CHANNEL_MESSAGE:
            # Only EPHEMERAL counts on a defer; a V2 message is made by editing @original.
            flags = int(data.get("flags") or 0) & EPHEMERAL
            sent.original = self._create(sent, {"flags": flags}, body, original=True, loading=True)
        elif kind is ResponseType.DEFERRED_UPDATE_MESSAGE:
            sent.original = sent.source
        elif kind is ResponseType.UPDATE_MESSAGE:
            if sent.source is None:
                raise invalid_form("UPDATE_MESSAGE needs a message to update")
            self._admit_edit(sent.source, "callback")
            sent.original = self._edit(sent.source, validate_edit(data, sent.source, body.uploads), body)
        elif kind is ResponseType.AUTOCOMPLETE_RESULT:
            sent.choices = list(data.get("choices") or [])
        elif kind is ResponseType.MODAL:
            sent.modal = data
        elif kind is ResponseType.LAUNCH_ACTIVITY:
            if self.launch_activity is None:
                raise invalid_form("this application has no Activity")
            sent.activity_instance = self.launch_activity(sent.channel, sent.user)

    def _callback_payload(self, sent: SentInteraction, kind: ResponseType) -> dict:
        message = sent.original if kind in (4, 5, 7) else None
        interaction = {
            "id": str(sent.id),
            "type": int(sent.type),
            "response_message_loading": kind is ResponseType.DEFERRED_CHANNEL_MESSAGE,
            "response_message_ephemeral": bool(message and message.ephemeral),
        }
        answer: dict[str, Any] = {"interaction": interaction}
        if message is not None:
            interaction["response_message_id"] = str(message.id)
            answer["resource"] = {"type": int(kind), "message": payloads.message(message, self.api_base)}
        elif kind is not ResponseType.PONG:
            answer["resource"] = {"type": int(kind)}
        return answer

    # -- webhook routes (followups, @original, {message_id}) -------------

    def by_token(self, application_id: int, token: str) -> SentInteraction:
        sent = self._by_token.get(token)
        if sent is None or application_id != self._world.application_id or not sent.responded:
            raise unknown_webhook()
        return sent

    def followup(self, sent: SentInteraction, body: Body) -> Message:
        original = sent.original
        if original is not None and original.loading and sent.response_type is ResponseType.DEFERRED_CHANNEL_MESSAGE:
            # The first followup after a "thinking" defer replaces the loading message;
            # its visibility was fixed by the defer.
            return self._edit(original, self._validate_webhook_edit(original, body), body)
        message = self._create(sent, validate_send(body.json, body.uploads), body, original=False)
        sent.followups.append(message)
        return message

    def find_message(self, sent: SentInteraction, message_id: str) -> Message:
        if message_id == "@original":
            if sent.original is None or sent.original.deleted:
                raise unknown_message()
            return sent.original
        message = self._world.messages.get(int(message_id)) if message_id.isdigit() else None
        if not self._token_can_touch(sent, message):
            raise unknown_message()
        assert message is not None
        return message

    def _token_can_touch(self, sent: SentInteraction, message: Optional[Message]) -> bool:
        if message is None or message.deleted or message.author is not self._world.bot_user:
            return False
        if message.channel is not sent.channel:
            return False
        return message.ephemeral_to is None or message.ephemeral_to is sent.user

    def edit(self, message: Message, body: Body) -> Message:
        return self._edit(message, self._validate_webhook_edit(message, body), body)

    def _admit_edit(self, message: Message, path: str) -> None:
        if self.edit_limit is not None:
            self.edit_limit.admit(message, path)

    def _validate_webhook_edit(self, message: Message, body: Body) -> dict:
        self._admit_edit(message, "webhook")
        data = validate_edit(_require_dict(body.json), message, body.uploads)
        if self.webhook_media_quirk:
            # discord-api-docs #7529: webhook edits cannot bring in a new upload by a media gallery.
            fresh = new_upload_references(data, body.uploads)
            if fresh:
                raise invalid_form(f"components: unfurled media attachment not found (attachment://{fresh[0]})")
        return data

    def delete(self, message: Message) -> None:
        message.deleted = True
        self._announce("MESSAGE_DELETE", message)

    # -- helpers ----------------------------------------------------------

    def _create(self, sent: SentInteraction, data: dict, body: Body, *, original: bool, loading: bool = False) -> Message:
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        from_command = sent.type in (InteractionType.APPLICATION_COMMAND, InteractionType.AUTOCOMPLETE)
        message = create_message(
            self._world, sent.channel, data, body.uploads,
            ephemeral_to=sent.user if ephemeral else None,
            loading=loading,
            type=CHAT_INPUT_COMMAND_MESSAGE if original and from_command else 0,
            webhook_id=self._world.application_id,
            interaction_metadata=self._metadata(sent, original),
        )
        self._announce("MESSAGE_CREATE", message)
        return message

    def _edit(self, message: Message, data: dict, body: Body) -> Message:
        edit_message(self._world, message, data, body.uploads)
        self._announce("MESSAGE_UPDATE", message)
        return message

    def _metadata(self, sent: SentInteraction, original: bool) -> dict:
        metadata: dict[str, Any] = {
            "id": str(sent.id),
            "type": int(sent.type),
            "user": payloads.user(sent.user),
            "authorizing_integration_owners": {"0": str(sent.guild.id)} if sent.guild else {"1": str(sent.user.id)},
        }
        if sent.command_name:
            metadata["name"] = sent.command_name
            metadata["command_type"] = 1
        if not original and sent.original is not None:
            metadata["original_response_message_id"] = str(sent.original.id)
        if sent.source is not None:
            metadata["interacted_message_id"] = str(sent.source.id)
        return metadata


def _require_dict(data: Any) -> dict:
    if not isinstance(data, dict):
        raise invalid_form("expected a JSON object")
    return data


def _response_type(sent: SentInteraction, response: dict) -> ResponseType:
    try:
        kind = ResponseType(int(response.get("type", 0)))
    except ValueError:
        raise invalid_form(f"unknown interaction response type {response.get('type')!r}") from None
    if kind not in _ALLOWED.get(sent.type, set()):
        raise ApiError(400, 50035, f"Interaction response type {kind.name} is not valid for {sent.type.name}")
    return kind
