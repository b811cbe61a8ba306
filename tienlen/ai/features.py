"""Features of a decision's options for the learned move scorer (``normal+``).

Everything here is computed from a :class:`~tienlen.ai.situation.Situation`,
i.e. from what the seat may know (its own hand, public counts, the top play,
passes and the pool of unseen cards): never from the other hands.  Labels
for training may come from the true deal (:mod:`tienlen.ai.labels`); the
features may not.

A decision has *options* (:func:`options`): every distinct legal play, the
normal heuristic's own choice, and passing when it is allowed.  Each option
gets a row of :data:`OPTION_NAMES` (what the move does to the hand, the
heuristic's own terms) followed by the decision's :data:`CONTEXT_NAMES`
(lead or follow, the counts, the top combo, passes, the unseen cards per
rank, how each opponent has played so far: :mod:`tienlen.ai.behaviour`), so
that a model can weigh the same move differently in different situations.
Names are only ever added at the end: a model trained on the first N
features reads the first N columns of today's rows.
"""

from __future__ import annotations

from typing import Sequence

from tienlen.ai.behaviour import BEHAVIOUR_NAMES, behaviour
from tienlen.ai.decompose import plan
from tienlen.ai.normal import DEFAULT_WEIGHTS, FINISH, Weights, _distinct, _Scorer
from tienlen.ai.situation import Situation
from tienlen.combos import (
    CONSECUTIVE_PAIRS,
    FOUR_OF_A_KIND,
    PAIR,
    SINGLE,
    STRAIGHT,
    TRIPLE,
    TWOS_MASK,
    Combo,
)
from tienlen.rules import CongRule, LeftoverRule

__all__ = ["OPTION_NAMES", "CONTEXT_NAMES", "FEATURES", "Decision", "options", "describe"]

KINDS = (SINGLE, PAIR, TRIPLE, STRAIGHT, CONSECUTIVE_PAIRS, FOUR_OF_A_KIND)
SCORE_CLIP = 10.0
"""Heuristic scores are clipped: only going out scores beyond this (FINISH)."""

OPTION_NAMES = (
    "pass", *(f"kind_{kind.value}" for kind in KINDS), "size", "top_rank", "twos", "bomb",
    "heuristic", "heuristic_best", "heuristic_rank", "cost_drop", "rest_cards", "rest_parts",
    "rest_non_bosses", "boss", "survival", "run_out", "plan_part", "rest_twos", "rest_bombs",
    "chop_money", "danger", "rest_low_rank", "rest_high_rank", "breaks_group",
)
CONTEXT_NAMES = (
    "lead", "own_cards", "fewest_opponent", "next_opponent", *(f"opponent_{i}" for i in range(3)),
    "opponents", "passed", "still_in_round", *(f"top_{kind.value}" for kind in KINDS), "top_combo_size",
    "top_combo_rank", "top_owner_cards", "top_owner_next", "has_played", "cong_open", "unseen_twos",
    *(f"unseen_rank_{rank}" for rank in range(13)), "plan_cost", "plan_parts", "pressed",
    "opponent_on_one", "follow_suit", "leftover", "cong_rule", *BEHAVIOUR_NAMES,
)
FEATURES = len(OPTION_NAMES) + len(CONTEXT_NAMES)


