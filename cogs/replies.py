"""Answering interactions on time, in the user's language.

Discord fails an interaction that gets no answer within 3 s.  :func:`within`
runs the work and defers only if it is not done after :data:`DEFER_AFTER`
seconds, so a fast action costs one request and a slow one still never fails.
Errors from the engine, the table and the chips layer become ephemeral replies.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, TypeVar

import discord

import db
from cogs.presenter import error_text
from i18n import language_of, t
from runtime.store import Refused, Unavailable
from tienlen import IllegalPlayError, InvalidCardError
from tienlen.table import TableError

log = logging.getLogger(__name__)

__all__ = ["DEFER_AFTER", "within", "reply", "edit_own", "fail", "lang_of", "explain"]

DEFER_AFTER = 2.0
BUSY = 16  # interactions in progress at once beyond which the bot defers straight away
T = TypeVar("T")
_in_progress = 0


def lang_of(interaction: discord.Interaction) -> str:
    return language_of(interaction.locale)


async def within(
    interaction: discord.Interaction, work: Awaitable[T], *, update: bool = False, public: bool = False
) -> T:
    """Await ``work``; defer the interaction first if it takes longer than DEFER_AFTER
    (or at once when the bot is busy).

    ``update``: the answer will edit the component's message; ``public``: the
    answer will be a public message (the deferral must not make it ephemeral).
    """
    global _in_progress
    task = asyncio.ensure_future(work)
    _in_progress += 1
    try:
        # When many interactions are queued the event loop itself may lag, so a
        # deferral scheduled for later could come too late: answer at once.
        wait = 0.0 if _in_progress > BUSY else DEFER_AFTER
        done, _ = await asyncio.wait({task}, timeout=wait) if wait else (set(), None)
        if not done and not task.done() and not interaction.response.is_done():
            if update:
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=not public, thinking=True)
        return await task
    finally:
        _in_progress -= 1


async def reply(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
    files: list[discord.File] | None = None,
    ephemeral: bool = True,
) -> Any:
    """A new message answering the interaction (ephemeral by default)."""
    kwargs: dict[str, Any] = {"content": content, "ephemeral": ephemeral}
    if embed is not None:
        kwargs["embed"] = embed
    if view is not None:
        kwargs["view"] = view
    if files:
        kwargs["files"] = files
    if not interaction.response.is_done():
        return await interaction.response.send_message(**kwargs)
    return await interaction.followup.send(wait=True, **kwargs)


async def edit_own(
    interaction: discord.Interaction,
    *,
    content: str | None = None,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
    files: list[discord.File] | None = None,
) -> Any:
    """Update the message whose component was used (a hand view)."""
    kwargs: dict[str, Any] = {"content": content, "embed": embed, "view": view}
    if files is not None:
        kwargs["attachments"] = files
    if not interaction.response.is_done():
        return await interaction.response.edit_message(**kwargs)
    return await interaction.edit_original_response(**kwargs)


def explain(error: BaseException, lang: str) -> str:
    """A readable reason for an expected refusal."""
    if isinstance(error, (TableError, IllegalPlayError)):
        return error_text(getattr(error, "code", "generic"), lang, getattr(error, "params", {}))
    if isinstance(error, InvalidCardError):
        return t(lang, "error.bad_card", token=error.token)
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
    return t(lang, "error.generic")


EXPECTED = (TableError, IllegalPlayError, InvalidCardError, db.DbError, Unavailable, Refused)


async def fail(interaction: discord.Interaction, error: BaseException) -> None:
    """Tell the user, ephemerally, why nothing happened."""
    lang = lang_of(interaction)
    if not isinstance(error, EXPECTED):
        log.exception("unexpected error in an interaction", exc_info=error)
    try:
        await reply(interaction, explain(error, lang))
    except discord.HTTPException:
        log.warning("could not send an error reply", exc_info=True)
