"""Regenerate the example pictures shown in the README.

    .venv/bin/python -m render.examples [output folder]

Writes ``hand-example.jpg``, ``play-example.jpg`` and ``final-example.jpg``
to ``docs/images`` (or the folder given).  The cards are fixed, so the output
only changes when the drawing code does.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tienlen.cards import parse_cards

from .pictures import render_final_hands, render_hand, render_play

DEFAULT_FOLDER = Path(__file__).resolve().parent.parent / "docs" / "images"

# A plausible moment: the table holds a pair of 9s (the play example) and
# the player has selected the pair of 10s that beats it; the cards that
# cannot beat a pair of 9s are dimmed.
HAND = parse_cards("3S 3H 4C 5D 6S 7H 8H 10C 10D JH QS KD 2H")
SELECTED = parse_cards("10C 10D")
PLAYABLE = parse_cards("10C 10D")
FINAL_ROWS = [
    ("Nguyễn Văn Tường", []),
    ("Minh 🔥", parse_cards("3S 4S 2H")),
    ("Trần Thị Bảo Ngọc", parse_cards("5C 6C 7D 9D 9H JS JC QH KC AS")),
    ("Alex", parse_cards("8D KH")),
]


def write_examples(folder: Path = DEFAULT_FOLDER) -> list[Path]:
    """Render the examples into ``folder``; returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    pictures = {
        "hand-example.jpg": render_hand(HAND, selected=SELECTED, playable=PLAYABLE),
        "play-example.jpg": render_play(parse_cards("9S 9C"), caption="Minh: đôi 9"),
        "final-example.jpg": render_final_hands(FINAL_ROWS),
    }
    written = []
    for name, data in pictures.items():
        path = folder / name
        path.write_bytes(data)
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_FOLDER
    for path in write_examples(target):
        print(f"{path} ({path.stat().st_size // 1024} KB)")
