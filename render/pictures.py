"""The three pictures the bot sends: a hand, the play on the table, the final hands.

Each picture is a dark-green felt (it reads well in Discord's dark and light
themes alike) with cached card sprites pasted on it, encoded as JPEG.  All
sizes are fixed by the number of cards or rows, never by the selection, so an
updated hand picture does not jump around in the message.
"""

from __future__ import annotations

import io
import math
from functools import lru_cache
from typing import Collection, Sequence

from PIL import Image, ImageDraw

from tienlen.cards import Card

from .faces import LARGE, SMALL, CardGeometry, Look, card_sprite
from .text import FONT_LOCK, draw_text, font, text_width, wrap_text

__all__ = [
    "warm_up",
    "render_hand",
    "render_play",
    "render_final_hands",
    "hand_size",
    "MAX_WIDTH",
    "MARGIN",
    "RAISE",
]

FELT = (21, 94, 58)
_FELT_EDGE = (11, 58, 35)  # vignette colour at the corners
_LABEL_TEXT = (232, 242, 235)
_LABEL_DIM_TEXT = (150, 175, 160)
_LABEL_PILL = (8, 48, 28)
_SELECTED_PILL = (255, 201, 40)
_SELECTED_TEXT = (40, 30, 0)
_NAME_TEXT = (245, 248, 246)
_MUTED_TEXT = (160, 196, 176)
_DIVIDER = (38, 118, 76)
_SLOT_FILL = (14, 72, 43)

MARGIN = 14
RAISE = 18  # how far a selected card rises; always reserved so sizes never change
MAX_WIDTH = 820  # 13 fanned cards; Discord scales images to ~400 px on phones
_LABEL_SIZE = 24
_LABEL_HEIGHT = 30
_LABEL_GAP = 6
_CAPTION_SIZE = 26
_CAPTION_HEIGHT = 40
_PLAY_GAP = 10
_NAME_SIZE = 24
_NAME_LINE = 30
_COUNT_SIZE = 22
_NAME_COLUMN = 290
_ROW_GAP = 14
# Fast zlib level: the felt compresses well anyway, and encoding dominates
# the render time (see bench/bench_render.py).
# JPEG at quality 90 without chroma subsampling keeps card text crisp and encodes
# about ten times faster than PNG at a similar size (~5 ms → ~0.5 ms per hand);
# encoding dominated the bot's CPU under load.
_ENCODE_OPTIONS = {"format": "JPEG", "quality": 90, "subsampling": 0}
EXTENSION = "jpg"


# --- shared pieces ---------------------------------------------------------

@lru_cache(maxsize=64)
def _felt(size: tuple[int, int]) -> Image.Image:
    """Felt of the given size, lighter in the middle; cached per size."""
    shade = Image.radial_gradient("L").resize(size, Image.Resampling.BILINEAR)
    # radial_gradient is 0 in the centre, 255 at the rim: darken towards the rim only.
    shade = shade.point(lambda value: min(255, max(0, (value - 96) * 2)))
    return Image.composite(Image.new("RGB", size, _FELT_EDGE), Image.new("RGB", size, FELT), shade)


def _canvas(width: int, height: int) -> Image.Image:
    return _felt((width, height)).copy()


def _paste(canvas: Image.Image, sprite: Image.Image, card_xy: tuple[int, int],
           geometry: CardGeometry) -> None:
    """Paste a card sprite so that the card itself lands at ``card_xy``."""
    canvas.paste(sprite, (card_xy[0] - geometry.pad, card_xy[1] - geometry.pad), sprite)


def _encode(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, **_ENCODE_OPTIONS)
    return buffer.getvalue()


def _sorted_unique(cards: Sequence[Card]) -> list[Card]:
    ordered = sorted(cards)
    for low, high in zip(ordered, ordered[1:]):
        if low is high:
            raise ValueError(f"card given twice: {low.code}")
    return ordered


def _row_width(count: int, step: int, geometry: CardGeometry) -> int:
    return 0 if count == 0 else (count - 1) * step + geometry.width


