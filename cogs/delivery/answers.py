"""Answering interactions on time, in the user's language: the first answer, or the edit of the pressed message.

Discord fails an interaction that gets no answer within 3 s.  :func:`within`
runs the work and defers only if it is not done after :data:`DEFER_AFTER`
seconds, so a fast action costs one request and a slow one still never fails.
Deferrals are always ephemeral, so a refusal can never end up in public;
what everyone should see is posted by :func:`send_public`.  Errors from the
edge (:mod:`cogs.inputs`), the engine, the table and the chips layer become
ephemeral replies in the user's language.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Awaitable, Protocol, TypeVar, runtime_checkable

import discord
from discord import app_commands

import db
from cogs.delivery.limits import too_old_to_edit
from cogs.inputs import InputError, shown
from cogs.layouts.words import error_text
from i18n import language_of, t
from runtime.metrics import Metrics
from runtime.store import Refused, Unavailable
from tienlen import IllegalPlayError, InvalidCardError
from tienlen.table import TableError

log = logging.getLogger(__name__)

__all__ = ["DEFER_AFTER", "within", "defer", "guild_only", "send_public", "reply", "edit_own", "fail", "lang_of", "explain",
           "refuses_new_picture"]

DEFER_AFTER = 2.0
BUSY = 16  # interactions in progress at once beyond which the bot defers straight away
T = TypeVar("T")
_in_progress = 0


def lang_of(interaction: discord.Interaction) -> str:
    return language_of(interaction.locale)


async def within(interaction: discord.Interaction, work: Awaitable[T], *, update: bool = False) -> T:
    """Await ``work``; defer the interaction first if it takes longer than DEFER_AFTER
    (or at once when the bot is busy).

    ``update``: the answer will edit the component's message.  Otherwise the
    deferral is ephemeral, whatever the answer will be: a refusal must stay
    private, and a public success is posted apart (:func:`send_public`).
    """
    global _in_progress
    task = asyncio.ensure_future(work)
    _in_progress += 1
    try:
        # When many interactions are queued the event loop itself may lag, so a
        # deferral scheduled for later could come too late: answer at once.
        wait = 0.0 if _in_progress > BUSY else DEFER_AFTER
        done, _ = await asyncio.wait({task}, timeout=wait) if wait else (set(), None)
        if not done and not task.done():
            await defer(interaction, update=update)
        return await task
    finally:
        _in_progress -= 1


async def defer(interaction: discord.Interaction, *, update: bool) -> None:
    """Acknowledge the interaction now (if it was not answered yet), to answer later.

    ``update``: the answer will edit the component's message; otherwise it
    comes as an ephemeral follow-up (see :func:`within`)."""
    if interaction.response.is_done():
        return
    if update:
        await interaction.response.defer()
    else:
        await interaction.response.defer(ephemeral=True, thinking=True)


async def guild_only(interaction: discord.Interaction) -> bool:
    """True in a server channel; else the user is told, privately, that this works only there.

    (Discord hides server-only commands in DMs; a forged or stale client may still send one.)"""
    if interaction.guild_id is None or interaction.channel_id is None:
        await reply(interaction, t(lang_of(interaction), "error.guild_only"))
        return False
    return True


async def send_public(interaction: discord.Interaction, **message: Any) -> discord.Message | None:
    """Answer with a message everyone in the channel sees; the message, when Discord says it.

    If the interaction was deferred (ephemerally), the deferral is filled with
    a short private note and the message is posted as a follow-up of its own."""
    if not interaction.response.is_done():
        response = await interaction.response.send_message(**message)
        sent = response.resource if response is not None else None
        return sent if isinstance(sent, discord.Message) else await interaction.original_response()
    await interaction.edit_original_response(content=t(lang_of(interaction), "reply.posted"))
    return await interaction.followup.send(wait=True, **message)


async def reply(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    layout: discord.ui.LayoutView | None = None,
    files: list[discord.File] | None = None,
    ephemeral: bool = True,
) -> Any:
    """A new message answering the interaction (ephemeral by default): a line of
    text, or a layout (a Components V2 message carries no content of its own)."""
    kwargs: dict[str, Any] = {"ephemeral": ephemeral}
    if layout is not None:
        kwargs["view"] = layout
    else:
        kwargs["content"] = content
    if files:
        kwargs["files"] = files
    if not interaction.response.is_done():
        return await interaction.response.send_message(**kwargs)
    return await interaction.followup.send(wait=True, **kwargs)


async def edit_own(interaction: discord.Interaction, *, layout: discord.ui.LayoutView,
                   files: list[discord.File] | None = None) -> Any:
    """Update the message whose component was used (a hand, a replay, a rules page).

    ``files``: the message's pictures from now on (None: keep them).  A
    message too old to edit (Discord's one-hour edit limit) is answered with
    a new message instead, and the old one is deleted when it is the bot's
    own DM (so no stale buttons stay); the new message is returned."""
    message = interaction.message
    if message is not None and too_old_to_edit(message.id):
        sent = await reply(interaction, layout=layout, files=files or [], ephemeral=interaction.guild_id is not None)
        if interaction.guild_id is None:
            await _delete_quietly(message)
        return sent
    kwargs: dict[str, Any] = {"view": layout}
    if files is not None:
        kwargs["attachments"] = files
    if not interaction.response.is_done():
        return await interaction.response.edit_message(**kwargs)
    try:
        return await interaction.edit_original_response(**kwargs)
    except discord.HTTPException as error:
        if not (files and refuses_new_picture(error)):
            raise
    # Discord refuses a new picture in a media gallery through this webhook edit
    # (discord-api-docs #7529): the answer comes as a new message instead.
    sent = await reply(interaction, layout=layout, files=files, ephemeral=interaction.guild_id is not None)
    with contextlib.suppress(discord.HTTPException):
        await interaction.delete_original_response()
    return sent


def refuses_new_picture(error: discord.HTTPException) -> bool:
    """Discord's answer to a webhook edit whose media gallery names a new upload
    (400, invalid form body: "unfurled media attachment not found", discord-api-docs #7529)."""
    return error.status == 400 and error.code == 50035 and "attachment" in str(error.text).lower()


async def _delete_quietly(message: discord.Message) -> None:
    try:
        await message.delete()
    except discord.HTTPException:
        log.debug("could not delete a message too old to edit", exc_info=True)


def explain(error: BaseException, lang: str) -> str:
    """A readable reason for an expected refusal."""
    if isinstance(error, (TableError, IllegalPlayError, InputError)):
        return error_text(getattr(error, "code", "generic"), lang, getattr(error, "params", {}))
    if isinstance(error, InvalidCardError):
        if error.reason == "twice":
            return t(lang, "error.card_twice", card=shown(error.token))
        return t(lang, "error.bad_card", token=shown(error.token))
    if isinstance(error, db.InsufficientFunds):
        return t(lang, "error.insufficient_funds")
    if isinstance(error, db.DailyAlreadyClaimed):
        hours, seconds = divmod(int(error.retry_after.total_seconds()), 3600)
        return t(lang, "error.daily_claimed", hours=hours, minutes=seconds // 60)
    if isinstance(error, db.InvalidAmount):
        return t(lang, "error.bad_amount")
    if isinstance(error, db.StaleEpoch):  # this process lost its cluster slot; another takes the table
        return t(lang, "error.table_moving")
    if isinstance(error, (Unavailable, Refused)):  # the database failed: the step was not kept
        return t(lang, "error.storage_down")
    if isinstance(error, app_commands.TransformerError):  # a forged option value
        return t(lang, "error.bad_option")
    return t(lang, "error.generic")


EXPECTED = (TableError, IllegalPlayError, InvalidCardError, InputError, db.DbError, Unavailable, Refused,
            app_commands.TransformerError)


@runtime_checkable
class CountsErrors(Protocol):
    """A bot that counts the errors no input explains (its /metrics)."""

    metrics: Metrics


async def fail(interaction: discord.Interaction, error: BaseException) -> None:
    """Tell the user, ephemerally, why nothing happened.

    "Something went wrong" means a bug: an error no input explains is counted
    (``unexpected_errors_total``) and logged once, with its traceback."""
    lang = lang_of(interaction)
    if not isinstance(error, EXPECTED):
        if isinstance(interaction.client, CountsErrors):
            interaction.client.metrics.unexpected_errors.inc()
        log.error("unexpected error in an interaction", exc_info=error)
    try:
        await reply(interaction, explain(error, lang))
    except discord.HTTPException:
        log.warning("could not send an error reply", exc_info=True)