class Decision:
    """One decision's options, their heuristic scores and feature rows.

    ``rows`` is a list of lists of floats (numpy-free, so that the player and
    the trainer share it); ``finishing`` is the index of an option that goes
    out (the heuristic's FINISH), when there is one: no model is needed then.
    """

    __slots__ = ("situation", "scorer", "moves", "scores", "rows", "finishing", "heuristic_choice")

    def __init__(self, situation: Situation, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.situation = situation
        self.scorer = _Scorer(situation, weights)
        self.moves = options(situation, self.scorer)
        self.scores = [self.scorer.score(move) for move in self.moves]
        self.heuristic_choice = self._normal_choice()
        best = max(range(len(self.moves)), key=lambda index: (self.scores[index], -index))
        self.finishing = best if self.scores[best] >= FINISH else None
        self.rows: list[list[float]] = []

    def _normal_choice(self) -> int:
        """The index of the move ``normal`` plays here (it leads only parts of its plan)."""
        indices = range(len(self.moves))
        if self.situation.top is None:
            position = {move[1]: index for index, move in enumerate(self.moves)}
            parts = [position[part[1]] for part in self.scorer.plan.combos if part[1] in position]
            indices = parts or indices
        return max(indices, key=lambda index: self.scores[index])

    def compute_rows(self) -> list[list[float]]:
        if not self.rows:
            context = _context(self.situation, self.scorer)
            order = sorted(range(len(self.moves)), key=lambda index: (-self.scores[index], index))
            ranks = {index: position for position, index in enumerate(order)}
            share = 1.0 / max(1, len(self.moves) - 1)
            self.rows = [
                _option_row(self.scorer, move, score, ranks[index] * share, index == self.heuristic_choice) + context
                for index, (move, score) in enumerate(zip(self.moves, self.scores))
            ]
        return self.rows


def options(situation: Situation, scorer: _Scorer) -> list[Combo | None]:
    """Every distinct legal play (runs merged as the heuristic merges them),
    the heuristic's own lead parts (their suits may differ from the merged
    representatives), and None for passing when the top may be passed."""
    legal = situation.legal
    follow_suit = situation.rules.follow_suit
    moves: list[Combo | None] = list(_distinct(legal, follow_suit))
    seen = {move[1] for move in moves}
    if situation.top is None:
        masks = {combo[1]: combo for combo in legal}
        for part in scorer.plan.combos:
            if part[1] in masks and part[1] not in seen:
                moves.append(masks[part[1]])
                seen.add(part[1])
    else:
        moves.append(None)
    return moves


def describe(row: Sequence[float]) -> dict[str, float]:
    """A feature row by name (for tests and diagnostics)."""
    return dict(zip(OPTION_NAMES + CONTEXT_NAMES, row))


# ------------------------------------------------------------------ options
def _option_row(scorer: _Scorer, move: Combo | None, score: float, rank_share: float, best: bool) -> list[float]:
    heuristic = max(-SCORE_CLIP, min(SCORE_CLIP, score)) / 5.0
    if move is None:
        row = [0.0] * len(OPTION_NAMES)
        row[0] = 1.0
        row[OPTION_NAMES.index("heuristic")] = heuristic
        row[OPTION_NAMES.index("heuristic_best")] = float(best)
        row[OPTION_NAMES.index("heuristic_rank")] = rank_share
        _fill_rest(row, scorer, scorer.hand, scorer.plan.combos)
        return row
    kind, mask, top, size = move[0], move[1], move[2], move[3]
    rest = scorer.hand ^ mask
    rest_parts = scorer._rest_parts(move) if rest else ()
    row = [0.0, *(float(kind is other) for other in KINDS), size / 13.0, (top >> 2) / 12.0,
           float((mask & TWOS_MASK).bit_count()), float(move.bomb is not None),
           heuristic, float(best), rank_share,
           (scorer.base - scorer._rest_cost(rest)) if rest else 2.0]
    row += [0.0] * (len(OPTION_NAMES) - len(row))
    _fill_rest(row, scorer, rest, rest_parts)
    row[_BOSS] = float(scorer.is_boss(move))
    row[_SURVIVAL] = scorer.survival(move)
    row[_PLAN_PART] = float(move in scorer.plan.combos)
    row[_CHOP] = _chop_money(scorer, move)
    row[_DANGER] = scorer._danger_on(move, scorer.opponent_counts)
    row[_BREAKS] = _breaks_group(scorer.hand, mask)
    return row


def _fill_rest(row: list[float], scorer: _Scorer, rest: int, parts: Sequence[Combo]) -> None:
    """What the hand keeps after the option: its size, plan, control and range."""
    row[_REST_CARDS] = rest.bit_count() / 13.0
    row[_REST_PARTS] = len(parts) / 13.0
    row[_REST_NON_BOSSES] = scorer.non_bosses(parts) / 13.0
    row[_RUN_OUT] = scorer.run_out(parts)
    row[_REST_TWOS] = float((rest & TWOS_MASK).bit_count())
    row[_REST_BOMBS] = float(sum(1 for part in parts if part.bomb is not None))
    if rest:
        row[_REST_LOW] = ((rest & -rest).bit_length() - 1 >> 2) / 12.0
        row[_REST_HIGH] = (rest.bit_length() - 1 >> 2) / 12.0


def _chop_money(scorer: _Scorer, move: Combo) -> float:
    top = scorer.situation.top
    if move.bomb is None or top is None or top.chop_target is None or not scorer.rules.chop_money:
        return 0.0
    return float(scorer.rules.chop_value(top))


def _breaks_group(hand: int, mask: int) -> float:
    """How many ranks the move takes only part of (a pair or triple broken up)."""
    broken = 0
    for rank in _ranks(mask):
        held = (hand >> (4 * rank)) & 0xF
        if (mask >> (4 * rank)) & 0xF != held:
            broken += 1
    return broken / 4.0


def _ranks(mask: int) -> list[int]:
    ranks = []
    while mask:
        low = (mask & -mask).bit_length() - 1
        rank = low >> 2
        ranks.append(rank)
        mask &= ~(0xF << (4 * rank))
    return ranks


(_REST_CARDS, _REST_PARTS, _REST_NON_BOSSES, _BOSS, _SURVIVAL, _RUN_OUT, _PLAN_PART, _REST_TWOS,
 _REST_BOMBS, _CHOP, _DANGER, _REST_LOW, _REST_HIGH, _BREAKS) = (
    OPTION_NAMES.index(name) for name in (
        "rest_cards", "rest_parts", "rest_non_bosses", "boss", "survival", "run_out", "plan_part",
        "rest_twos", "rest_bombs", "chop_money", "danger", "rest_low_rank", "rest_high_rank", "breaks_group"))


# ------------------------------------------------------------------ context
def _context(situation: Situation, scorer: _Scorer) -> list[float]:
    """What is the same for every option of the decision."""
    counts = situation.counts
    opponents = situation.opponents()
    opponent_counts = [counts[seat] for seat in opponents]
    padded = (opponent_counts + [0, 0, 0])[:3]
    top = situation.top
    owner = situation.top_owner
    owner_cards = counts[owner] if owner is not None and situation.in_play[owner] else 0
    unseen = situation.unseen
    per_rank = [((unseen >> (4 * rank)) & 0xF).bit_count() / 4.0 for rank in range(13)]
    rules = situation.rules
    return [
        float(top is None), counts[situation.seat] / 13.0, scorer.min_opponent / 13.0,
        (opponent_counts[0] if opponent_counts else 0) / 13.0, *(count / 13.0 for count in padded),
        len(opponents) / 3.0, len(situation.passed) / 3.0, len(scorer.still_in_round) / 3.0,
        *(float(top is not None and top[0] is kind) for kind in KINDS),
        (top[3] if top is not None else 0) / 13.0, ((top[2] >> 2) if top is not None else 0) / 12.0,
        owner_cards / 13.0, float(bool(opponents) and owner == opponents[0]),
        float(situation.has_played[situation.seat]), min(1.0, scorer._cong_risk()),
        per_rank[12], *per_rank, scorer.base / 5.0, len(scorer.plan.combos) / 13.0,
        float(scorer.min_opponent <= 2), float(1 in opponent_counts),
        float(rules.follow_suit), float(rules.leftover is not LeftoverRule.NONE),
        float(rules.cong is not CongRule.NONE),
        *behaviour(situation.actions, rules, situation.players, opponents),
    ]
