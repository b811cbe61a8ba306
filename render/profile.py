"""A player's profile card: their name, rating and chip charts, and a list of stats.

Drawn with Pillow only on the same felt as the card pictures.  The picture
has one fixed size whatever the data: the charts spread the games given
(the caller sends the last 50 or fewer) over their width, and a series that
never moves is drawn as a flat line.  Chip balances that are not known
(``None``) leave a gap in the line; they are not carried over, so a missing
value is never shown as if it had been measured.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from PIL import Image, ImageDraw

from .pictures import (
    _MUTED_TEXT,
    _NAME_TEXT,
    _SELECTED_PILL,
    _SLOT_FILL,
    MARGIN,
    MAX_WIDTH,
    _canvas,
    _encode,
)
from .text import draw_text, fit_text, text_width

__all__ = ["render_profile", "PROFILE_SIZE", "MAX_LINES"]

PROFILE_SIZE = (MAX_WIDTH, 430)
MAX_LINES = 10  # stat lines that fit beside the charts
_TITLE_SIZE = 32
_TITLE_HEIGHT = 50
_CHART_TITLE_SIZE = 18
_CHART_TITLE_HEIGHT = 26
_AXIS_SIZE = 15
_LAST_SIZE = 20
_PANEL_GAP = 12
_LINES_WIDTH = 300
_LINE_SIZE = 18
_INSET = 10  # panel edge to its content
_PLOT_PAD = 8  # keeps the line and its end dot off the plot's top and bottom edges
_GUTTER_MIN, _GUTTER_MAX = 36, 120  # width of the axis labels, shared by both charts
_RIGHT_PAD = 12  # right of the plot, so the last value's dot is not cut
_SUPERSAMPLE = 3  # lines are drawn this much larger and shrunk: smooth, antialiased
_LINE_WIDTH = 3
_DOT_RADIUS = 4
_FILL_ALPHA = 0.17  # how much of the line's colour tints the area under it
_GRID = (30, 100, 64)
_PANEL = _SLOT_FILL
_RATING_INK = _SELECTED_PILL
_BALANCE_INK = (120, 200, 255)

Series = Sequence[int | None]


Numbers = Callable[[int], str]
"""How a number is written (thousands grouped as the reader's language does)."""


def _number(value: int) -> str:
    return f"{value:,}"


def _value_range(values: Series) -> tuple[int, int] | None:
    known = [value for value in values if value is not None]
    return (min(known), max(known)) if known else None


def _gutter(number: Numbers, *series: Series) -> int:
    """Width of the axis labels: the widest min/max label of both charts, so their x axes line up."""
    labels = [number(v) for values in series if (span := _value_range(values)) for v in span]
    widest = max((text_width(label, _AXIS_SIZE) for label in labels), default=0)
    return max(_GUTTER_MIN, min(_GUTTER_MAX, math.ceil(widest) + 8))


def _points(values: Series, box: tuple[int, int, int, int]) -> list[tuple[float, float] | None]:
    """Plot coordinates of each value (``None`` stays ``None``): games spread over the width."""
    left, top, right, bottom = box
    low, high = _value_range(values) or (0, 0)
    if low == high:  # a flat series: draw it across the middle, no division by zero
        low, high = low - 1, high + 1
    count = len(values)
    y_scale = (bottom - top - 2 * _PLOT_PAD) / (high - low)

    def x_of(index: int) -> float:
        return (left + right) / 2 if count == 1 else left + index * (right - left) / (count - 1)

    return [None if value is None else (x_of(index), bottom - _PLOT_PAD - (value - low) * y_scale)
            for index, value in enumerate(values)]


def _segments(points: list[tuple[float, float] | None]) -> list[list[tuple[float, float]]]:
    """Runs of known points between the gaps left by ``None``."""
    runs: list[list[tuple[float, float]]] = [[]]
    for point in points:
        if point is None:
            runs.append([])
        else:
            runs[-1].append(point)
    return [run for run in runs if run]


def _tint(ink: tuple[int, int, int]) -> tuple[int, int, int]:
    """``ink`` faintly over the panel: the colour of the area under a line."""
    return tuple(round(a * _FILL_ALPHA + b * (1 - _FILL_ALPHA)) for a, b in zip(ink, _PANEL))


def _draw_fill(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int],
               runs: list[list[tuple[float, float]]], ink: tuple[int, int, int]) -> None:
    """The faint area under each run, drawn straight on the panel (the line hides its edge)."""
    for run in runs:
        if len(run) > 1:
            draw.polygon([(run[0][0], box[3])] + run + [(run[-1][0], box[3])], fill=_tint(ink))


