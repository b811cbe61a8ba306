"""Turn the bot's message payloads into world messages (create and edit).

Shared by channel messages, interaction responses and webhook followups, so
all three validate and apply content, embeds, components and attachments the
same way. Validation enforces the Discord limits a real server would reject
with 400/50035 or 50006, so e2e tests catch payloads production would refuse.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .components_v2 import MEDIA_GALLERY, THUMBNAIL, attachment_references, is_v2, validate_v2
from .wire import ApiError, Upload, invalid_form
from .world import EPHEMERAL, LOADING, Attachment, Channel, Message, User, World, utcnow

SUPPRESS_EMBEDS = 1 << 2
SUPPRESS_NOTIFICATIONS = 1 << 12
IS_COMPONENTS_V2 = 1 << 15
# Flags a bot may set itself when sending; everything else is Discord-controlled.
_SETTABLE_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2
_EDITABLE_FLAGS = SUPPRESS_EMBEDS | IS_COMPONENTS_V2

BUTTON, STRING_SELECT, TEXT_INPUT = 2, 3, 4
SELECT_TYPES = {3, 5, 6, 7, 8}


def create_message(
    world: World,
    channel: Channel,
    data: dict,
    uploads: list[Upload],
    *,
    ephemeral_to: Optional[User] = None,
    loading: bool = False,
    **fields: Any,
) -> Message:
    """Create a bot-authored message from a send payload (already validated)."""
    flags = int(data.get("flags") or 0) & _SETTABLE_FLAGS
    if ephemeral_to is not None:
        flags |= EPHEMERAL
    if loading:
        flags |= LOADING
    return world.new_message(
        channel,
        world.bot_user,
        content=data.get("content") or "",
        embeds=_embeds(data.get("embeds")),
        components=list(data.get("components") or []),
        attachments=_attachments(world, data, uploads, existing=[]),
        flags=flags,
        ephemeral_to=ephemeral_to,
        **fields,
    )


def edit_message(world: World, message: Message, data: dict, uploads: list[Upload]) -> Message:
    """Apply an edit payload: present fields replace, absent fields stay."""
    if "content" in data:
        message.content = data["content"] or ""
    if "embeds" in data:
        message.embeds = _embeds(data["embeds"])
    if "components" in data:
        message.components = list(data["components"] or [])
    if "attachments" in data or uploads:
        message.attachments = _attachments(world, data, uploads, existing=message.attachments)
    if data.get("flags") is not None:
        # IS_COMPONENTS_V2 can be set by an edit but never cleared.
        kept = message.flags & ~(_EDITABLE_FLAGS & ~IS_COMPONENTS_V2)
        message.flags = kept | (int(data["flags"]) & _EDITABLE_FLAGS)
    # Filling in a deferred "thinking" message is what ends the loading state.
    message.flags &= ~LOADING
    message.edited_at = utcnow()
    message.edit_times.append(message.edited_at)
    message.record_revision()
    return message


def validate_send(data: Any, uploads: list[Upload]) -> dict:
    """Check a create payload; returns it as a dict or raises ApiError."""
    data = _require_object(data)
    if is_v2(data.get("flags")):
        _refuse_legacy_fields(data)
        validate_v2(data.get("components") or [], _names_after(data, uploads, existing=[]))
    else:
        _validate_legacy(data)
    has_body = data.get("content") or data.get("embeds") or data.get("components") or uploads
    if not has_body and not data.get("attachments"):
        raise ApiError(400, 50006, "Cannot send an empty message")
    return data


def validate_edit(data: Any, message: Optional[Message] = None, uploads: Sequence[Upload] = ()) -> dict:
    """Check an edit payload against the message it edits (None: a message without content yet).

    A V2 message stays V2 (the flag cannot be dropped, content/embeds are
    refused); a legacy message may become V2 only if the edit empties its
    content and embeds (Discord's Edit Message docs). Legacy edits keep the
    legacy rules.
    """
    data = _require_object(data)
    was_v2 = message is not None and is_v2(message.flags)
    wants_v2 = is_v2(data.get("flags"))
    if was_v2 and data.get("flags") is not None and not wants_v2:
        raise invalid_form("flags: IS_COMPONENTS_V2 cannot be removed from a message once set")
    if not (was_v2 or wants_v2):
        _validate_legacy(data)
        return data
    _refuse_legacy_fields(data)
    if wants_v2 and not was_v2 and message is not None:
        _check_conversion(data, message)
    if "components" in data:
        existing = message.attachments if message is not None else []
        validate_v2(data["components"] or [], _names_after(data, uploads, existing=existing))
    return data


def new_upload_references(data: dict, uploads: Sequence[Upload]) -> list[str]:
    """Gallery/thumbnail ``attachment://`` names that point at files uploaded in this request."""
    fresh = {upload.filename for upload in uploads}
    fresh |= {str(e.get("filename")) for e in data.get("attachments") or [] if isinstance(e, dict) and e.get("filename")}
    return [name for kind, name in attachment_references(data.get("components") or [])
            if kind in (MEDIA_GALLERY, THUMBNAIL) and name in fresh]


def _validate_legacy(data: dict) -> None:
    content = data.get("content") or ""
    if len(content) > 2000:
        raise invalid_form("content: Must be 2000 or fewer in length.")
    _validate_embeds(data.get("embeds") or [])
    _validate_components(data.get("components") or [])


def _refuse_legacy_fields(data: dict) -> None:
    # null / "" / [] are the "reset to empty" values Discord accepts.
    for key in ("content", "embeds", "poll", "sticker_ids", "stickers"):
        if data.get(key):
            raise invalid_form(f"{key}: cannot be used on a message with the IS_COMPONENTS_V2 flag")


def _check_conversion(data: dict, message: Message) -> None:
    """Setting the V2 flag on a legacy message must explicitly reset its content and embeds."""
    if message.content and "content" not in data:
        raise invalid_form("content: must be reset to null to set the IS_COMPONENTS_V2 flag")
    if message.embeds and "embeds" not in data:
        raise invalid_form("embeds: must be reset to [] to set the IS_COMPONENTS_V2 flag")


def _names_after(data: dict, uploads: Sequence[Upload], *, existing: list[Attachment]) -> list[str]:
    """Filenames the message carries after this request, as ``attachment://`` sees them.

    API v10: with an ``attachments`` array only what it lists (kept files and
    new uploads) is on the message; without one, existing files stay and
    uploads are appended.
    """
    entries = data.get("attachments")
    if entries is None:
        return [a.filename for a in existing] + [u.filename for u in uploads]
    kept = {a.id: a for a in existing}
    pending = {u.index: u for u in uploads}
    names = []
    for entry in entries:
        ident = _entry_id(entry)
        if ident in kept:
            names.append(kept[ident].filename)
        elif ident in pending:
            names.append(entry.get("filename") or pending[ident].filename)
    return names


def _entry_id(entry: Any) -> Optional[int]:
    try:
        return int(entry["id"])
    except (TypeError, KeyError, ValueError):
        return None


def _require_object(data: Any) -> dict:
    if not isinstance(data, dict):
        raise invalid_form("expected a JSON object")
    return data


def _embeds(raw: Optional[list]) -> list[dict]:
    # Discord fills in the embed type; discord.py's Embed.from_dict reads it.
    return [{"type": "rich", **embed} for embed in (raw or [])]


def _attachments(world: World, data: dict, uploads: list[Upload], *, existing: list[Attachment]) -> list[Attachment]:
    """Resolve the ``attachments`` list against existing files and new uploads.

    Entries whose id is an existing attachment keep it; entries whose id is an
    upload index (``files[n]``) attach that upload. Without a list, Discord keeps
    existing files and appends the uploads.
    """
    pending = {upload.index: upload for upload in uploads}
    entries = data.get("attachments")
    if entries is None:
        return existing + [_store(world, upload, {}) for upload in pending.values()]
    kept = {a.id: a for a in existing}
    result: list[Attachment] = []
    for entry in entries:
        ident = int(entry["id"])
        if ident in kept:
            result.append(kept[ident])
        elif ident in pending:
            result.append(_store(world, pending.pop(ident), entry))
        else:
            raise invalid_form(f"attachments: unknown attachment id {ident}")
    return result + [_store(world, upload, {}) for upload in pending.values()]


def _store(world: World, upload: Upload, entry: dict) -> Attachment:
    return world.new_attachment(
        entry.get("filename") or upload.filename,
        upload.data,
        content_type=upload.content_type,
        description=entry.get("description"),
    )


def _validate_embeds(embeds: list[dict]) -> None:
    if len(embeds) > 10:
        raise invalid_form("embeds: Must be 10 or fewer in length.")
    total = 0
    for embed in embeds:
        total += _check_len(embed.get("title"), 256, "embed title")
        total += _check_len(embed.get("description"), 4096, "embed description")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            raise invalid_form("embeds.fields: Must be 25 or fewer in length.")
        for fld in fields:
            total += _check_len(fld.get("name"), 256, "embed field name")
            total += _check_len(fld.get("value"), 1024, "embed field value")
        total += _check_len((embed.get("footer") or {}).get("text"), 2048, "embed footer")
        total += _check_len((embed.get("author") or {}).get("name"), 256, "embed author")
    if total > 6000:
        raise invalid_form("embeds: total text must be 6000 or fewer characters.")


def _check_len(value: Optional[str], limit: int, what: str) -> int:
    length = len(value or "")
    if length > limit:
        raise invalid_form(f"{what}: Must be {limit} or fewer in length.")
    return length


def _validate_components(components: list[dict]) -> None:
    """Legacy (non-V2) components: up to 5 action rows at the top level, nothing else."""
    if len(components) > 5:
        raise invalid_form("components: Must be 5 or fewer in length.")
    custom_ids: set[str] = set()
    for index, row in enumerate(components):
        if not isinstance(row, dict) or row.get("type") != 1:
            raise invalid_form(f"components[{index}]: only action rows are allowed without the IS_COMPONENTS_V2 flag")
        _validate_action_row(row)
        for item in row.get("components") or []:
            _validate_item(item)
            custom_id = item.get("custom_id")
            if custom_id is not None and custom_id in custom_ids:
                raise invalid_form(f"components: custom_id {custom_id!r} is used twice in the message")
            custom_ids.add(custom_id)


def _validate_action_row(row: dict) -> None:
    children = row.get("components") or []
    if not children or len(children) > 5:
        raise invalid_form("action row: must hold 1 to 5 components")
    if any(c.get("type") in SELECT_TYPES for c in children) and len(children) > 1:
        raise invalid_form("action row: a select menu must be alone in its row")


def _validate_item(item: dict) -> None:
    custom_id = item.get("custom_id")
    if custom_id is not None and not 1 <= len(custom_id) <= 100:
        raise invalid_form(f"custom_id {custom_id!r}: must be 1 to 100 characters")
    if item.get("type") == BUTTON and len(item.get("label") or "") > 80:
        raise invalid_form("button label: Must be 80 or fewer in length.")
    if item.get("type") == STRING_SELECT:
        options = item.get("options") or []
        if not 1 <= len(options) <= 25:
            raise invalid_form("select options: must hold 1 to 25 options")
        for option in options:
            _check_len(option.get("label"), 100, "select option label")
            _check_len(option.get("value"), 100, "select option value")
