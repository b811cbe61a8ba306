"""Suit symbols (♠ ♣ ♦ ♥) drawn as vector shapes, cached as alpha masks.

Fonts are not trusted to contain the suit glyphs (Pillow's bundled font does
not), so each suit is described as polygons and ellipses in a unit square,
drawn 4× larger than needed and scaled down, which gives smooth anti-aliased
edges without any font.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from tienlen.cards import Suit

__all__ = ["suit_mask"]

# Drawing at 4x and shrinking is what anti-aliases the polygon edges.
_SUPERSAMPLE = 4
_CURVE_POINTS = 96

Point = tuple[float, float]


def _heart_outline(top: float, bottom: float, point_up: bool = False) -> list[Point]:
    """The classic parametric heart, fitted to the full width and [top, bottom]."""
    raw = []
    for step in range(_CURVE_POINTS):
        t = 2 * math.pi * step / _CURVE_POINTS
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        raw.append((x, y))
    min_y = min(y for _, y in raw)
    max_y = max(y for _, y in raw)
    outline = []
    for x, y in raw:
        unit_x = 0.5 + x / 34  # 34 rather than 32 leaves a hair of margin for anti-aliasing
        unit_y = (max_y - y) / (max_y - min_y)  # 0 at the lobes, 1 at the point
        if point_up:
            unit_y = 1 - unit_y
        outline.append((unit_x, top + unit_y * (bottom - top)))
    return outline


def _diamond_outline() -> list[Point]:
    """A rhombus whose sides bow slightly inwards, like printed diamonds."""
    corners = [(0.5, 0.02), (0.88, 0.5), (0.5, 0.98), (0.12, 0.5)]
    outline: list[Point] = []
    for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1]):
        # Quadratic Bézier pulled towards the centre makes the concave side.
        cx, cy = (x0 + x1) / 2 * 0.88 + 0.5 * 0.12, (y0 + y1) / 2 * 0.88 + 0.5 * 0.12
        for step in range(16):
            t = step / 16
            outline.append((
                (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t ** 2 * x1,
                (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t ** 2 * y1,
            ))
    return outline


def _stem(top: float) -> list[Point]:
    """The flared foot shared by spades and clubs."""
    return [(0.5, top), (0.66, 0.98), (0.34, 0.98)]


def _draw_unit_shape(draw: ImageDraw.ImageDraw, suit: Suit, size: int) -> None:
    def scaled(points: list[Point]) -> list[Point]:
        return [(x * size, y * size) for x, y in points]

    def circle(cx: float, cy: float, radius: float) -> None:
        draw.ellipse([(cx - radius) * size, (cy - radius) * size,
                      (cx + radius) * size, (cy + radius) * size], fill=255)

    if suit is Suit.HEARTS:
        draw.polygon(scaled(_heart_outline(0.06, 0.94)), fill=255)
    elif suit is Suit.DIAMONDS:
        draw.polygon(scaled(_diamond_outline()), fill=255)
    elif suit is Suit.SPADES:
        draw.polygon(scaled(_heart_outline(0.02, 0.76, point_up=True)), fill=255)
        draw.polygon(scaled(_stem(0.55)), fill=255)
    else:  # clubs
        circle(0.5, 0.26, 0.22)
        circle(0.27, 0.56, 0.22)
        circle(0.73, 0.56, 0.22)
        draw.polygon(scaled([(0.5, 0.3), (0.36, 0.6), (0.64, 0.6)]), fill=255)  # fills the gap
        draw.polygon(scaled(_stem(0.5)), fill=255)


@lru_cache(maxsize=64)
def suit_mask(suit: Suit, size: int) -> Image.Image:
    """An ``L`` mask ``size``×``size`` px: 255 inside the suit shape, 0 outside.

    The returned image is shared by the cache: paste it, never modify it.
    """
    big = Image.new("L", (size * _SUPERSAMPLE, size * _SUPERSAMPLE), 0)
    _draw_unit_shape(ImageDraw.Draw(big), Suit(suit), size * _SUPERSAMPLE)
    return big.resize((size, size), Image.Resampling.LANCZOS)
