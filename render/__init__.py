"""Card pictures for the bot, drawn with Pillow (no image or font downloads).

>>> from tienlen.cards import parse_cards
>>> picture = render_hand(parse_cards("3S 4S 5H 10D QC 2H"))
>>> picture[:3] == b"\\xff\\xd8\\xff"  # a JPEG (see EXTENSION)
True

Modules: :mod:`render.pictures` lays out and encodes the pictures,
:mod:`render.faces` draws and caches card sprites, :mod:`render.suits` the
vector suit symbols, :mod:`render.text` fonts and safe text for user names,
:mod:`render.examples` regenerates the README images.
"""

from .faces import LARGE, SMALL, CardGeometry
from .pictures import (
    EXTENSION,
    MARGIN,
    MAX_WIDTH,
    RAISE,
    hand_size,
    render_final_hands,
    render_hand,
    render_play,
    warm_up,
)
from .profile import PROFILE_SIZE, render_profile
from .replay import ReplaySeat, render_replay_step, replay_size

CARD_SIZE: tuple[int, int] = LARGE.size
"""Width and height in px of a card in hand and play pictures."""

SMALL_CARD_SIZE: tuple[int, int] = SMALL.size
"""Width and height in px of a card in the end-of-game picture."""

__all__ = [
    "render_hand",
    "render_play",
    "render_final_hands",
    "render_replay_step",
    "ReplaySeat",
    "replay_size",
    "render_profile",
    "PROFILE_SIZE",
    "warm_up",
    "hand_size",
    "CARD_SIZE",
    "EXTENSION",
    "SMALL_CARD_SIZE",
    "CardGeometry",
    "MARGIN",
    "MAX_WIDTH",
    "RAISE",
]
