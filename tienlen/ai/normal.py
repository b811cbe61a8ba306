"""The ``normal`` level: a fast heuristic player built on hand decomposition.

Every option (each legal play, and passing when allowed) gets a score, and the
best one is played; :func:`rank_moves` exposes the whole ranking so the
``hard`` level can search the few most promising moves.  A play is scored by

* how much it lowers the cost of the hand's :func:`~tienlen.ai.decompose.plan`
  (leading the costliest part of the plan = "lead the weakest combo"; a
  beating play that breaks a pair or a straight gains little);
* control: 2s and bombs cost something to spend unless they win the game,
  bosses (per card counting, :mod:`tienlen.ai.counting`) are kept for later
  unless every other part of the plan is a boss too — then run them out;
* money and presets: chop money for bombs on 2s, cóng risk while this seat has
  played nothing, thối risk (2s and bombs held by the last player), and under
  ``mien-bac`` never going out on a 2 or a four of a kind;
* danger: an opponent down to one or two cards must not get an easy last
  play or the lead, so passing costs more and high cards are played.

The player only reads a :class:`~tienlen.ai.situation.Situation` (its own hand,
counts, public plays) and only picks among the engine's legal plays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from tienlen.ai.counting import last_hand_beat_chance, pool_beats, survival_chance
from tienlen.ai.decompose import plan, plan_cost
from tienlen.ai.situation import Situation
from tienlen.combos import CONSECUTIVE_PAIRS, FOUR_OF_A_KIND, STRAIGHT, TWOS_MASK, Combo
from tienlen.holdings import held_value
from tienlen.rules import CongRule, FinishOnTwo, LeftoverRule

if TYPE_CHECKING:
    from tienlen.game import SeatView

__all__ = ["Weights", "NormalPlayer", "rank_moves", "normal_move"]

FINISH = 1000.0
"""Score of going out (and of going out on a 2 when that is allowed)."""
BAD_FINISH = -50.0
"""Score of going out on a 2 / four of a kind where that is thối (mien-bac)."""


@dataclass(frozen=True)
class Weights:
    """Tunable constants of the heuristic, in "turns" (one weak combo ≈ 1).

    The defaults were tuned by arena runs against the ``easy`` level
    (``bench/bench_ai.py``), checked on deals not used for tuning.
    """

    pass_base: float = 0.4
    """Value of passing when nothing presses: a play must gain more than this."""
    two_spend: float = 0.5
    """Cost of spending a 2 (per 2) while the game is not yet won."""
    bomb_spend: float = 0.5
    """Cost of spending a bomb while the game is not yet won (chop money aside)."""
    boss_lead: float = 0.35
    """Cost of leading a boss early (it is better kept to win a round later)."""
    lead_bonus: float = 0.2
    """Value of winning the round with a boss (we lead next)."""
    winning_line: float = 5.0
    """Value of running out from the lead (times the estimated chance of it)."""
    chop_per_unit: float = 0.8
    """Value per bet unit of chop money won."""
    danger: float = 2.5
    """Weight of letting an opponent go out (times the chance they can)."""
    owner_lead_danger: tuple[float, float, float] = (3.0, 1.2, 0.4)
    """Cost of passing when the top's owner, with 1 / 2 / 3 cards, would lead next."""
    cong: float = 2.0
    """Cost of passing while cóng is near (scaled by how close the first out is)."""
    leftover_per_unit: float = 0.3
    """Thối (iwin, mien-bac): value per bet unit of 2s / bombs played while two are left."""
    dead_rest: float = 1.5
    """mien-bac: cost of a rest made only of 2s / fours (it cannot go out)."""
    round_stay: float = 0.3
    """Cost of dropping out of a round that will run long (low top, many still in)."""
    lead_size: float = 0.3
    """Bonus per extra card in a lead (many cards per lead, fewer leads needed)."""
    last_card_lead: float = 0.8
    """Cost of passing when another opponent is on one card: the next lead
    (often a low single) gives them an easy way out."""


