"""The one look of every surface: a Components V2 container with an accent colour.

Every layout is a :class:`discord.ui.LayoutView` holding one
:class:`discord.ui.Container`: a heading, blocks of text ("**Title**" then
lines), a picture in a media gallery, a small footer, and rows of buttons.
The helpers here build those pieces the same way everywhere, and
:func:`panel` checks the whole against Discord's documented limits (at most
40 components, at most 4,000 characters of text), shortening the longest
block rather than letting Discord refuse the message.

>>> view = panel(accent_for("mien-nam"), [heading("Hi"), block("Seats", "An\\nBình")])
>>> text_length(view), component_count(view)
(22, 3)
>>> block_lines(view, "Seats")
['An', 'Bình']
"""

from __future__ import annotations

from typing import Iterable, Iterator

import discord
from discord import ui

__all__ = ["ACCENTS", "GOLD", "accent_for", "panel", "heading", "block", "text", "footer", "picture", "button",
           "row", "MAX_COMPONENTS", "MAX_TEXT", "text_length", "component_count", "walk", "texts", "blocks", "block_lines"]

MAX_COMPONENTS = 40
"""Discord's limit on a V2 message's components, nested ones included."""
MAX_TEXT = 4000
"""Discord's limit on the characters of all a V2 message's text displays together."""

ACCENTS = {
    "mien-nam": discord.Colour.from_rgb(27, 94, 55),  # felt green
    "iwin": discord.Colour.from_rgb(38, 84, 160),  # the app's blue
    "mien-bac": discord.Colour.from_rgb(150, 36, 42),  # lacquer red
}
GOLD = discord.Colour.from_rgb(230, 180, 40)
"""Results: end-of-game summaries, a replay's last step."""


def accent_for(rules_name: str | None) -> discord.Colour:
    """The accent colour of a rule set (felt green for anything else)."""
    return ACCENTS.get(rules_name or "", ACCENTS["mien-nam"])


def heading(title: str, *lines: str) -> ui.TextDisplay:
    """The title of a surface, with lines under it."""
    return ui.TextDisplay("\n".join([f"## {title}", *[line for line in lines if line]]))


def block(title: str, body: str) -> ui.TextDisplay:
    """A titled block of text: "**Title**" then the body (what an embed field was)."""
    return ui.TextDisplay(f"**{title}**\n{body}")


def text(body: str) -> ui.TextDisplay:
    return ui.TextDisplay(body)


def footer(body: str) -> ui.TextDisplay:
    """Small grey text at the bottom."""
    return ui.TextDisplay(f"-# {body}")


def picture(filename: str, description: str | None = None) -> ui.MediaGallery:
    """The attached picture ``filename`` (uploaded with the same message)."""
    return ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{filename}", description=description))


def button(custom_id: str, label: str | None, style: discord.ButtonStyle = discord.ButtonStyle.secondary, *,
           emoji: str | None = None, disabled: bool = False) -> ui.Button:
    return ui.Button(label=label, style=style, emoji=emoji, disabled=disabled, custom_id=custom_id)


def row(*items: ui.Item) -> ui.ActionRow:
    return ui.ActionRow(*items)


def panel(accent: discord.Colour, items: Iterable[ui.Item | None]) -> ui.LayoutView:
    """One container of ``items`` (None are left out), fitted to Discord's limits."""
    view = ui.LayoutView(timeout=None)
    view.add_item(ui.Container(*[item for item in items if item is not None], accent_colour=accent))
    components = list(walk(view))
    if len(components) > MAX_COMPONENTS:  # a layout bug, not a user's input: fail loudly in tests
        raise ValueError(f"{len(components)} components; Discord allows {MAX_COMPONENTS}")
    _fit_text([item for item in components if isinstance(item, ui.TextDisplay)])
    # Every component is answered by the bot's DynamicItems (cogs/components.py), never by the view: a stopped
    # view is not kept in discord.py's view store after it is sent, so its tree (whose items point back at it)
    # is freed young instead of piling up for full garbage collections (BENCHMARKS.md, the Activity's tail).
    view.stop()
    return view


# ------------------------------------------------------------ reading a view
def walk(view: ui.LayoutView) -> Iterator[ui.Item]:
    """Every component of ``view``, nested ones and a section's accessory included."""
    return view.walk_children()


def texts(view: ui.LayoutView) -> list[ui.TextDisplay]:
    return [item for item in walk(view) if isinstance(item, ui.TextDisplay)]


def text_length(view: ui.LayoutView) -> int:
    return sum(len(item.content) for item in texts(view))


def component_count(view: ui.LayoutView) -> int:
    return sum(1 for _ in walk(view))


def blocks(view: ui.LayoutView) -> list[tuple[str, list[str]]]:
    """Every titled block of ``view`` (a ``**title**`` line, then its lines), in order."""
    found = []
    for item in texts(view):
        first, _, rest = item.content.partition("\n")
        if len(first) > 4 and first.startswith("**") and first.endswith("**"):
            found.append((first[2:-2], rest.splitlines()))
    return found


def block_lines(view: ui.LayoutView, title: str) -> list[str] | None:
    """The lines of the block titled ``title`` (None: no such block)."""
    return next((lines for found, lines in blocks(view) if found == title), None)


def _fit_text(displays: list[ui.TextDisplay]) -> None:
    """Shorten the longest text blocks until all the text fits in MAX_TEXT."""
    over = sum(len(item.content) for item in displays) - MAX_TEXT
    while over > 0:
        longest = max(displays, key=lambda item: len(item.content))
        keep = max(len(longest.content) - over - 1, 0)
        longest.content = longest.content[:keep] + "…"
        over = sum(len(item.content) for item in displays) - MAX_TEXT