def warm_up() -> None:
    """Draw every cached piece now (under 0.1 s), e.g. at bot start-up,
    so that no player waits for a first-time card sprite."""
    for index in range(52):
        card = Card.from_index(index)
        for look in Look:
            card_sprite(card, LARGE, look)
        card_sprite(card, SMALL)
    for number in range(1, 14):
        for look in Look:
            _label(number, look)
    render_final_hands([("Nguyễn", [])])  # loads the fonts


# --- hand ------------------------------------------------------------------

@lru_cache(maxsize=13 * 3 * 2)
def _label(number: int, look: Look) -> Image.Image:
    """The small numbered pill under a card, matching the select menu order."""
    width = LARGE.strip - 8
    image = Image.new("RGBA", (width, _LABEL_HEIGHT), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    pill, ink = {
        Look.NORMAL: (_LABEL_PILL, _LABEL_TEXT),
        Look.DIMMED: (_LABEL_PILL, _LABEL_DIM_TEXT),
        Look.SELECTED: (_SELECTED_PILL, _SELECTED_TEXT),
    }[look]
    draw.rounded_rectangle([0, 0, width - 1, _LABEL_HEIGHT - 1], _LABEL_HEIGHT // 2, fill=pill)
    with FONT_LOCK:
        draw.text((width / 2, _LABEL_HEIGHT / 2), str(number), font=font(_LABEL_SIZE),
                  fill=ink, anchor="mm")
    return image


def _look(card: Card, selected: Collection[Card], playable: Collection[Card] | None) -> Look:
    if card in selected:
        return Look.SELECTED
    if playable is not None and card not in playable:
        return Look.DIMMED
    return Look.NORMAL


def hand_size(count: int) -> tuple[int, int]:
    """Width and height in px of the picture of a hand of ``count`` (≥ 1) cards."""
    width = 2 * MARGIN + _row_width(count, LARGE.strip, LARGE)
    return width, MARGIN + RAISE + LARGE.height + _LABEL_GAP + _LABEL_HEIGHT + MARGIN


def render_hand(
    cards: Sequence[Card],
    *,
    selected: Collection[Card] = (),
    playable: Collection[Card] | None = None,
) -> bytes:
    """PNG of a hand, lowest card first, fanned, numbered 1..n under each card.

    ``selected`` cards are raised with a gold outline (and a gold number);
    when ``playable`` is given, the other cards are dimmed (but a selected
    card is always shown selected).  The picture's
    size depends only on the number of cards.  An empty hand gives a small
    felt with a dash.
    """
    hand = _sorted_unique(cards)
    if not hand:
        return _encode(_empty_picture())
    g, step = LARGE, LARGE.strip
    card_top = MARGIN + RAISE
    label_top = card_top + g.height + _LABEL_GAP
    canvas = _canvas(*hand_size(len(hand)))
    for position, card in enumerate(hand):
        look = _look(card, selected, playable)
        x = MARGIN + position * step
        y = card_top - RAISE if look is Look.SELECTED else card_top
        _paste(canvas, card_sprite(card, g, look), (x, y), g)
        label = _label(position + 1, look)
        canvas.paste(label, (x + g.index_center_x - label.width // 2, label_top), label)
    return _encode(canvas)


def _empty_picture() -> Image.Image:
    canvas = _canvas(LARGE.width + 2 * MARGIN, LARGE.height // 2)
    draw_text(ImageDraw.Draw(canvas), (canvas.width / 2, canvas.height * 0.62), "—",
              40, _MUTED_TEXT, anchor="ms")
    return canvas


# --- play on the table -----------------------------------------------------

def render_play(cards: Sequence[Card], *, caption: str | None = None) -> bytes:
    """PNG of a play (1 or more cards, shown lowest first) on the felt.

    Cards are spread apart when there is room and fanned like a hand when
    there is not.  ``caption`` (any text, e.g. who played and the combo name)
    is written above, cut with "…" if too long.
    """
    play = _sorted_unique(cards)
    if not play:
        raise ValueError("a play has at least one card")
    g = LARGE
    room = MAX_WIDTH - 2 * MARGIN - g.width
    step = g.width + _PLAY_GAP if len(play) == 1 else max(
        g.strip, min(g.width + _PLAY_GAP, room // (len(play) - 1)))
    cards_width = _row_width(len(play), step, g)
    width = cards_width + 2 * MARGIN
    caption_height = _CAPTION_HEIGHT if caption else 0
    if caption:
        width = max(width, min(MAX_WIDTH, math.ceil(text_width(caption, _CAPTION_SIZE)) + 2 * MARGIN + 2))
    canvas = _canvas(width, MARGIN + caption_height + g.height + MARGIN)
    if caption:
        draw_text(ImageDraw.Draw(canvas), (width / 2, MARGIN + _CAPTION_SIZE), caption,
                  _CAPTION_SIZE, _NAME_TEXT, max_width=width - 2 * MARGIN, anchor="ms")
    left = (width - cards_width) // 2
    for position, card in enumerate(play):
        _paste(canvas, card_sprite(card, g), (left + position * step, MARGIN + caption_height), g)
    return _encode(canvas)


# --- end of game -----------------------------------------------------------

@lru_cache(maxsize=1)
def _card_back_icon() -> Image.Image:
    """A tiny face-down card, shown next to the number of cards left."""
    icon = Image.new("RGBA", (16, 22), (0, 0, 0, 0))
    draw = ImageDraw.Draw(icon)
    draw.rounded_rectangle([0, 0, 15, 21], 3, fill=(250, 250, 250, 255))
    draw.rounded_rectangle([2, 2, 13, 19], 2, fill=(178, 34, 52, 255))
    return icon


def _draw_player(canvas: Image.Image, top: int, name: str, count: int) -> None:
    """Name (up to two lines) and "▮ count" in the left column of a row."""
    draw = ImageDraw.Draw(canvas)
    baseline = top + _NAME_SIZE + 6
    for line in wrap_text(name, _NAME_SIZE, _NAME_COLUMN - MARGIN - 12):
        draw_text(draw, (MARGIN, baseline), line, _NAME_SIZE, _NAME_TEXT)
        baseline += _NAME_LINE
    icon = _card_back_icon()
    baseline += 6
    canvas.paste(icon, (MARGIN, baseline - icon.height + 2), icon)
    draw_text(draw, (MARGIN + icon.width + 8, baseline), str(count), _COUNT_SIZE, _MUTED_TEXT)


def _draw_remaining(canvas: Image.Image, top: int, cards: list[Card]) -> None:
    """The player's cards, or an empty card-shaped slot with a dash."""
    g = SMALL
    if not cards:
        draw = ImageDraw.Draw(canvas)
        slot = [_NAME_COLUMN, top, _NAME_COLUMN + g.width - 1, top + g.height - 1]
        draw.rounded_rectangle(slot, g.radius, fill=_SLOT_FILL, outline=_DIVIDER, width=2)
        draw_text(draw, (_NAME_COLUMN + g.width / 2, top + g.height / 2 + 12), "—",
                  36, _MUTED_TEXT, anchor="ms")
        return
    for position, card in enumerate(cards):
        _paste(canvas, card_sprite(card, g), (_NAME_COLUMN + position * g.strip, top), g)


def render_final_hands(rows: Sequence[tuple[str, Sequence[Card]]]) -> bytes:
    """PNG of everyone's remaining cards at the end of a game, one row per player.

    Each row shows the player's name (any Unicode; missing glyphs fall back,
    long names are cut with "…"), how many cards they kept, and the cards,
    or a dash for a player who went out.
    """
    if not rows:
        raise ValueError("no players to show")
    hands = [(name, _sorted_unique(cards)) for name, cards in rows]
    g = SMALL
    row_height = g.height + _ROW_GAP
    width = _NAME_COLUMN + _row_width(13, g.strip, g) + MARGIN
    widest = max(_row_width(len(cards), g.strip, g) for _, cards in hands)
    width = max(width, _NAME_COLUMN + widest + MARGIN)  # more than 13 cards is unusual but fine
    canvas = _canvas(width, 2 * MARGIN + len(hands) * row_height - _ROW_GAP)
    draw = ImageDraw.Draw(canvas)
    for number, (name, cards) in enumerate(hands):
        top = MARGIN + number * row_height
        if number:
            divider_y = top - _ROW_GAP // 2
            draw.line([(MARGIN, divider_y), (width - MARGIN, divider_y)], fill=_DIVIDER, width=1)
        _draw_player(canvas, top, name, len(cards))
        _draw_remaining(canvas, top, cards)
    return _encode(canvas)
