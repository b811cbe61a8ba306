"""Serialise world objects into Discord API v10 JSON shapes.

Only the fields discord.py 2.7 reads (or that a real client would expect) are
produced. Snowflakes are strings and permissions are decimal strings, as on the
wire. The functions take an ``api_base`` where URLs are needed so attachments
can be downloaded back from the fake.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Optional

from .world import Attachment, Channel, Guild, Member, Message, Role, User


def iso(moment: Optional[dt.datetime]) -> Optional[str]:
    return None if moment is None else moment.isoformat()


def user(u: User) -> dict:
    return {
        "id": str(u.id),
        "username": u.name,
        "discriminator": "0",
        "global_name": u.name,
        "avatar": getattr(u, "avatar", None),  # set by fake.activities.set_avatar (activities.py)
        "bot": u.bot,
        "public_flags": 0,
    }


def client_user(u: User) -> dict:
    """The bot's own user as returned by GET /users/@me and in READY."""
    return {**user(u), "verified": True, "mfa_enabled": False, "flags": 0, "locale": u.locale}


def role(r: Role) -> dict:
    return {
        "id": str(r.id),
        "name": r.name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": r.position,
        "permissions": str(r.permissions),
        "managed": r.managed,
        "mentionable": False,
        "flags": 0,
    }


def member(m: Member, *, with_user: bool = True, with_permissions: bool = False) -> dict:
    data = {
        "roles": [str(r.id) for r in m.roles],
        "joined_at": iso(m.joined_at),
        "nick": None,
        "avatar": None,
        "deaf": False,
        "mute": False,
        "pending": False,
        "flags": 0,
        "premium_since": None,
        "communication_disabled_until": None,
    }
    if with_user:
        data["user"] = user(m.user)
    if with_permissions:
        data["permissions"] = str(m.permissions)
    return data


def channel(c: Channel, *, permissions_for: Optional[Member] = None) -> dict:
    if c.is_dm:
        assert c.recipient is not None
        return {"id": str(c.id), "type": c.type, "recipients": [user(c.recipient)], "last_message_id": None, "flags": 0}
    assert c.guild is not None
    data = {
        "id": str(c.id),
        "type": c.type,
        "guild_id": str(c.guild.id),
        "name": c.name,
        "position": c.position,
        "permission_overwrites": [],
        "parent_id": None,
        "nsfw": False,
        "topic": None,
        "rate_limit_per_user": 0,
        "last_message_id": None,
        "flags": 0,
    }
    if permissions_for is not None:
        # Interaction payloads carry the invoking user's resolved channel permissions.
        data["permissions"] = str(permissions_for.permissions)
    return data


def guild_create(g: Guild, *, bot: Optional[User] = None) -> dict:
    """A full GUILD_CREATE payload: enough for discord.py to cache everything.

    Without the GUILD_MEMBERS intent Discord lists only the bot itself; pass
    ``bot`` to get that. With the full list, ``member_count`` equals its length
    so discord.py considers the guild chunked and never requests members.
    """
    members = [m for m in g.members.values() if bot is None or m.user is bot]
    return {
        "id": str(g.id),
        "name": g.name,
        "icon": None,
        "owner_id": str(g.owner.id),
        "preferred_locale": g.preferred_locale,
        "unavailable": False,
        "large": False,
        "member_count": len(g.members),
        "joined_at": iso(next(iter(g.members.values())).joined_at),
        "features": [],
        "roles": [role(r) for r in g.roles],
        "emojis": [],
        "stickers": [],
        "channels": [channel(c) for c in g.channels],
        "threads": [],
        "members": [member(m) for m in members],
        "presences": [],
        "voice_states": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "afk_timeout": 300,
        "description": None,
    }


def attachment(a: Attachment, api_base: str) -> dict:
    url = f"{api_base}/attachments/{a.id}/{a.filename}"
    data = {
        "id": str(a.id),
        "filename": a.filename,
        "size": a.size,
        "url": url,
        "proxy_url": url,
        "content_type": a.content_type,
    }
    if a.description is not None:
        data["description"] = a.description
    return data


def _resolved_media(components: Any, attachments: list[Attachment], api_base: str) -> Any:
    """Components as Discord returns them: ``attachment://name`` media become the file's URL.

    Discord stores the resolved unfurled media item (``url``, ``proxy_url``,
    ``attachment_id``...); the world keeps what the bot sent, so tests can read names.
    """
    by_name = {a.filename: a for a in attachments}
    if isinstance(components, list):
        return [_resolved_media(c, attachments, api_base) for c in components]
    if not isinstance(components, dict):
        return components
    url = components.get("url")
    if isinstance(url, str) and url.startswith("attachment://") and url[13:] in by_name:
        file = by_name[url[13:]]
        link = f"{api_base}/attachments/{file.id}/{file.filename}"
        return {**components, "url": link, "proxy_url": link, "content_type": file.content_type,
                "attachment_id": str(file.id)}
    return {key: _resolved_media(value, attachments, api_base) for key, value in components.items()}


def message(m: Message, api_base: str, *, with_member: bool = False) -> dict:
    """A message object; ``with_member`` adds the gateway-only ``member`` field."""
    data = {
        "id": str(m.id),
        "channel_id": str(m.channel.id),
        "type": m.type,
        "author": user(m.author),
        "content": m.content,
        "timestamp": iso(m.created_at),
        "edited_timestamp": iso(m.edited_at),
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [attachment(a, api_base) for a in m.attachments],
        "embeds": m.embeds,
        "components": _resolved_media(m.components, m.attachments, api_base),
        "pinned": False,
        "flags": m.flags,
    }
    if m.guild is not None:
        data["guild_id"] = str(m.guild.id)
        author_member = m.guild.member(m.author)
        if with_member and author_member is not None:
            data["member"] = member(author_member, with_user=False)
    if m.webhook_id is not None:
        data["webhook_id"] = str(m.webhook_id)
        data["application_id"] = str(m.webhook_id)
    if m.interaction_metadata is not None:
        data["interaction_metadata"] = m.interaction_metadata
    return data
