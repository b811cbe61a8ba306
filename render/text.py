"""Fonts and safe text drawing for user-supplied strings such as player names.

The primary font is a subset of DejaVu Sans Bold shipped in ``render/assets``
(Latin incl. every Vietnamese letter, Greek, Cyrillic), so Vietnamese names
render on any machine with no system fonts.  Pillow's own bundled font
(``ImageFont.load_default``) is only a last resort: it covers ASCII only.

Names are user input, so :func:`draw_text` never fails on odd Unicode: each
character is drawn with the first font that has a glyph for it (the shipped
font, then a few well-known system fonts when they exist); letters that no
font has become a "□" box, while emoji and other decoration without a glyph
are dropped.  Text is cut with "…" to fit a width.
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

__all__ = ["font", "draw_text", "fit_text", "wrap_text", "text_width", "clean_text"]

Font = ImageFont.FreeTypeFont

_SHIPPED_FONT = Path(__file__).with_name("assets") / "DejaVuSans-Bold-subset.ttf"
# Used only for characters the shipped subset lacks (CJK, Arabic, symbols…),
# and only if present; nothing here is required.
_SYSTEM_FALLBACKS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/System/Library/Fonts/Supplemental/Arial Unicode.ttf",
    "C:/Windows/Fonts/arialbd.ttf",
    "C:/Windows/Fonts/seguisym.ttf",
)
_TOFU = "□"
_LONGEST_TEXT = 200
_ELLIPSIS = "…"
# Glyph lookups are compared at this size; presence does not depend on size.
_PROBE_SIZE = 16
# A code point that no font maps, so it always renders the ".notdef" glyph.
_NOT_A_CHARACTER = "\U0010fffd"

# FreeType faces are not safe to use from two threads at once, and a bot may
# render in a thread pool: every use of a font object goes through this lock.
FONT_LOCK = threading.RLock()


@lru_cache(maxsize=1)
def _font_paths() -> tuple[str, ...]:
    paths = [str(_SHIPPED_FONT)] if _SHIPPED_FONT.is_file() else []
    paths += [path for path in _SYSTEM_FALLBACKS if Path(path).is_file()]
    return tuple(paths)


@lru_cache(maxsize=64)
def _load(path: str | None, size: int) -> Font:
    """One font at one pixel size; ``None`` is Pillow's bundled font."""
    if path is None:
        return ImageFont.load_default(size=size)
    return ImageFont.truetype(path, size=size)


def _fonts(size: int) -> tuple[Font, ...]:
    """Fonts to try for each character, best first, ending with Pillow's own."""
    return tuple(_load(path, size) for path in _font_paths()) + (_load(None, size),)


def font(size: int) -> Font:
    """The main font at ``size`` px (the shipped DejaVu subset when present)."""
    return _fonts(size)[0]


def _glyph_image(face: Font, char: str) -> bytes:
    image = Image.new("L", (_PROBE_SIZE * 3, _PROBE_SIZE * 3), 0)
    ImageDraw.Draw(image).text((_PROBE_SIZE, _PROBE_SIZE), char, font=face, fill=255)
    return image.tobytes()


@lru_cache(maxsize=16)
def _notdef_image(font_index: int) -> bytes:
    with FONT_LOCK:
        return _glyph_image(_fonts(_PROBE_SIZE)[font_index], _NOT_A_CHARACTER)


@lru_cache(maxsize=8192)
def _has_glyph(font_index: int, char: str) -> bool:
    # Pillow has no "has glyph" call: a missing character is drawn as the
    # font's .notdef box, so compare it with a code point no font maps.
    if char.isspace():
        return True
    with FONT_LOCK:
        drawn = _glyph_image(_fonts(_PROBE_SIZE)[font_index], char)
    return drawn != _notdef_image(font_index)


def clean_text(text: str) -> str:
    """One tidy line: NFC-composed, controls and invisible joiners removed.

    Cut to :data:`_LONGEST_TEXT` characters first, as no picture shows more
    and measuring a huge user-supplied name would only waste time.
    """
    text = unicodedata.normalize("NFC", str(text)[:_LONGEST_TEXT])
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Zl", "Zp") or char.isspace():
            kept.append(" ")
        elif category not in ("Cf", "Cs", "Co", "Cn"):  # format chars, surrogates, unassigned
            kept.append(char)
    return " ".join("".join(kept).split())


def _drawable(text: str, size: int) -> list[tuple[int, str]]:
    """(font index, character) pairs, replacing what no font can draw."""
    fonts = _fonts(size)
    chars: list[tuple[int, str]] = []
    for char in text:
        if char.isspace() and (not chars or chars[-1][1].isspace()):
            continue  # spaces left around a dropped emoji
        index = next((i for i in range(len(fonts)) if _has_glyph(i, char)), None)
        if index is not None:
            chars.append((index, char))
        elif unicodedata.category(char).startswith(("L", "N")):
            chars.append((0, _TOFU))  # a letter: keep its place so names stay distinct
        # else: emoji and decoration, dropping them loses nothing
    if chars and chars[-1][1].isspace():
        chars.pop()
    return chars


def _runs(text: str, size: int) -> list[tuple[Font, str]]:
    """Split text into (font, piece) runs, each drawn with one font."""
    fonts = _fonts(size)
    runs: list[tuple[Font, str]] = []
    for index, char in _drawable(text, size):
        if runs and runs[-1][0] is fonts[index]:
            runs[-1] = (fonts[index], runs[-1][1] + char)
        else:
            runs.append((fonts[index], char))
    return runs


def _runs_width(runs: list[tuple[Font, str]]) -> float:
    with FONT_LOCK:
        return sum(face.getlength(piece) for face, piece in runs)


def text_width(text: str, size: int) -> float:
    """Width in px that :func:`draw_text` will use for ``text``."""
    return _runs_width(_runs(clean_text(text), size))


def fit_text(text: str, size: int, max_width: float) -> str:
    """``text`` cleaned and, if wider than ``max_width``, cut and ended with "…"."""
    text = clean_text(text)
    if text_width(text, size) <= max_width:
        return text
    # Binary search for the longest prefix that fits: names are user input and
    # may be thousands of characters long.
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if text_width(text[:middle] + _ELLIPSIS, size) <= max_width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + _ELLIPSIS


def wrap_text(text: str, size: int, max_width: float, max_lines: int = 2) -> list[str]:
    """Break ``text`` at spaces into at most ``max_lines`` lines that fit, the last cut with "…"."""
    words = clean_text(text).split(" ")
    lines: list[str] = []
    while words and len(lines) < max_lines - 1:
        line = words.pop(0)
        while words and text_width(line + " " + words[0], size) <= max_width:
            line += " " + words.pop(0)
        lines.append(line)
    if words:
        lines.append(" ".join(words))
    return [fit_text(line, size, max_width) for line in lines]


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: tuple[int, ...],
    *,
    max_width: float | None = None,
    anchor: str = "ls",
) -> float:
    """Draw one line of any user text; returns the width drawn.

    ``xy`` is the left end of the baseline (``anchor="ls"``) or its middle
    (``anchor="ms"``).  Runs in different fonts share that baseline.
    """
    line = fit_text(text, size, max_width) if max_width is not None else clean_text(text)
    runs = _runs(line, size) or _runs("?", size)
    width = _runs_width(runs)
    x, y = xy
    if anchor == "ms":
        x -= width / 2
    with FONT_LOCK:
        for face, piece in runs:
            draw.text((x, y), piece, font=face, fill=fill, anchor="ls")
            x += face.getlength(piece)
    return width