def _draw_line(canvas: Image.Image, box: tuple[int, int, int, int],
               runs: list[list[tuple[float, float]]], ink: tuple[int, int, int]) -> None:
    """The series, drawn on a mask at a larger scale and shrunk: smooth, antialiased edges."""
    left, top, right, bottom = box
    pad = _DOT_RADIUS + _LINE_WIDTH  # room for dots and line caps drawn at the edges
    origin = (left - pad, top - pad)
    size = (right - left + 2 * pad, bottom - top + 2 * pad)
    scale = _SUPERSAMPLE
    mask = Image.new("L", (size[0] * scale, size[1] * scale), 0)
    draw = ImageDraw.Draw(mask)
    for run in runs:
        path = [((x - origin[0]) * scale, (y - origin[1]) * scale) for x, y in run]
        if len(path) > 1:
            draw.line(path, fill=255, width=_LINE_WIDTH * scale)
        # Round joints (and a dot for a lone game): a disc on every point is
        # five times faster than joint="curve" and looks the same.
        radius = (_DOT_RADIUS * 0.8 if len(path) == 1 else _LINE_WIDTH / 2) * scale
        for x, y in path:
            draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=255)
    # reduce() is a box filter by a whole factor, several times faster than resize().
    canvas.paste(ink, origin + (origin[0] + size[0], origin[1] + size[1]), mask.reduce(scale))


def _draw_last(draw: ImageDraw.ImageDraw, point: tuple[float, float], ink: tuple[int, int, int]) -> None:
    """A ringed dot on the last known value (its number is in the chart's title line)."""
    x, y = point
    ring = _DOT_RADIUS + 2
    draw.ellipse([x - ring, y - ring, x + ring, y + ring], fill=_PANEL)
    draw.ellipse([x - _DOT_RADIUS, y - _DOT_RADIUS, x + _DOT_RADIUS, y + _DOT_RADIUS], fill=ink)