DEFAULT_WEIGHTS = Weights()
RUN_OUT_PARTS = 4
"""Plans of at most this many parts get the exact best-order run-out estimate."""


class NormalPlayer:
    """``normal``: the heuristic player (deterministic; ``rng`` is unused).

    >>> from tienlen import Game, RULESETS
    >>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H 9D", "6D 7D 8D 2H KC"])
    >>> NormalPlayer().choose(game.view(0), random.Random(1))
    Combo(STRAIGHT, '3S 4S 5S')
    """

    level = "normal"

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.weights = weights

    def choose(self, view: "SeatView", rng: random.Random) -> Combo | None:
        return normal_move(Situation.from_view(view), self.weights)


def normal_move(situation: Situation, weights: Weights = DEFAULT_WEIGHTS) -> Combo | None:
    """The normal player's move: a legal combo, or None to pass / decline."""
    legal = situation.legal
    if not legal:
        return None
    if len(legal) == 1 and situation.top is None and situation.on_turn:
        return legal[0]
    return rank_moves(situation, weights)[0][1]


def rank_moves(situation: Situation, weights: Weights = DEFAULT_WEIGHTS) -> list[tuple[float, Combo | None]]:
    """Every option worth considering with its score, best first.

    Options are legal plays (same-shape duplicates removed under Southern
    rules) and None for passing when the top is not None (or for declining an
    out-of-turn chop).
    """
    if not situation.legal:
        return [(0.0, None)]
    scorer = _Scorer(situation, weights)
    if situation.top is None:
        options: list[Combo | None] = list(_lead_candidates(scorer))
    else:
        options = list(_distinct(situation.legal, situation.rules.follow_suit))
        options.append(None)
    scored = [(scorer.score(option), index, option) for index, option in enumerate(options)]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(score, option) for score, _, option in scored]


# ---------------------------------------------------------------- candidates
def _lead_candidates(scorer: "_Scorer") -> Sequence[Combo]:
    """Leads worth scoring: the parts of the plan (when legal), else every
    distinct legal lead (first lead with 3♠, or an odd rule variant)."""
    legal = scorer.situation.legal
    masks = {combo[1]: combo for combo in legal}
    parts = [masks[part[1]] for part in scorer.plan.combos if part[1] in masks]
    if parts:
        return parts
    return _distinct(legal, scorer.situation.rules.follow_suit)


def _distinct(plays: Sequence[Combo], follow_suit: bool) -> list[Combo]:
    """Runs (straights, consecutive pairs) that differ only in the suits below
    their top card are merged: per (kind, size, ranks) shape the lowest and the
    highest top are kept (low keeps strong cards, high is harder to beat).
    Under suit-following every suit matters, so nothing is merged."""
    if follow_suit or len(plays) < 2:
        return list(plays)
    out: list[Combo] = []
    seen: dict[tuple, list[Combo]] = {}
    for combo in plays:
        if combo[0] is not STRAIGHT and combo[0] is not CONSECUTIVE_PAIRS:
            out.append(combo)
            continue
        mask = combo[1]
        folded = mask | (mask >> 1)
        key = (combo[0], combo[3], (folded | (folded >> 2)) & _RANK_BITS)
        bounds = seen.get(key)
        if bounds is None:
            seen[key] = [combo, combo]
        elif combo[2] < bounds[0][2]:
            bounds[0] = combo
        elif combo[2] > bounds[1][2]:
            bounds[1] = combo
    for low, high in seen.values():
        out.append(low)
        if high is not low:
            out.append(high)
    return out


_RANK_BITS = sum(1 << (4 * rank) for rank in range(13))


