"""Discord's Components V2 rules, as the fake enforces them on message payloads.

What Discord documents and what bots have reported (checked December 2026):

Components V2 (discord-api-docs ``developers/components/reference.mdx``,
https://discord.com/developers/docs/components/reference, and the change log
entry "Raised Component Limits", April 29 2025):

* A message opts in with the flag ``IS_COMPONENTS_V2 = 1 << 15``; "once a
  message has been sent with this flag, it can't be removed from that message"
  (also ``using-message-components.mdx``).
* With the flag, ``content``, ``embeds``, ``poll`` and ``stickers``/``sticker_ids``
  do not work; "Providing content, embeds, sticker_ids, poll, or
  shared_client_theme will fail with a 400 BAD REQUEST response"
  (``resources/message.mdx``, Create Message).
* At most 40 components in total, nested ones included (no top-level limit
  any more, no per-Container limit). Legacy messages keep "up to 5 action rows".
* Text: "The character count of all text display components in a message may
  total up to 4000 characters" (discord/discord-api-docs PR #8562, open). Only
  Text Display content counts; button labels (80), select option labels (100),
  thumbnail/gallery descriptions (1024) have their own per-field limits.
* Types: Action Row 1, Button 2, String Select 3, Text Input 4 (modals only),
  User/Role/Mentionable/Channel Select 5-8, Section 9, Text Display 10,
  Thumbnail 11, Media Gallery 12, File 13, Separator 14, Container 17; Label 18
  and File Upload 19, Radio Group 21, Checkbox Group 22, Checkbox 23 are modal-only.
* Top level: Action Row, Section, Text Display, Media Gallery, File, Separator,
  Container. Inside a Container: Action Row, Text Display, Section, Media
  Gallery, Separator, File (no nested Container). An Action Row holds up to 5
  buttons or exactly one select. A Section holds 1-3 Text Displays and one
  ``accessory``, a Button or a Thumbnail. A Thumbnail exists only as an accessory.
* Media Gallery: 1-10 items. Separator ``spacing`` is 1 (small) or 2 (large).
  Container ``accent_color`` is an RGB integer 0x000000-0xFFFFFF (or null).
  File accepts only ``attachment://<filename>`` media.
* ``custom_id`` (1-100 chars) must be unique within the message; the optional
  numeric ``id`` (32-bit) must be unique too, 0 meaning "unset".
* Media ``url``s may be ``attachment://<filename>``: it must name a file of the
  message (uploaded in this request, or kept).

Edits (``resources/message.mdx``, Edit Message; ``reference.mdx``, "Editing
Message Attachments"):

* "The SUPPRESS_EMBEDS flag can be both set and unset, while the
  IS_COMPONENTS_V2 flag can only be set." A legacy message *may* become V2 by
  an edit, but "any of the used content, embeds, sticker_ids, or poll fields
  must have their values reset to empty. For content and poll this is null. For
  embeds and sticker_ids this is []. Failing to do this will result in a 400".
  The fake refuses an edit that drops the flag (Discord's docs only say it
  cannot be removed), and content/embeds sent to a V2 message.
* API v10: "the attachments array must contain all attachments that should be
  present after edit, including retained and new attachments"; previously
  added files missing from it are removed; without the array, files are appended.

Replacing the picture of a media gallery by an edit, per endpoint:

* Channel ``PATCH /channels/{c}/messages/{m}``: documented and reported to work
  when the new file is listed in ``attachments`` and the old one is left out
  (discord/discord-api-docs #936, 2023 comment; v10 warning above).
* Interaction callback type 7 UPDATE_MESSAGE: old attachments could not be
  removed (discord-api-docs #4309, 2022); later, type 7 *dropped* attachments
  the ``attachments`` array did not list while the channel PATCH kept them
  (discord-api-docs #6277, 2023, discord.py 2.3). Listing every wanted file is
  the only form that behaves the same everywhere.
* ``PATCH /webhooks/{app}/{token}/messages/@original`` (and the first followup
  after a "thinking" defer, which edits the original): editing a media gallery
  that references a *newly uploaded* ``attachment://`` file into the message
  answered 400 "unfurled media attachment not found", even when the original
  already was V2, while the same payload as a type 4 response or a separate
  followup worked (discord-api-docs #7529, opened 2025-04-28, still open).

How the fake behaves: on every path an ``attachment://`` name must resolve
against the files the message will have after the request: new uploads that
the ``attachments`` array lists (every upload when the array is absent) plus
kept files (existing ones the array lists, all existing ones when it is
absent). discord.py always lists its uploads, so its edits pass.
``FakeDiscord.webhook_media_quirk = True`` reproduces #7529 (webhook edits that
reference a new upload from a media gallery or thumbnail are refused), for
bots that want to test their fallback.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

from .wire import invalid_form

IS_COMPONENTS_V2 = 1 << 15

ACTION_ROW, BUTTON, STRING_SELECT, TEXT_INPUT = 1, 2, 3, 4
USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT = 5, 6, 7, 8
SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER = 9, 10, 11, 12, 13, 14, 17
SELECT_TYPES = frozenset({STRING_SELECT, USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT})
LINK_STYLE, PREMIUM_STYLE = 5, 6

TOP_LEVEL = frozenset({ACTION_ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER})
IN_CONTAINER = frozenset({ACTION_ROW, TEXT_DISPLAY, SECTION, MEDIA_GALLERY, SEPARATOR, FILE})
IN_SECTION = frozenset({TEXT_DISPLAY})
ACCESSORIES = frozenset({BUTTON, THUMBNAIL})

MAX_COMPONENTS = 40
MAX_TEXT = 4000
MAX_GALLERY_ITEMS = 10
MAX_DESCRIPTION = 1024
ATTACHMENT_SCHEME = "attachment://"

_NAMES = {
    ACTION_ROW: "action row", BUTTON: "button", STRING_SELECT: "string select", TEXT_INPUT: "text input",
    USER_SELECT: "user select", ROLE_SELECT: "role select", MENTIONABLE_SELECT: "mentionable select",
    CHANNEL_SELECT: "channel select", SECTION: "section", TEXT_DISPLAY: "text display",
    THUMBNAIL: "thumbnail", MEDIA_GALLERY: "media gallery", FILE: "file", SEPARATOR: "separator",
    CONTAINER: "container",
}


def is_v2(flags: Any) -> bool:
    return bool(int(flags or 0) & IS_COMPONENTS_V2)


def validate_v2(components: Any, attachment_names: Optional[Iterable[str]]) -> None:
    """Check a V2 ``components`` array; raises Discord's 400/50035 on the first broken rule.

    ``attachment_names``: the filenames the message will carry after this
    request (None skips the ``attachment://`` check).
    """
    if not isinstance(components, list):
        raise invalid_form("components: expected an array")
    for index, component in enumerate(components):
        _check_node(component, f"components[{index}]", TOP_LEVEL, "top level")
    every = list(walk(components))
    if len(every) > MAX_COMPONENTS:
        raise invalid_form(f"components: Must be {MAX_COMPONENTS} or fewer in total (got {len(every)}).")
    text = sum(len(c.get("content") or "") for c in every if c.get("type") == TEXT_DISPLAY)
    if text > MAX_TEXT:
        raise invalid_form(f"components: text displays must total {MAX_TEXT} or fewer characters (got {text}).")
    _check_unique(every)
    if attachment_names is not None:
        _check_references(components, set(attachment_names))


def walk(components: list[dict]) -> Iterator[dict]:
    """Every component, depth first, accessories included (what Discord's 40 counts)."""
    for component in components:
        if not isinstance(component, dict):
            continue
        yield component
        yield from walk(component.get("components") or [])
        if isinstance(component.get("accessory"), dict):
            yield component["accessory"]


def attachment_references(components: list[dict]) -> list[tuple[int, str]]:
    """(component type, filename) for every ``attachment://`` media url."""
    found = []
    for component in walk(components):
        for media in _media_of(component):
            url = str(media.get("url") or "")
            if url.startswith(ATTACHMENT_SCHEME):
                found.append((component.get("type"), url[len(ATTACHMENT_SCHEME):]))
    return found


# -- one component ------------------------------------------------------------


def _check_node(component: Any, where: str, allowed: frozenset, place: str) -> None:
    if not isinstance(component, dict):
        raise invalid_form(f"{where}: expected a component object")
    kind = component.get("type")
    if kind not in allowed:
        name = _NAMES.get(kind, f"type {kind!r}")
        raise invalid_form(f"{where}.type: a {name} component is not allowed in the {place}")
    _CHECKS[kind](component, where)


def _container(component: dict, where: str) -> None:
    children = component.get("components") or []
    if not children:
        raise invalid_form(f"{where}.components: a container needs at least one component")
    for index, child in enumerate(children):
        _check_node(child, f"{where}.components[{index}]", IN_CONTAINER, "container")
    color = component.get("accent_color")
    if color is not None and (not isinstance(color, int) or not 0 <= color <= 0xFFFFFF):
        raise invalid_form(f"{where}.accent_color: must be an RGB integer between 0 and 16777215")


def _section(component: dict, where: str) -> None:
    children = component.get("components") or []
    if not 1 <= len(children) <= 3:
        raise invalid_form(f"{where}.components: a section holds 1 to 3 text displays (got {len(children)})")
    for index, child in enumerate(children):
        _check_node(child, f"{where}.components[{index}]", IN_SECTION, "section")
    accessory = component.get("accessory")
    if accessory is None:
        raise invalid_form(f"{where}.accessory: a section needs an accessory (a button or a thumbnail)")
    _check_node(accessory, f"{where}.accessory", ACCESSORIES, "section accessory")


def _action_row(component: dict, where: str) -> None:
    children = component.get("components") or []
    if not 1 <= len(children) <= 5:
        raise invalid_form(f"{where}.components: an action row holds 1 to 5 components")
    kinds = [c.get("type") if isinstance(c, dict) else None for c in children]
    if any(k in SELECT_TYPES for k in kinds) and len(children) > 1:
        raise invalid_form(f"{where}.components: a select menu must be alone in its action row")
    for index, child in enumerate(children):
        _check_node(child, f"{where}.components[{index}]", SELECT_TYPES | {BUTTON}, "action row")


def _button(component: dict, where: str) -> None:
    style = component.get("style")
    if len(component.get("label") or "") > 80:
        raise invalid_form(f"{where}.label: Must be 80 or fewer in length.")
    if style == LINK_STYLE:
        if not component.get("url") or "custom_id" in component:
            raise invalid_form(f"{where}: a link button needs a url and no custom_id")
    elif style != PREMIUM_STYLE:
        _require_custom_id(component, where)


def _select(component: dict, where: str) -> None:
    _require_custom_id(component, where)
    if component.get("type") == STRING_SELECT:
        options = component.get("options") or []
        if not 1 <= len(options) <= 25:
            raise invalid_form(f"{where}.options: a string select holds 1 to 25 options")
        for option in options:
            for key in ("label", "value", "description"):
                if len(option.get(key) or "") > 100:
                    raise invalid_form(f"{where}.options.{key}: Must be 100 or fewer in length.")


def _text_display(component: dict, where: str) -> None:
    if not isinstance(component.get("content"), str) or not component["content"]:
        raise invalid_form(f"{where}.content: a text display needs non-empty content")


def _thumbnail(component: dict, where: str) -> None:
    _check_media(component.get("media"), f"{where}.media")
    _check_description(component, where)


def _media_gallery(component: dict, where: str) -> None:
    items = component.get("items") or []
    if not 1 <= len(items) <= MAX_GALLERY_ITEMS:
        raise invalid_form(f"{where}.items: a media gallery holds 1 to {MAX_GALLERY_ITEMS} items (got {len(items)})")
    for index, item in enumerate(items):
        _check_media(item.get("media") if isinstance(item, dict) else None, f"{where}.items[{index}].media")
        _check_description(item, f"{where}.items[{index}]")


def _file(component: dict, where: str) -> None:
    _check_media(component.get("file"), f"{where}.file")
    if not str(component["file"].get("url")).startswith(ATTACHMENT_SCHEME):
        raise invalid_form(f"{where}.file.url: a file component only accepts attachment://<filename>")


def _separator(component: dict, where: str) -> None:
    if component.get("spacing", 1) not in (1, 2):
        raise invalid_form(f"{where}.spacing: must be 1 (small) or 2 (large)")
    if not isinstance(component.get("divider", True), bool):
        raise invalid_form(f"{where}.divider: must be a boolean")


_CHECKS = {
    CONTAINER: _container, SECTION: _section, ACTION_ROW: _action_row, BUTTON: _button,
    TEXT_DISPLAY: _text_display, THUMBNAIL: _thumbnail, MEDIA_GALLERY: _media_gallery,
    FILE: _file, SEPARATOR: _separator, **{kind: _select for kind in SELECT_TYPES},
}


# -- helpers ------------------------------------------------------------------


def _require_custom_id(component: dict, where: str) -> None:
    custom_id = component.get("custom_id")
    if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= 100:
        raise invalid_form(f"{where}.custom_id: must be 1 to 100 characters")


def _check_media(media: Any, where: str) -> None:
    if not isinstance(media, dict) or not isinstance(media.get("url"), str) or not media["url"]:
        raise invalid_form(f"{where}.url: an unfurled media item needs a url")


def _check_description(holder: dict, where: str) -> None:
    if len(holder.get("description") or "") > MAX_DESCRIPTION:
        raise invalid_form(f"{where}.description: Must be {MAX_DESCRIPTION} or fewer in length.")


def _check_unique(every: list[dict]) -> None:
    custom_ids: set[str] = set()
    ids: set[int] = set()
    for component in every:
        custom_id = component.get("custom_id")
        if custom_id is not None:
            if custom_id in custom_ids:
                raise invalid_form(f"components: custom_id {custom_id!r} is used twice in the message")
            custom_ids.add(custom_id)
        ident = component.get("id")
        if ident in (None, 0):  # 0 means "let Discord number it"
            continue
        if not isinstance(ident, int) or not 0 < ident < 2 ** 31:
            raise invalid_form(f"components: id {ident!r} must be a 32-bit integer")
        if ident in ids:
            raise invalid_form(f"components: id {ident} is used twice in the message")
        ids.add(ident)


def _check_references(components: list[dict], names: set[str]) -> None:
    for kind, name in attachment_references(components):
        if name not in names:
            raise invalid_form(
                f"components: {_NAMES.get(kind, kind)} media attachment://{name} names no attachment of the message")


def _media_of(component: dict) -> Iterator[dict]:
    kind = component.get("type")
    if kind == THUMBNAIL and isinstance(component.get("media"), dict):
        yield component["media"]
    elif kind == FILE and isinstance(component.get("file"), dict):
        yield component["file"]
    elif kind == MEDIA_GALLERY:
        for item in component.get("items") or []:
            if isinstance(item, dict) and isinstance(item.get("media"), dict):
                yield item["media"]
