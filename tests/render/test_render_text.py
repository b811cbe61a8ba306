"""Fonts and text for player names: Vietnamese coverage and graceful fallbacks."""

from __future__ import annotations

import unicodedata

from PIL import Image, ImageDraw

from render import text

# Every Vietnamese letter, lower and upper case: the base vowels with each of
# the five tone marks, plus ă â đ ê ô ơ ư.
_VOWELS = "aăâeêioôơuưy"
_TONES = "\u0300\u0301\u0309\u0303\u0323"  # huyền, sắc, hỏi, ngã, nặng
VIETNAMESE = {
    unicodedata.normalize("NFC", vowel + tone)
    for vowel in _VOWELS for tone in ("",) + tuple(_TONES)
} | set("đ")
VIETNAMESE |= {letter.upper() for letter in VIETNAMESE}


def test_shipped_font_is_used() -> None:
    assert text.font(20).getname() == ("DejaVu Sans", "Bold")


def test_every_vietnamese_letter_has_a_glyph_in_the_main_font() -> None:
    assert len(VIETNAMESE) == 2 * (12 * 6 + 1)
    missing = sorted(letter for letter in VIETNAMESE if not text._has_glyph(0, letter))
    assert missing == []


def test_pillow_default_font_lacks_vietnamese() -> None:
    """Why a font is shipped: Pillow's bundled Aileron has ASCII only."""
    default = len(text._fonts(16)) - 1
    assert text._has_glyph(default, "A")
    assert not text._has_glyph(default, "ễ")


def test_vietnamese_name_is_drawn_with_its_marks() -> None:
    plain = _ink("Nguyen Van Tuong")
    marked = _ink("Nguyễn Văn Tường")
    assert marked > plain  # the diacritics add ink; a missing glyph would not


def _ink(line: str) -> int:
    image = Image.new("L", (400, 60), 0)
    text.draw_text(ImageDraw.Draw(image), (5, 45), line, 28, (255,))
    return sum(1 for value in image.get_flattened_data() if value > 128)


def test_clean_text_makes_one_tidy_line() -> None:
    assert text.clean_text("  Bảo\nNgọc\t\u200b ") == "Bảo Ngọc"
    assert text.clean_text("Tu\u031bo\u031b\u0300ng") == "Tường"  # decomposed input → NFC


def test_emoji_without_a_glyph_are_dropped_letters_become_boxes() -> None:
    drawn = "".join(char for _, char in text._drawable("🔥 Minh 🔥", 20))
    assert drawn == "Minh"
    assert "□" in "".join(char for _, char in text._drawable("\U00016a40", 20))  # Mro letter


def test_long_names_are_cut_with_an_ellipsis() -> None:
    line = text.fit_text("Nguyễn Văn Tường " * 5, 24, 200)
    assert line.endswith("…")
    assert text.text_width(line, 24) <= 200


def test_wrap_uses_two_lines_then_cuts() -> None:
    assert text.wrap_text("Nguyễn Văn Tường", 24, 400) == ["Nguyễn Văn Tường"]
    lines = text.wrap_text("Trần Thị Bảo Ngọc Nguyễn Văn Tường", 24, 200)
    assert len(lines) == 2 and lines[1].endswith("…")
    assert all(text.text_width(line, 24) <= 200 for line in lines)


def test_empty_or_invisible_text_draws_a_question_mark() -> None:
    assert _ink("") > 0
    assert _ink("\u200d") > 0