# ------------------------------------------------------------------- scoring
class _Scorer:
    """Scores options for one decision; caches plans and boss checks."""

    def __init__(self, situation: Situation, weights: Weights) -> None:
        self.situation = situation
        self.weights = weights
        self.rules = situation.rules
        self.hand = situation.hand
        self.twos_may_finish = self.rules.finish_on_two is FinishOnTwo.ALLOWED
        self.plan = plan(self.hand, self.rules)
        self.base = self._rest_cost(self.hand)
        opponents = situation.opponents()
        self.opponent_counts = [situation.counts[seat] for seat in opponents]
        self.max_opponent = max(self.opponent_counts, default=0)
        self.min_opponent = min(self.opponent_counts, default=13)
        self.still_in_round = [
            situation.counts[seat] for seat in opponents if seat not in situation.passed
        ]
        self._boss: dict[int, bool] = {}
        self._survival: dict[int, float] = {}
        self._run_outs: dict[int, float] = {}
        self._rests: dict[int, tuple[Combo, ...]] = {}
        self.endgame = len(opponents) == 1

    # -------------------------------------------------------------- facts
    def is_boss(self, combo: Combo) -> bool:
        """No opponent can beat it with the same kind (bombs on 2s are ignored)."""
        known = self._boss.get(combo[1])
        if known is None:
            known = combo[3] > self.max_opponent or not pool_beats(
                self.situation.unseen, combo, self.rules, bombs=False
            )
            self._boss[combo[1]] = known
        return known

    def non_bosses(self, combos: Sequence[Combo]) -> int:
        return sum(1 for combo in combos if not self.is_boss(combo))

    def beat_chance(self, combo: Combo) -> float:
        """Chance that an opponent whose whole hand is ``combo``'s size beats it
        with that hand (bombs on 2s are ignored)."""
        if self.is_boss(combo):
            return 0.0
        return last_hand_beat_chance(self.situation.unseen, combo, self.rules)

    def finish_penalised(self, combo: Combo) -> bool:
        """Going out with this play would be thối (a 2 or a four in mien-bac)."""
        return not self.twos_may_finish and (bool(combo[1] & TWOS_MASK) or combo[0] is FOUR_OF_A_KIND)

    def _rest_cost(self, rest: int) -> float:
        cost = plan_cost(rest, self.rules)
        if not self.twos_may_finish and rest and self._only_unfinishable(rest):
            cost += self.weights.dead_rest
        return cost

    def _only_unfinishable(self, rest: int) -> bool:
        return all(self.finish_penalised(part) for part in plan(rest, self.rules).combos)

    # ------------------------------------------------------------ options
    def score(self, option: Combo | None) -> float:
        if option is None:
            return self._score_pass()
        rest = self.hand ^ option[1]
        if not rest:
            return BAD_FINISH if self.finish_penalised(option) else FINISH
        score = self.base - self._rest_cost(rest)
        if self.situation.top is None:
            return score + self._lead_terms(option)
        return score + self._follow_terms(option, rest)

    def _follow_terms(self, combo: Combo, rest: int) -> float:
        weights = self.weights
        top = self.situation.top
        assert top is not None
        score = 0.0
        winning = False
        if self.is_boss(combo):
            winning = self.non_bosses(plan(rest, self.rules).combos) <= 1
            score += weights.winning_line if winning else weights.lead_bonus
        if not winning and not self._pressed():
            score -= self._spend(combo)
        if combo.bomb is not None and top.chop_target is not None and self.rules.chop_money:
            value = self.rules.chop_value(top) + self.situation.chain_value
            score += weights.chop_per_unit * value
        score -= weights.danger * self._danger_on(combo, self.still_in_round)
        return score + self._leftover_terms(combo)

    def _lead_terms(self, combo: Combo) -> float:
        weights = self.weights
        score = weights.lead_size * (combo[3] - 1)
        run = self.run_out(self._rest_parts(combo))
        score += weights.winning_line * self.survival(combo) * run
        if self.is_boss(combo):
            if run < 0.5:
                score -= weights.boss_lead + self._spend(combo)  # keep bosses for later
        else:
            score -= weights.danger * self._danger_on(combo, self.opponent_counts)
        return score + self._leftover_terms(combo)

    def _rest_parts(self, combo: Combo) -> tuple[Combo, ...]:
        known = self._rests.get(combo[1])  # asked again by normal+'s features
        if known is None:
            parts = self.plan.combos
            if combo in parts:
                known = tuple(part for part in parts if part[1] != combo[1])
            else:
                known = plan(self.hand ^ combo[1], self.rules).combos
            self._rests[combo[1]] = known
        return known

    # ----------------------------------------------------------- run-out
    def survival(self, combo: Combo) -> float:
        """Chance that a lead of ``combo`` comes back to us unbeaten."""
        known = self._survival.get(combo[1])
        if known is None:
            if self.is_boss(combo):
                known = 1.0
            else:
                known = survival_chance(self.situation.unseen, combo, self.rules, self.opponent_counts)
            self._survival[combo[1]] = known
        return known

    def run_out(self, parts: Sequence[Combo]) -> float:
        """Chance of playing ``parts`` out once we hold the lead, in the best
        order: every part but the last must survive (the last one goes out
        whatever follows).  Long plans count as 0."""
        if not parts or len(parts) > RUN_OUT_PARTS:
            return 0.0 if parts else 1.0
        return self._run_out(tuple(parts))

    def _run_out(self, parts: tuple[Combo, ...]) -> float:
        if len(parts) == 1:
            return 0.0 if self.finish_penalised(parts[0]) else 1.0
        key = sum(part[1] for part in parts)
        known = self._run_outs.get(key)
        if known is not None:
            return known
        best = 0.0
        for index, part in enumerate(parts):
            chance = self.survival(part)
            if chance > best:
                best = max(best, chance * self._run_out(parts[:index] + parts[index + 1:]))
        self._run_outs[key] = best
        return best

    def _score_pass(self) -> float:
        weights = self.weights
        situation = self.situation
        if not situation.on_turn:
            return weights.pass_base - 1.0  # declining a free out-of-turn chop
        score = weights.pass_base
        top = situation.top
        owner = situation.top_owner
        if owner is not None and situation.in_play[owner]:
            owner_count = situation.counts[owner]
            if owner_count <= len(weights.owner_lead_danger):
                score -= weights.owner_lead_danger[owner_count - 1]
        if top is not None:
            score -= weights.last_card_lead * sum(
                1 for other in situation.opponents() if other != owner and situation.counts[other] == 1
            )
            score -= weights.danger * self._danger_on(top, self.still_in_round)
            score -= weights.round_stay * len(self.still_in_round) * max(0, 11 - (top[2] >> 2)) / 11
        return score - self._cong_risk()

    # -------------------------------------------------------------- terms
    def _spend(self, combo: Combo) -> float:
        """What spending control (2s, bombs) costs while the game is not won."""
        weights = self.weights
        twos = (combo[1] & TWOS_MASK).bit_count()
        cost = weights.two_spend * twos
        if combo.bomb is not None:
            cost += weights.bomb_spend
        if self.endgame and self.rules.leftover is not LeftoverRule.NONE:
            return 0.0  # caught with them as last player costs more
        return cost

    def _pressed(self) -> bool:
        """An opponent is about to go out, or cóng is near: no saving control."""
        return self.min_opponent <= 2 or self._cong_risk() > 0

    def _danger_on(self, combo: Combo, counts: Sequence[int]) -> float:
        """Chance that an opponent with exactly ``combo``'s size in hand beats it and goes out."""
        size = combo[3]
        if size not in counts:
            return 0.0
        return self.beat_chance(combo)

    def _cong_risk(self) -> float:
        situation = self.situation
        if self.rules.cong is CongRule.NONE or situation.has_played[situation.seat]:
            return 0.0
        closest = self.min_opponent
        if closest <= 3:
            return self.weights.cong
        if closest <= 5:
            return self.weights.cong * 0.5
        if closest <= 7:
            return self.weights.cong * 0.2
        return 0.0

    def _leftover_terms(self, combo: Combo) -> float:
        """Thối: in the last two, the loser pays for 2s and bombs still held."""
        if not self.endgame or self.rules.leftover is LeftoverRule.NONE:
            return 0.0
        return self.weights.leftover_per_unit * held_value(self.rules, combo[1])
