"""Build what a Discord client would send when a user acts: interaction payloads.

``interaction_payload`` produces the full INTERACTION_CREATE ``d`` object,
including the fields discord.py 2.7 requires (``attachment_size_limit``,
``version``, ``locale``/``guild_locale``, ``member.permissions``,
``app_permissions``, ``context``...). The other helpers do the client-side
checks and shapes for select menus and modal submissions.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from . import payloads
from .errors import ClientRefused
from .interactions import SentInteraction
from .messaging import SELECT_TYPES, STRING_SELECT, TEXT_INPUT
from .world import BOT_PERMISSIONS, Guild, User, World

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
GUILD_CONTEXT, BOT_DM_CONTEXT = 0, 1


def interaction_payload(world: World, sent: SentInteraction, data: dict, api_base: str) -> dict:
    user, guild = sent.user, sent.guild
    member = guild.member(user) if guild is not None else None
    payload: dict[str, Any] = {
        "id": str(sent.id),
        "application_id": str(world.application_id),
        "type": int(sent.type),
        "data": data,
        "token": sent.token,
        "version": 1,
        "channel_id": str(sent.channel.id),
        "channel": payloads.channel(sent.channel, permissions_for=member),
        "locale": user.locale,
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        **(_guild_fields(world, guild) if guild is not None else _dm_fields()),
    }
    if member is not None:
        payload["member"] = payloads.member(member, with_permissions=True)
    else:  # DMs, or a forced interaction from a non-member
        payload["user"] = payloads.user(user)
    if sent.source is not None:
        payload["message"] = payloads.message(sent.source, api_base)
    return payload


def _guild_fields(world: World, guild: Guild) -> dict:
    bot_member = guild.member(world.bot_user)
    return {
        "guild_id": str(guild.id),
        "guild": {"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
        "guild_locale": guild.preferred_locale,
        "app_permissions": str(bot_member.permissions if bot_member else int(BOT_PERMISSIONS)),
        "authorizing_integration_owners": {"0": str(guild.id)},
        "context": GUILD_CONTEXT,
    }


def _dm_fields() -> dict:
    return {
        "app_permissions": str(int(BOT_PERMISSIONS)),
        "authorizing_integration_owners": {"0": "0"},
        "context": BOT_DM_CONTEXT,
    }


def resolve_users(guild: Optional[Guild], users: list[User]) -> dict:
    """The ``resolved`` section for a user select menu."""
    resolved: dict[str, dict] = {"users": {str(u.id): payloads.user(u) for u in users}}
    if guild is not None:
        resolved["members"] = {
            str(u.id): payloads.member(m, with_user=False, with_permissions=True)
            for u in users if (m := guild.member(u)) is not None
        }
    return resolved


def check_select_values(component: dict, values: Sequence[Any]) -> None:
    """Refuse what the client's select menu would not allow."""
    low, high = component.get("min_values", 1), component.get("max_values", 1)
    if component.get("disabled"):
        raise ClientRefused(f"select {component['custom_id']!r} is disabled")
    if not low <= len(values) <= high:
        raise ClientRefused(f"select {component['custom_id']!r} takes {low}..{high} values, got {len(values)}")
    if component["type"] == STRING_SELECT:
        offered = [option["value"] for option in component.get("options", [])]
        unknown = [v for v in values if v not in offered]
        if unknown:
            raise ClientRefused(f"{unknown} are not options of {component['custom_id']!r}: {offered}")


def modal_answers(components: list[dict], values: dict[str, Any]) -> list[dict]:
    """Mirror the modal's layout with the user's answers, as the client submits it."""
    answers = []
    for component in components:
        kind = component.get("type")
        if kind == 1:  # action row
            answers.append({"type": 1, "components": modal_answers(component.get("components", []), values)})
        elif kind == 18:  # label wrapping one component
            answers.append({"type": 18, "component": modal_answers([component["component"]], values)[0]})
        elif kind == TEXT_INPUT:
            answers.append(_text_answer(component, values))
        elif kind in SELECT_TYPES:
            chosen = values.get(component["custom_id"], [])
            answers.append({"type": kind, "custom_id": component["custom_id"], "values": list(chosen)})
    return answers


def _text_answer(component: dict, values: dict[str, Any]) -> dict:
    custom_id = component["custom_id"]
    value = values.get(custom_id, component.get("value") or "")
    if component.get("required", True) and not value:
        raise ClientRefused(f"text input {custom_id!r} is required")
    return {"type": TEXT_INPUT, "custom_id": custom_id, "value": value}