def _draw_axes(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], values: Series,
               gutter: int, number: Numbers) -> None:
    """Subtle gridlines at the min, the middle and the max, with the min and max labelled."""
    left, top, right, bottom = box
    low, high = _value_range(values)
    high_y, low_y = top + _PLOT_PAD, bottom - _PLOT_PAD
    if low == high:  # flat: the one value sits in the middle, label it once
        high_y = low_y = (top + bottom) // 2
    for y in {high_y, (high_y + low_y) // 2, low_y}:
        draw.line([(left, y), (right, y)], fill=_GRID, width=1)
    for value, y in {(high, high_y), (low, low_y)}:
        label = fit_text(number(value), _AXIS_SIZE, gutter - 6)  # only absurd numbers get cut
        draw_text(draw, (left - 6 - text_width(label, _AXIS_SIZE), y + _AXIS_SIZE * 0.36),
                  label, _AXIS_SIZE, _MUTED_TEXT)


def _draw_chart_title(draw: ImageDraw.ImageDraw, panel: tuple[int, int, int, int], title: str,
                      last: int | None, ink: tuple[int, int, int], number: Numbers) -> None:
    """The title on the left and the last value, larger and in the line's colour, on the right."""
    left, top, right, _ = panel
    baseline = top + _INSET + _CHART_TITLE_SIZE
    last_width = 0.0
    if last is not None:
        last_text = fit_text(number(last), _LAST_SIZE, (right - left) / 2)
        last_width = text_width(last_text, _LAST_SIZE)
        draw_text(draw, (right - _INSET - last_width, baseline), last_text, _LAST_SIZE, ink)
    draw_text(draw, (left + _INSET, baseline), title, _CHART_TITLE_SIZE, _NAME_TEXT,
              max_width=right - left - 2 * _INSET - last_width - 12)


def _draw_chart(canvas: Image.Image, panel: tuple[int, int, int, int], title: str,
                values: Series, ink: tuple[int, int, int], gutter: int, empty_text: str, number: Numbers) -> None:
    draw = ImageDraw.Draw(canvas)
    left, top, right, bottom = panel
    draw.rounded_rectangle(panel, 12, fill=_PANEL)
    plot = (left + _INSET + gutter, top + _INSET + _CHART_TITLE_HEIGHT + 4,
            right - _INSET - _RIGHT_PAD, bottom - _INSET)
    points = _points(values, plot)
    known = [(point, value) for point, value in zip(points, values) if point is not None]
    _draw_chart_title(draw, panel, title, known[-1][1] if known else None, ink, number)
    if not known:  # no games, or no balance known for any of them
        draw_text(draw, ((plot[0] + plot[2]) / 2, (plot[1] + plot[3]) / 2 + 6), empty_text,
                  _CHART_TITLE_SIZE, _MUTED_TEXT, max_width=plot[2] - plot[0], anchor="ms")
        return
    runs = _segments(points)
    _draw_fill(draw, plot, runs, ink)
    _draw_axes(draw, plot, values, gutter, number)
    _draw_line(canvas, plot, runs, ink)
    _draw_last(draw, known[-1][0], ink)


def _draw_lines(canvas: Image.Image, panel: tuple[int, int, int, int],
                lines: Sequence[tuple[str, str]]) -> None:
    """The stats as label (dim, left) and value (bright, right), one per row."""
    draw = ImageDraw.Draw(canvas)
    left, top, right, bottom = panel
    draw.rounded_rectangle(panel, 12, fill=_PANEL)
    row_height = (bottom - top - 2 * _INSET) / MAX_LINES
    for number, (label, value) in enumerate(lines):
        row_top = top + _INSET + number * row_height
        if number:
            draw.line([(left + _INSET, row_top), (right - _INSET, row_top)], fill=_GRID, width=1)
        baseline = row_top + row_height / 2 + _LINE_SIZE * 0.36
        room = right - left - 2 * _INSET
        value = fit_text(value, _LINE_SIZE, room * 0.6)
        value_width = text_width(value, _LINE_SIZE)
        draw_text(draw, (right - _INSET - value_width, baseline), value, _LINE_SIZE, _NAME_TEXT)
        draw_text(draw, (left + _INSET, baseline), label, _LINE_SIZE, _MUTED_TEXT,
                  max_width=room - value_width - 12)


def render_profile(
    *,
    name: str,
    ratings: Sequence[int],
    balances: Sequence[int | None],
    lines: Sequence[tuple[str, str]],
    rating_title: str,
    balance_title: str,
    empty_text: str,
    number: Numbers = _number,
) -> bytes:
    """JPEG of a player's profile, always :data:`PROFILE_SIZE` px.

    ``ratings`` and ``balances`` hold the shown rating and the chip balance
    after each rated game, oldest first (same length; a ``None`` balance is
    a gap in its chart).  Each chart labels its min and max and marks its
    last value; with no games both charts show ``empty_text``.  ``lines``
    (at most :data:`MAX_LINES` translated ``(label, value)`` pairs) are
    listed beside the charts.  ``name`` may be any Unicode; long texts are
    cut with "…".  ``number`` writes the axis labels and last values
    (default: thousands grouped by commas).
    """
    if len(ratings) != len(balances):
        raise ValueError(f"{len(ratings)} ratings but {len(balances)} balances")
    if len(lines) > MAX_LINES:
        raise ValueError(f"at most {MAX_LINES} lines fit, not {len(lines)}")
    width, height = PROFILE_SIZE
    canvas = _canvas(width, height)
    draw = ImageDraw.Draw(canvas)
    draw_text(draw, (MARGIN + 2, MARGIN + _TITLE_SIZE), name, _TITLE_SIZE, _NAME_TEXT,
              max_width=width - 2 * MARGIN - 4)
    top = MARGIN + _TITLE_HEIGHT
    chart_right = width - MARGIN - _LINES_WIDTH - _PANEL_GAP
    chart_height = (height - MARGIN - top - _PANEL_GAP) // 2
    gutter = _gutter(number, ratings, balances)
    rating_panel = (MARGIN, top, chart_right, top + chart_height)
    balance_top = top + chart_height + _PANEL_GAP
    balance_panel = (MARGIN, balance_top, chart_right, balance_top + chart_height)
    # Games but no balance known for any: a dash, as "no rated games" would be untrue.
    _draw_chart(canvas, rating_panel, rating_title, ratings, _RATING_INK, gutter, empty_text, number)
    _draw_chart(canvas, balance_panel, balance_title, balances, _BALANCE_INK, gutter,
                empty_text if not ratings else "—", number)
    _draw_lines(canvas, (chart_right + _PANEL_GAP, top, width - MARGIN, height - MARGIN), lines)
    return _encode(canvas)
