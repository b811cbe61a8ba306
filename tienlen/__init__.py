"""Tiến lên (Thirteen) rules engine: the three rule sets of docs/rules.md, exactly.

One clear entry point, :class:`Game`, over small immutable values
(:class:`Card`, :class:`Combo`, :class:`RuleSet`).  Pure Python: no Discord,
no database, no asyncio, no wall clock; shuffles are seeded.

>>> from tienlen import Game, RULESETS, parse_cards
>>> game = Game.deal(RULESETS["mien-nam"], 4, seed=2026)
>>> seat = game.turn
>>> first = min(game.legal_plays(seat), key=lambda combo: combo.size)
>>> game.play(seat, first).combo == first
True
"""

from tienlen.cards import Card, InvalidCardError, Rank, Suit, cards_of, format_cards, mask_of, parse_cards
from tienlen.combos import classify
from tienlen.errors import IllegalPlayError, InvalidComboError, TienLenError
from tienlen.game import Game
from tienlen.instant import InstantWin
from tienlen.records import Action, ChopEvent, Outcome, Payment, PaymentReason, SeatView
from tienlen.rules import (
    DEFAULT_RULESET,
    RULESETS,
    Bomb,
    ChopTarget,
    CongRule,
    FinishOnTwo,
    InstantWinKind,
    InstantWinTieBreak,
    LeftoverRule,
    OutOfTurnResume,
    RuleSet,
)
from tienlen.values import Combo, ComboKind

__all__ = [
    "Action", "Bomb", "Card", "ChopEvent", "ChopTarget", "Combo", "ComboKind", "CongRule",
    "DEFAULT_RULESET", "FinishOnTwo", "Game", "IllegalPlayError", "InstantWin", "InstantWinKind",
    "InstantWinTieBreak", "InvalidCardError", "InvalidComboError", "LeftoverRule", "Outcome",
    "OutOfTurnResume", "Payment", "PaymentReason", "RULESETS", "Rank", "RuleSet", "SeatView", "Suit",
    "TienLenError", "cards_of", "classify", "format_cards", "mask_of", "parse_cards",
]
