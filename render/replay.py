"""One step of a finished game's replay: the caption, the play on top, every seat's cards.

The picture is laid out like :func:`render.pictures.render_final_hands` (the
same name column, SMALL cards and dividers) under a caption and a table area
holding the play to beat.  Its size depends only on the number of seats, so
stepping through a replay never makes the message jump.  It draws exactly
the cards it is given: the caller relies on that to never show a card that
was not dealt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from PIL import Image, ImageDraw

from tienlen.cards import Card

from .faces import LARGE, SMALL, card_sprite
from .pictures import (
    _CAPTION_HEIGHT,
    _CAPTION_SIZE,
    _DIVIDER,
    _LABEL_PILL,
    _MUTED_TEXT,
    _NAME_COLUMN,
    _NAME_TEXT,
    _PLAY_GAP,
    _ROW_GAP,
    _SELECTED_PILL,
    _SLOT_FILL,
    MARGIN,
    _canvas,
    _draw_player,
    _draw_remaining,
    _encode,
    _paste,
    _row_width,
    _sorted_unique,
)
from .text import draw_text, fit_text, text_width

__all__ = ["ReplaySeat", "render_replay_step", "replay_size", "MAX_SEATS", "MIN_SEATS"]

MIN_SEATS = 2
MAX_SEATS = 4
_HAND_CARDS = 13  # a seat never holds more: the width is set by this
_TABLE_PAD = 12  # felt between the table area's edge and the cards on it
_TABLE_FILL = (16, 80, 48)  # a shade darker than the felt, lighter than the empty slot
_STATUS_SIZE = 18
_STATUS_HEIGHT = 26
_STATUS_RIGHT = _NAME_COLUMN - 14  # right end of the status pill, clear of the cards
_STATUS_LEFT = MARGIN + 70  # leaves the "▮ 13" count its room
_STATUS_TEXT = (214, 232, 221)
_ACTING_RING = _SELECTED_PILL
_ACTING_BAR = 5


@dataclass(frozen=True)
class ReplaySeat:
    """One seat at one step of a replay."""

    name: str  # the player's name (any Unicode)
    cards: Sequence[Card]  # their remaining cards at this step (may be empty)
    status: str = ""  # short translated status under the name ("passed", "1st", "out"), or ""
    acting: bool = False  # this seat made this step's move: its row is outlined in gold


def _width() -> int:
    return _NAME_COLUMN + _row_width(_HAND_CARDS, SMALL.strip, SMALL) + MARGIN


def _table_top() -> int:
    return MARGIN + _CAPTION_HEIGHT


def _rows_top() -> int:
    return _table_top() + LARGE.height + 2 * _TABLE_PAD + _ROW_GAP


def replay_size(seats: int) -> tuple[int, int]:
    """Width and height in px of a replay step picture for ``seats`` (2..4) seats."""
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"a replay has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
    row_height = SMALL.height + _ROW_GAP
    return _width(), _rows_top() + seats * row_height - _ROW_GAP + MARGIN


def _checked(seats: Sequence[ReplaySeat], top: Sequence[Card] | None
             ) -> tuple[list[list[Card]], list[Card]]:
    """Each seat's cards and the top play, sorted; a card shown twice is a caller bug."""
    hands = [_sorted_unique(seat.cards) for seat in seats]
    play = _sorted_unique(top or ())
    for hand in hands:
        if len(hand) > _HAND_CARDS:
            raise ValueError(f"a seat holds at most {_HAND_CARDS} cards, not {len(hand)}")
    _sorted_unique([card for hand in hands for card in hand] + play)  # no card in two places
    return hands, play


