"""Card faces: one cached RGBA sprite per card, size and look (normal, dimmed, selected).

A sprite is the rounded white card plus a soft drop shadow around it, so a
picture is put together by pasting sprites onto the felt.  Cards in a row
overlap, leaving only a strip of :attr:`CardGeometry.strip` px of each card
visible, so everything needed to tell cards apart (rank over suit) sits in
that left strip; the big suit pip sits bottom-right, seen on uncovered cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter

from tienlen.cards import Card, Rank

from .suits import suit_mask
from .text import FONT_LOCK, font

__all__ = ["CardGeometry", "Look", "LARGE", "SMALL", "card_sprite", "RED", "BLACK"]

RED = (214, 32, 48)
BLACK = (22, 24, 28)
_CARD_WHITE = (255, 255, 255, 255)
_FACE_TINT = (255, 244, 214, 255)  # cream panel that marks J, Q, K
_BORDER = (150, 158, 166, 255)
_SELECTED_RING = (255, 201, 40, 255)
_DIM_TO = (96, 110, 104)  # greyish felt: dimmed cards sink into the table
_DIM_AMOUNT = 0.3
_SHADOW_ALPHA = 110


@dataclass(frozen=True)
class CardGeometry:
    """Every measurement of a card, derived from its width (5:7 cards)."""

    width: int

    @property
    def height(self) -> int:
        return round(self.width * 1.4)

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    def px(self, fraction: float) -> int:
        """A length given as a fraction of the card width."""
        return round(self.width * fraction)

    @property
    def strip(self) -> int:
        """Visible width of a card partly covered by the next one."""
        return self.px(0.47)

    @property
    def radius(self) -> int:
        return self.px(0.09)

    @property
    def pad(self) -> int:
        """Room around the card in its sprite for the shadow and selection ring."""
        return self.px(0.07)

    @property
    def index_top(self) -> int:
        """Top of the rank in the corner index."""
        return self.px(0.07)

    @property
    def index_center_x(self) -> int:
        return self.px(0.235)

    @property
    def rank_size(self) -> int:
        return self.px(0.35)

    @property
    def corner_suit_size(self) -> int:
        return self.px(0.27)

    @property
    def pip_size(self) -> int:
        return self.px(0.46)


LARGE = CardGeometry(120)  # hands and plays
SMALL = CardGeometry(84)  # end-of-game rows, several players per picture


class Look(Enum):
    """How a card is drawn in a hand."""

    NORMAL = "normal"
    DIMMED = "dimmed"  # not playable right now
    SELECTED = "selected"


def _ink(card: Card) -> tuple[int, int, int]:
    return RED if card.suit.is_red else BLACK


def _draw_rank(draw: ImageDraw.ImageDraw, card: Card, geometry: CardGeometry) -> None:
    """The rank, centred in the corner strip; "10" is set tight to fit it."""
    label = card.rank.label
    size = geometry.rank_size if len(label) == 1 else round(geometry.rank_size * 0.9)
    face = font(size)
    tracking = -size * 0.1 if len(label) > 1 else 0
    with FONT_LOCK:
        widths = [face.getlength(char) for char in label]
        x = geometry.index_center_x - (sum(widths) + tracking * (len(label) - 1)) / 2
        baseline = geometry.index_top + geometry.rank_size * 0.76
        for char, width in zip(label, widths):
            draw.text((x, baseline), char, font=face, fill=_ink(card), anchor="ls")
            x += width + tracking


def _paste_suit(image: Image.Image, card: Card, size: int, center: tuple[int, int]) -> None:
    mask = suit_mask(card.suit, size)
    image.paste(_ink(card), (center[0] - size // 2, center[1] - size // 2), mask)


def _draw_face(card: Card, geometry: CardGeometry) -> Image.Image:
    """The bare card (no shadow), RGBA with transparent rounded corners."""
    g = geometry
    image = Image.new("RGBA", g.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    border = max(1, g.px(0.012))
    draw.rounded_rectangle([0, 0, g.width - 1, g.height - 1], g.radius,
                           fill=_CARD_WHITE, outline=_BORDER, width=border)
    # The big pip is right of the strip: in a fanned row only the last card shows it.
    pip_center = ((g.strip + g.width) // 2, round(g.height * 0.6))
    if card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        inset = g.px(0.07)
        # Starts a little right of the strip so it stays hidden under the next card.
        draw.rounded_rectangle([g.strip + g.px(0.04), inset, g.width - inset, g.height - inset],
                               g.radius // 2, fill=_FACE_TINT,
                               outline=_ink(card) + (255,), width=border)
    _draw_rank(draw, card, g)
    corner_suit_y = g.index_top + g.rank_size + g.px(0.03) + g.corner_suit_size // 2
    _paste_suit(image, card, g.corner_suit_size, (g.index_center_x, corner_suit_y))
    _paste_suit(image, card, g.pip_size, pip_center)
    return image


@lru_cache(maxsize=8)
def _shadow(geometry: CardGeometry) -> Image.Image:
    """Soft shadow under a card, shared by all cards of that size."""
    g = geometry
    sprite = Image.new("RGBA", (g.width + 2 * g.pad, g.height + 2 * g.pad), (0, 0, 0, 0))
    alpha = Image.new("L", sprite.size, 0)
    offset = max(1, g.px(0.02))
    ImageDraw.Draw(alpha).rounded_rectangle(
        [g.pad + offset // 2, g.pad + offset, g.pad + g.width - 1, g.pad + g.height - 1 + offset],
        g.radius, fill=_SHADOW_ALPHA)
    sprite.putalpha(alpha.filter(ImageFilter.GaussianBlur(g.px(0.03))))
    return sprite


def _dim(face: Image.Image) -> Image.Image:
    grey = Image.new("RGBA", face.size, _DIM_TO + (255,))
    dimmed = Image.blend(face, grey, _DIM_AMOUNT)
    dimmed.putalpha(face.getchannel("A"))
    return dimmed


def _ring(sprite: Image.Image, geometry: CardGeometry) -> None:
    """A gold outline just outside the card edge, for selected cards."""
    g = geometry
    width = max(2, g.px(0.035))
    ImageDraw.Draw(sprite).rounded_rectangle(
        [g.pad - width, g.pad - width, g.pad + g.width - 1 + width, g.pad + g.height - 1 + width],
        g.radius + width, outline=_SELECTED_RING, width=width)


@lru_cache(maxsize=52 * 3 * 2)
def card_sprite(card: Card, geometry: CardGeometry = LARGE, look: Look = Look.NORMAL) -> Image.Image:
    """The card with its shadow, ``geometry.pad`` px larger on every side.

    Cached per process (52 cards × 3 looks × 2 sizes); the image is shared:
    paste it, never modify it.
    """
    face = _draw_face(card, geometry)
    if look is Look.DIMMED:
        face = _dim(face)
    sprite = _shadow(geometry).copy()
    sprite.alpha_composite(face, (geometry.pad, geometry.pad))
    if look is Look.SELECTED:
        _ring(sprite, geometry)
    return sprite