def _draw_table(canvas: Image.Image, play: list[Card]) -> None:
    """The play to beat, centred on a darker table area; an empty slot starts a new round."""
    draw = ImageDraw.Draw(canvas)
    top = _table_top()
    area = [MARGIN, top, canvas.width - MARGIN - 1, top + LARGE.height + 2 * _TABLE_PAD - 1]
    draw.rounded_rectangle(area, 14, fill=_TABLE_FILL, outline=_DIVIDER, width=1)
    g, card_top = LARGE, top + _TABLE_PAD
    if not play:
        left = (canvas.width - g.width) // 2
        slot = [left, card_top, left + g.width - 1, card_top + g.height - 1]
        draw.rounded_rectangle(slot, g.radius, fill=_SLOT_FILL, outline=_DIVIDER, width=2)
        draw_text(draw, (left + g.width / 2, card_top + g.height / 2 + 14), "—", 44,
                  _MUTED_TEXT, anchor="ms")
        return
    # Spread apart when there is room, fanned (down to any overlap) when not,
    # so even an odd 13-card play stays inside the fixed width.
    room = area[2] - area[0] - 2 * _TABLE_PAD - g.width
    step = g.width + _PLAY_GAP if len(play) == 1 else min(g.width + _PLAY_GAP, room // (len(play) - 1))
    left = (canvas.width - _row_width(len(play), step, g)) // 2
    for position, card in enumerate(play):
        _paste(canvas, card_sprite(card, g), (left + position * step, card_top), g)


def _draw_status(draw: ImageDraw.ImageDraw, top: int, status: str) -> None:
    """A pill at the bottom right of the name column, in the same place on every row."""
    text = fit_text(status, _STATUS_SIZE, _STATUS_RIGHT - _STATUS_LEFT - 20)
    if not text:
        return
    width = text_width(text, _STATUS_SIZE) + 20
    bottom = top + SMALL.height
    box = [_STATUS_RIGHT - width, bottom - _STATUS_HEIGHT, _STATUS_RIGHT, bottom]
    draw.rounded_rectangle(box, _STATUS_HEIGHT // 2, fill=_LABEL_PILL)
    draw_text(draw, ((box[0] + box[2]) / 2, bottom - 7), text, _STATUS_SIZE, _STATUS_TEXT,
              anchor="ms")


def _draw_acting(draw: ImageDraw.ImageDraw, top: int, width: int) -> None:
    """Gold outline around the row of the seat that moved, with a bar on its left."""
    half_gap = _ROW_GAP // 2
    box = [MARGIN // 2, top - half_gap + 1, width - MARGIN // 2 - 1, top + SMALL.height + half_gap - 1]
    draw.rounded_rectangle(box, 10, outline=_ACTING_RING, width=2)
    draw.rounded_rectangle([box[0], box[1] + 14, box[0] + _ACTING_BAR, box[3] - 14], 2,
                           fill=_ACTING_RING)


def render_replay_step(
    seats: Sequence[ReplaySeat],
    *,
    top: Sequence[Card] | None,
    caption: str,
) -> bytes:
    """JPEG of one replay step: ``caption`` on top, the play ``top`` to beat, one row per seat.

    ``top`` is ``None`` (or empty) at the start of a round: an empty slot is
    drawn.  Each row shows the seat's name (any Unicode, cut with "…"), its
    number of cards, its ``status`` in a pill and its cards (a dash when
    none); the acting seat's row is outlined in gold.  The size depends only
    on ``len(seats)`` (see :func:`replay_size`).  Exactly the given cards are
    drawn; a card given twice (in two hands, or in a hand and on top) raises
    ``ValueError``.
    """
    width, height = replay_size(len(seats))
    hands, play = _checked(seats, top)
    canvas = _canvas(width, height)
    draw = ImageDraw.Draw(canvas)
    draw_text(draw, (width / 2, MARGIN + _CAPTION_SIZE), caption, _CAPTION_SIZE, _NAME_TEXT,
              max_width=width - 2 * MARGIN, anchor="ms")
    _draw_table(canvas, play)
    row_height = SMALL.height + _ROW_GAP
    for number, (seat, cards) in enumerate(zip(seats, hands)):
        row_top = _rows_top() + number * row_height
        if number:
            divider_y = row_top - _ROW_GAP // 2
            draw.line([(MARGIN, divider_y), (width - MARGIN, divider_y)], fill=_DIVIDER, width=1)
        _draw_player(canvas, row_top, seat.name, len(cards))
        _draw_status(draw, row_top, seat.status)
        _draw_remaining(canvas, row_top, cards)
    for number, seat in enumerate(seats):
        if seat.acting:  # last, so no divider crosses the outline
            _draw_acting(draw, _rows_top() + number * row_height, width)
    return _encode(canvas)
