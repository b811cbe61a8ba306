"""The ``hard`` level: determinized Monte Carlo search over the learned scorer's
best few moves, judged by expected settlement in bet units.

For each decision with a real choice:

1. the learned scorer (``normal``, :mod:`tienlen.ai.plus`) ranks every legal
   option and the best ``width`` are kept (plus passing, whenever passing is
   allowed).  Under Northern rules with 2 or 3 players the scorer is the one
   trained there (:func:`tienlen.ai.plus.for_table`); where no scorer plays
   at the table (:func:`tienlen.ai.plus.plays_at`: neither trained nor
   measured to transfer there), the heuristic (:mod:`tienlen.ai.normal`)
   ranks its own options instead;
2. a *world* is sampled: the unseen cards are dealt to the other seats
   consistently with what this seat knows (:mod:`tienlen.ai.sampling`), by a
   Markov chain that favours deals explaining the other seats' past plays
   and passes (:mod:`tienlen.ai.inference`; uniformly when nobody else has
   decided anything yet, or with ``temperature=None``);
3. in that same world every candidate is played and the game is finished
   by the model of the other seats — where the scorer plays, each other
   seat plays as the *type* (heuristic, easy, greedy) the world drew for it
   from its posterior given its past decisions (``types``, prior
   :data:`DEFAULT_TYPES`), or an AI seat told by ``levels`` as its own level;
   elsewhere the heuristic — and this seat's own later
   moves by the scorer (``hero_rollouts``), with common random numbers: the
   candidates are compared on identical deals, which removes most of the noise;
4. every few worlds, candidates clearly worse than the leader (by the paired
   differences on the same worlds) are dropped, so the rest of the budget
   goes to the close contest;
5. the candidate with the best mean ``game.settlement()[seat]`` over the
   completed worlds wins, ties going to the ranking's order; with the scorer,
   it must beat the scorer's own choice by :data:`SCORER_SWITCH_Z` standard
   errors of the paired differences, else the scorer's choice stands.

Options (issue 23, steps 3 and 4; each measured in BENCHMARKS.md):

* ``types``: the opponent model (:mod:`tienlen.ai.opponents`): prior weights over
  player types (``heuristic``, ``easy``, ``greedy``, ``scorer``); the chain weighs deals by
  the mixture, and each world draws each other seat's type from its posterior
  given that world's hand, which then plays that seat in the play-outs.
  ``"default"`` is :data:`DEFAULT_TYPES` where the scorer plays; a prior
  given explicitly applies everywhere; None models every seat as the heuristic;
* ``levels`` (also an argument of :meth:`HardPlayer.choose`): each seat's public
  level, as the table shows it.  Where the opponent model applies, an AI seat is
  then its level's type alone (``normal`` and ``hard`` play as the scorer,
  ``easy`` as ``easy``) and people keep the prior;
* ``exact_chain``: with seats known to be the scorer, the chain itself weighs
  their decisions by the scorer's own likelihood (a diagnostic);
* ``exact_temperature``: that likelihood's softmax temperature in bet units
  (default 0.2; towards 0 it nears "a scorer seat plays its best-valued
  option", which ``normal`` does: no sharper guess measured a gain, issue 44,
  fifth step);
* ``specialists``: told the levels, at a table whose other seats are all AI
  of one level with a specialist scorer (as ``normal`` plays there), this
  seat's options are ranked and its own later moves played by that scorer;
* ``resample``: with seats known to be the scorer (``levels``), each world is
  drawn from the chain's next ``resample`` deals by importance weight: the
  scorer's own likelihood of those seats' decisions over the heuristic's, which
  the chain uses because it is six times cheaper;
* ``tell_scorer``: with a ``scorer`` type in ``types``, tell the other seats
  that play like the learned scorer from those that play like the heuristic
  by the scorer's own likelihood (measured once per seat and search);
* ``chains``: several independent chains, each started from its own uniform
  deal, handing out worlds in turn (consecutive worlds of one chain share most
  of their hidden cards);
* ``batch``: standard errors of the paired differences by batch means over
  this many consecutive worlds of a chain, for the elimination and the switch
  rule (correlated worlds make the plain standard error too small);
* ``scorer_sd``: instead of the switch rule, each candidate's paired mean is
  shrunk towards the scorer's own value of it, weighted by their precisions;
* ``first_bonus``: a play-out where this seat finishes first counts this many
  bet units more than its settlement (first place valued apart from money, as
  ``train fit --first-bonus`` does for the scorer's labels);
* ``inner_moves``: depth.  In each play-out this seat's next ``inner_moves``
  own turns are searched too, inside that world (its best ``inner_width``
  options plus pass, each finished once by the world's players, every hand of
  the world visible), before the scorer plays the rest.  Dearer worlds: fewer
  of them in the budget;
* ``scorer_table_depth``: ``inner_moves`` for the decisions at a table whose
  other seats are all AI played as the scorer (``normal`` or ``hard``, told by
  ``levels``, where the scorer plays): there the play-outs model those
  seats exactly, which is where depth measured a gain (issue 44, third step);
  elsewhere ``inner_moves`` applies.  Opt-in: over 500 games paired with
  one-ply ``hard`` at that table it measured no gain (BENCHMARKS.md).

Worlds are drawn while one more fits in ``budget_ms`` (wall clock, from the
start of the decision; the first ``burn_in_share`` of it warms the chain
up), or exactly ``samples`` worlds after ``burn_in_steps`` chain steps when
``samples`` is given (deterministic: used by tests).
Forced moves and going out are answered at once, and out-of-turn chops too
unless ``search_chops`` (then taking it and letting it go are searched).
"""

from __future__ import annotations

import gc
import itertools
import math
import random
import time
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from tienlen.ai.arena import MAX_ACTIONS, Policy, apply_move, play_out
from tienlen.ai.normal import DEFAULT_WEIGHTS, FINISH, Weights, normal_move, rank_moves
from tienlen.ai.inference import DEFAULT_TEMPERATURE, DealSampler, OpponentModel, record_decisions
from tienlen.ai.opponents import (SCORER_TEMPERATURE, TypedModel, draw_types, known_types, normal_heuristic,
                                  parse_prior, policy_for, scorer_plays, seat_prior)
from tienlen.ai.sampling import SET_ASIDE, WorldBuilder, apply_plain
from tienlen.ai.situation import Situation
from tienlen.combos import Combo

if TYPE_CHECKING:
    from tienlen.ai.model import Model
    from tienlen.game import Game, SeatView

__all__ = ["HardPlayer", "rollout"]

DEFAULT_BUDGET_MS = 300
SCORER_SWITCH_Z = 1.0
"""With the learned scorer, the search overrules its choice only when at least
this many standard errors better (measured: the scorer alone is already strong,
and a few dozen worlds are noisy)."""
HERO_ROLLOUTS = True
"""Whether this seat's own later moves in a play-out are the scorer's (else the heuristic's)."""
SEARCH_CHOPS = True
"""Whether an out-of-turn chop is searched against letting it go (else the heuristic answers).
With a scorer, only where the scorer plays (elsewhere ``hard`` plays as before issue 23)."""
DEFAULT_TYPES = "heuristic:4,easy:1,greedy:1"
"""The opponent model's prior by default (``types="default"``), applied only where
the scorer plays (elsewhere every other seat is the heuristic, as before).
Measured paired against no opponent model, 400 games each at 300 ms of CPU:
vs 3 × heuristic −1.0 ± 4.2 points, vs 3 × easy +6.2 ± 4.4, vs 3 × greedy
+10.0 ± 3.8 (BENCHMARKS.md); people and other bots are not the heuristic."""
ELIMINATE_EVERY = 6
"""Every this many worlds, candidates clearly worse than the leader are dropped."""
ELIMINATION_Z = 2.0
"""How many standard errors below the leader a candidate must be to be dropped."""
MAX_FAILURES = 50
"""Give up a search after this many sampled deals that contradict the view."""
Kinds = tuple[dict[int, str], int]
"""A world's opponent types (seat -> type) and the seed of their play-outs' luck."""
Opponents = tuple[dict[str, float], dict[int, str]]
"""A decision's opponent model: the prior over the types of the seats not
known, and the type of each seat whose level is public."""
MIN_BATCHES = 4
"""With batch means, no candidate is dropped before this many batches (too few
batches give a standard error that is itself too noisy to act on)."""


class HardPlayer:
    """``hard``: Monte Carlo search within ``budget_ms`` per decision.

    >>> from tienlen import Game, RULESETS
    >>> game = Game.deal(RULESETS["mien-nam"], 4, seed=11)
    >>> move = HardPlayer(samples=2).choose(game.view(game.turn), random.Random(5))
    >>> move in game.legal_plays(game.turn)
    True
    """

    level = "hard"

    def __init__(
        self,
        budget_ms: float = DEFAULT_BUDGET_MS,
        *,
        samples: int | None = None,
        width: int = 5,
        weights: Weights = DEFAULT_WEIGHTS,
        temperature: float | None = DEFAULT_TEMPERATURE,
        burn_in_share: float = 0.25,
        burn_in_steps: int = 200,
        thinning: int = 10,
        clock: Callable[[], float] = time.perf_counter,
        switch_z: float | None = None,
        scorer: "Model | str | None" = "shipped",
        hero_rollouts: bool = HERO_ROLLOUTS,
        search_chops: bool = SEARCH_CHOPS,
        types: "str | dict[str, float] | None" = "default",
        chains: int = 1,
        batch: int = 1,
        scorer_sd: float | None = None,
        tell_scorer: bool = False,
        first_bonus: float = 0.0,
        inner_moves: int = 0,
        inner_width: int = 2,
        levels: "Sequence[str | None] | None" = None,
        resample: int = 1,
        specialists: bool = False,
        exact_chain: bool = False,
        exact_temperature: float = SCORER_TEMPERATURE,
        scorer_table_depth: int = 0,
    ) -> None:
        self.budget_ms = budget_ms
        self.samples = samples
        self.width = width
        self.weights = weights
        self.temperature = temperature
        self.burn_in_share = burn_in_share
        self.burn_in_steps = burn_in_steps
        self.thinning = thinning
        self.clock = clock
        """What the budget is measured on: the wall clock (the bot), or e.g.
        ``time.process_time`` for benchmarks on a shared machine."""
        self.switch_z = switch_z
        """The search's pick replaces the first candidate (the scorer's or the
        heuristic's choice) only when its paired mean is ahead by more than this
        many standard errors; None: :data:`SCORER_SWITCH_Z` when the learned scorer
        ranks the candidates, else 0 (the best mean wins)."""
        self.scorer = _scorer(scorer)
        """The learned scorer (``normal+``): when set, candidates are its best
        ``width`` over every legal option, and (``hero_rollouts``) this seat's own
        later moves in each play-out are its moves; the other seats stay ``normal``."""
        self.hero_rollouts = hero_rollouts
        self.search_chops = search_chops
        """Search an out-of-turn chop against letting it go (else ``normal`` answers)."""
        self.default_types = types == "default"
        """Whether the prior is :data:`DEFAULT_TYPES`, used only where the scorer plays."""
        self.types = parse_prior(DEFAULT_TYPES if self.default_types else types) if isinstance(types, str) else types
        """Prior weights over the other seats' types (:mod:`tienlen.ai.opponents`);
        None: every other seat is the heuristic (no opponent model)."""
        self.tell_scorer = tell_scorer
        """With a ``scorer`` type in the prior: tell ``scorer`` seats from ``heuristic``
        ones by the scorer's own likelihood (:class:`~tienlen.ai.opponents.ScorerModel`)."""
        self.chains = chains
        self.batch = batch
        self.scorer_sd = scorer_sd
        """With the scorer: how far (bet units, one standard deviation) its value of
        a candidate relative to its first choice is trusted; the search's paired
        mean is then shrunk towards it (precision-weighted) instead of the
        ``switch_z`` rule.  None: the ``switch_z`` rule."""
        self.first_bonus = first_bonus
        """Bet units added to a play-out's value when this seat finishes first."""
        self.inner_moves = inner_moves
        """How many of this seat's own later turns each play-out searches in its world (0: none)."""
        self.inner_width = inner_width
        """At those turns: how many of the ranking's best options are played out (plus pass)."""
        self.scorer_table_depth = scorer_table_depth
        """``inner_moves`` at a table whose other seats are all known to play as the scorer."""
        self.depth = inner_moves
        """The own later turns searched in the play-outs of the current decision."""
        self.resample = resample
        """With seats known to be the scorer: each world is picked from this many
        of the chain's deals, weighted by the scorer's own likelihood of those
        seats' decisions against the heuristic's that the chain used (1: none)."""
        self.exact_chain = exact_chain
        """With seats known to be the scorer: the deal chain weighs their decisions by
        the scorer's own likelihood instead of the heuristic's (a diagnostic of
        how much the inference can tell: no better than uniform deals, and
        dearer, in BENCHMARKS.md step 14)."""
        self.exact_temperature = exact_temperature
        """The temperature (bet units) of the scorer's own likelihood for ``exact_chain``
        and ``resample``: the lower, the closer to "a known scorer seat plays its
        best-valued option" (it does: ``normal`` is deterministic)."""
        self.specialists = specialists
        """Told the levels, at a table whose other seats are all AI of one level that
        has a specialist scorer (:data:`tienlen.ai.plus.SPECIALIST_WEIGHTS`), rank
        this seat's options and play its own later moves with that specialist, as
        ``normal`` does there; the other seats' models are unchanged."""
        self.hero_scorer = self.scorer
        """The scorer of this seat's own options in the current decision."""
        self.levels = levels
        """Each seat's public level (None: a person) when :meth:`choose` is not told
        them: for benchmarks, where every table has the same levels."""
        self.last_worlds = 0
        """Worlds completed by the last search (for benchmarks)."""
        self.last_chain: DealSampler | None = None
        """The (first) inference chain of the last search, if one ran (for diagnostics)."""
        self.last_types: dict[int, dict[str, float]] = {}
        """With ``types``: per other seat, the mean posterior weight of each type
        over the last search's worlds (for diagnostics)."""

    def choose(self, view: "SeatView", rng: random.Random,
               levels: "Sequence[str | None] | None" = None) -> Combo | None:
        """The move for ``view``'s seat.  ``levels``: each seat's public level
        (``"easy"``, ``"normal"``, ``"hard"``; None for a person), as the table
        shows them.  Where the opponent model applies, an AI seat is then played
        out as its own level instead of a type inferred from its decisions."""
        # The search allocates millions of short-lived acyclic objects; pausing
        # the cyclic collector keeps its full passes (which also walk the memo
        # tables) out of the time budget.  Reference counting still frees them.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._choose(view, rng, self.levels if levels is None else levels)
        finally:
            if collecting:
                gc.enable()

    def _choose(self, view: "SeatView", rng: random.Random, levels: "Sequence[str | None] | None") -> Combo | None:
        start = self.clock()  # the budget covers the whole decision, ranking included
        self.last_worlds = 0
        self.last_chain = None
        self.last_types = {}
        situation = Situation.from_view(view)
        if not situation.legal:
            return None
        self.hero_scorer = self._hero_scorer(levels, situation)
        types = self._opponents(situation, levels)
        self.depth = self._depth(situation, types)
        if not situation.on_turn:
            if self.search_chops and (self.scorer is None or self._uses_scorer(situation)):
                return self._search(view, [*situation.legal[: self.width], None], rng, start, 0.0, types)
            return normal_move(situation, self.weights)
        ranked = self._rank(situation)
        if _obvious(ranked):
            return ranked[0][1]
        candidates = self._candidates(ranked, self.width)
        if len(candidates) == 1:
            return candidates[0]
        priors = None
        if self.scorer_sd is not None and self._uses_scorer(situation):
            values = {id(move): value for value, move in ranked}
            priors = [values[id(move)] - values[id(candidates[0])] for move in candidates]
        return self._search(view, candidates, rng, start, self._switch_z(situation), types, priors)

    def _opponents(self, situation: Situation, levels: "Sequence[str | None] | None") -> "Opponents | None":
        """The opponent model of this decision: the prior over the other seats'
        types and the types of the seats whose level is public, where the model
        applies (the default prior and public levels only where the scorer is
        trained); None: every other seat is the heuristic."""
        trained = self._uses_scorer(situation)
        if self.default_types and not trained:
            return None
        known = known_types(levels, situation.seat) if trained else {}
        if self.types is None and not known:
            return None
        return (self.types or {"heuristic": 1.0}), known

    def _depth(self, situation: Situation, types: "Opponents | None") -> int:
        """The own later turns to search in this decision's play-outs: more at a
        table of known scorer seats (``scorer_table_depth``), where the worlds'
        play-outs are exact models of the other seats."""
        if not self.scorer_table_depth or types is None:
            return self.inner_moves
        known = types[1]
        others = [seat for seat in range(situation.players) if seat != situation.seat]
        if all(known.get(seat) == "scorer" for seat in others):
            return max(self.inner_moves, self.scorer_table_depth)
        return self.inner_moves

    def _hero_scorer(self, levels: "Sequence[str | None] | None", situation: Situation) -> "Model | None":
        """The scorer of this seat's own moves: a specialist for the table's other
        seats' one level (``specialists``) where it covers the rules, else the general scorer."""
        if not self.specialists or self.scorer is None:
            return self.scorer
        from tienlen.ai.plus import table_scorer

        return table_scorer(levels, situation.seat, self.scorer, situation)

    def _uses_scorer(self, situation: Situation) -> bool:
        return scorer_plays(self.scorer, situation.rules.name, situation.players)

    def _switch_z(self, situation: Situation) -> float:
        if self.switch_z is not None:
            return self.switch_z
        return SCORER_SWITCH_Z if self._uses_scorer(situation) else 0.0

    def _rank(self, situation: Situation) -> list[tuple[float, Combo | None]]:
        if self._uses_scorer(situation):
            return ranked_options(situation, self.hero_scorer)
        return rank_moves(situation, self.weights)

    @staticmethod
    def _candidates(ranked: Sequence[tuple[float, Combo | None]], width: int) -> list[Combo | None]:
        chosen = [move for _, move in ranked[:width]]
        if None not in chosen and any(move is None for _, move in ranked):
            chosen.append(None)
        return chosen

    def _search(self, view: "SeatView", candidates: list[Combo | None], rng: random.Random,
                start: float, switch_z: float, types: "Opponents | None",
                priors: list[float] | None = None) -> Combo | None:
        """The candidate with the best paired mean over the worlds drawn in time;
        ``types``: the opponent model of this decision (None: all heuristic)."""
        budget = self.budget_ms / 1000
        deadline = None if self.samples is not None else start + budget
        builder = WorldBuilder(view)
        deals = self._deals(view, builder, rng, start + budget * self.burn_in_share, types)
        results: list[list[float]] = [[] for _ in candidates]  # per candidate, per world
        groups: list | None = [] if self.batch > 1 else None  # per world: its batch (batch means)
        alive = list(range(len(candidates)))
        evaluated = failures = 0
        searching: float | None = None  # when the first world was drawn (after the chain's burn-in)
        while failures < MAX_FAILURES and (self.samples is None or evaluated < self.samples):
            if deadline is not None and searching is not None and evaluated:
                # Start no world that would end past the deadline (at the pace
                # of the worlds so far): the answer comes on time, not one
                # world late.  A world costs a few percent of the budget.
                now = self.clock()
                if now + (now - searching) / evaluated >= deadline:
                    break
            sample = next(deals, None)
            if sample is None:
                break
            hands, group, kinds = sample
            if searching is None:
                searching = self.clock()
            world = builder.build(hands)
            if world is None:
                failures += 1
                continue
            values = self._evaluate(world, view.seat, [candidates[index] for index in alive], deadline, kinds)
            if values is None:
                break  # out of time in the middle of a world: drop it, keep the comparison paired
            for index, value in zip(alive, values):
                results[index].append(value)
            if groups is not None:
                groups.append(group)
            evaluated += 1
            if len(alive) > 1 and evaluated % ELIMINATE_EVERY == 0:
                alive = _survivors(alive, results, groups)
            if deadline is not None and self.clock() >= deadline:
                break
        self.last_worlds = evaluated
        if not evaluated:
            return candidates[0]
        if priors is not None and 0 in alive:
            return candidates[_shrunk_best(alive, results, priors, self.scorer_sd, groups)]
        best = max(alive, key=lambda index: (sum(results[index]), -index))
        if switch_z and best and 0 in alive and not _clearly_better(results[best], results[0], switch_z, groups):
            best = 0  # not clearly better than the heuristic's choice: keep that
        return candidates[best]

    def _deals(self, view: "SeatView", builder: WorldBuilder, rng: random.Random,
               burn_in_until: float, types: "Opponents | None",
               ) -> "Iterator[tuple[dict[int, int], object, Kinds | None]]":
        """Worlds to play out, as (hidden hands, batch, the other seats' types or
        None): from the inference chains when the other seats have made
        decisions to learn from, else uniformly at random (independent)."""
        first = builder.random_world(rng)
        if first is None:
            return
        hands, _ = first
        model = self._model(view, builder, hands, types) if self.temperature is not None else None
        if model is None:
            worlds = 0
            while hands is not None:
                yield hands, worlds, self._draw_types(None, hands, rng, types)
                worlds += 1
                hands = builder.random_hands(rng)
            return
        chains = [DealSampler(model, hands, builder.free_cards, rng)]
        while len(chains) < self.chains and (start := builder.random_world(rng)) is not None:
            chains.append(DealSampler(model, start[0], builder.free_cards, rng))
        self.last_chain = chains[0]
        self._burn_in(chains, burn_in_until)
        drawn = [0] * len(chains)
        for turn in itertools.count():
            index = turn % len(chains)
            chain = chains[index]
            hands = self._resampled(chain, model, rng)
            yield hands, (index, drawn[index] // self.batch), self._draw_types(model, hands, rng, types)
            drawn[index] += 1
            for _ in range(self.thinning):
                chain.step()

    def _resampled(self, chain: DealSampler, model, rng: random.Random) -> dict[int, int]:
        """The chain's current deal or, with ``resample`` and seats known to be
        the scorer, one of its next ``resample`` deals (``thinning`` steps apart)
        drawn by importance weight (:meth:`TypedModel.known_correction`)."""
        if self.resample <= 1 or not isinstance(model, TypedModel) or model.exact_model is None:
            return dict(chain.hands)
        options = [dict(chain.hands)]
        while len(options) < self.resample:
            for _ in range(self.thinning):
                chain.step()
            options.append(dict(chain.hands))
        logs = [model.known_correction(hands) for hands in options]
        best = max(logs)
        return rng.choices(options, [math.exp(log - best) for log in logs])[0]

    def _burn_in(self, chains: list[DealSampler], until: float) -> None:
        if self.samples is not None:
            for chain in chains:
                for _ in range(self.burn_in_steps):
                    chain.step()
            return
        while self.clock() < until:
            for chain in chains:
                chain.step()

    def _model(self, view: "SeatView", builder: WorldBuilder, hands: dict[int, int],
               types: "Opponents | None") -> "OpponentModel | TypedModel | None":
        """The likelihood of the other seats' recorded decisions (None: nobody decided yet)."""
        recorded: list = []

        def record(game: "Game") -> None:
            recorded.extend(record_decisions(game, view.actions, view.seat, apply_plain))

        if builder.build(hands, on_action=record) is None or not recorded:
            return None
        if types is not None:
            prior, known = types
            scorer = self.scorer if self.tell_scorer else None
            exact = self.scorer if self.resample > 1 or self.exact_chain else None
            return TypedModel(view, recorded, prior, self.temperature, self.weights, scorer, known, exact,
                              exact_chain=self.exact_chain, exact_temperature=self.exact_temperature)
        return OpponentModel(view, recorded, self.temperature, self.weights)

    def _draw_types(self, model, hands: dict[int, int], rng: random.Random,
                    types: "Opponents | None") -> "Kinds | None":
        """Each other seat's type in this world and a seed for the random types'
        play-outs (None without an opponent model)."""
        if types is None:
            return None
        prior, known = types
        weights = {seat: (model.posterior(seat, hand) if isinstance(model, TypedModel)
                          else seat_prior(prior, known, seat))
                   for seat, hand in hands.items() if seat != SET_ASIDE}
        for seat, seat_weights in weights.items():
            total = self.last_types.setdefault(seat, dict.fromkeys(seat_weights, 0.0))
            for name, weight in seat_weights.items():
                total[name] += weight
        return draw_types(weights, rng), rng.getrandbits(32)

    def _evaluate(self, world: "Game", seat: int, candidates: list[Combo | None],
                  deadline: float | None, kinds: "Kinds | None" = None) -> list[float] | None:
        results = []
        for move in candidates:
            if deadline is not None and results and self.clock() >= deadline:
                return None
            game = world.copy()
            declined = None
            if game.turn == seat:
                apply_move(game, seat, move)
            elif move is not None:
                game.play(seat, move)  # an out-of-turn chop
            else:
                declined = game.top  # letting the chop go: not offered again on this top
            policies = self._policies(world, seat, kinds)
            if self.depth:
                policies[seat] = self._nested(game, seat, policies[seat], kinds)
            play_out(game, policies, decliner=seat, declined=declined)
            results.append(self._value(game, seat))
        return results

    def _nested(self, game: "Game", seat: int, hero: Policy, kinds: "Kinds | None") -> Policy:
        """This seat's policy in the play-out of ``game``: its next
        ``depth`` own turns searched in that play-out's world (the
        ranking's best ``inner_width`` options plus pass, each finished once by
        fresh players of the world, so random types are paired), then ``hero``."""
        searches_left = self.depth

        def policy(situation: Situation) -> Combo | None:
            nonlocal searches_left
            if not searches_left or not situation.on_turn:
                return hero(situation)
            ranked = self._rank(situation)
            if _obvious(ranked):
                return ranked[0][1]
            searches_left -= 1
            candidates = self._candidates(ranked, self.inner_width)
            values = []
            for move in candidates:
                inner = game.copy()
                apply_move(inner, seat, move)
                play_out(inner, self._policies(game, seat, kinds))
                values.append(self._value(inner, seat))
            return candidates[max(range(len(candidates)), key=lambda index: (values[index], -index))]

        return policy

    def _value(self, game: "Game", seat: int) -> float:
        """A finished play-out's worth to ``seat``: its settlement, plus
        ``first_bonus`` when it finished first."""
        value = float(game.settlement()[seat])
        if self.first_bonus and game.place_of(seat) == 0:
            value += self.first_bonus
        return value

    def _policies(self, world: "Game", seat: int, kinds: "Kinds | None") -> list[Policy]:
        """Who plays each seat in a play-out: this seat by the scorer (or the
        heuristic), the others by the heuristic or, with an opponent model, by
        their type in this world (random ones seeded alike for every candidate)."""
        heuristic = normal_heuristic(self.weights)
        policies = [heuristic] * world.players
        policies[seat] = self._hero_policy(world) or heuristic
        if kinds is not None:
            types, seed = kinds
            for other, kind in types.items():
                policies[other] = policy_for(kind, seed * 31 + other, self.weights, self.scorer)
        return policies

    def _hero_policy(self, world: "Game") -> "Callable[[Situation], Combo | None] | None":
        scorer = self.hero_scorer
        if not self.hero_rollouts or not scorer_plays(scorer, world.rules.name, world.players):
            return None
        return lambda situation: plus_move(situation, scorer)


def _scorer(scorer: "Model | str | None") -> "Model | None":
    """The learned scorer: a model, "shipped" for the repository's weights, or None."""
    if scorer is None or scorer == "none":
        return None
    if scorer == "shipped":
        from tienlen.ai.plus import shipped_model

        return shipped_model()
    if isinstance(scorer, str):
        from tienlen.ai.model import load

        return load(scorer)
    return scorer


def ranked_options(situation: Situation, scorer: "Model") -> list[tuple[float, Combo | None]]:
    from tienlen.ai.plus import ranked_options as ranked  # numpy is imported only when a scorer is used

    return ranked(situation, scorer)


def plus_move(situation: Situation, scorer: "Model") -> Combo | None:
    from tienlen.ai.plus import plus_move as move

    return move(situation, scorer)


def _obvious(ranked: Sequence[tuple[float, Combo | None]]) -> bool:
    """Whether the ranking leaves nothing to search: one option, or going out."""
    return len(ranked) == 1 or ranked[0][0] >= FINISH


def _paired(mine: list[float], theirs: list[float], groups: list | None = None) -> tuple[float, float]:
    """Mean and standard error of the paired differences on the last common
    worlds; with ``groups`` (each world's batch), by batch means: the spread of
    the batches' sums, so worlds of one batch count as one sample (infinite
    with fewer than two batches)."""
    worlds = min(len(mine), len(theirs))
    differences = [a - b for a, b in zip(mine[-worlds:], theirs[-worlds:])]
    mean = sum(differences) / worlds
    if groups is None:
        variance = sum((difference - mean) ** 2 for difference in differences) / max(1, worlds - 1)
        return mean, math.sqrt(variance / worlds)
    sums: dict = {}
    for group, difference in zip(groups[-worlds:], differences):
        sums[group] = sums.get(group, 0.0) + difference - mean
    batches = len(sums)
    if batches < 2:
        return mean, math.inf
    variance = batches / (batches - 1) * sum(total * total for total in sums.values()) / worlds ** 2
    return mean, math.sqrt(variance)


def _shrunk_best(alive: list[int], results: list[list[float]], priors: list[float], prior_sd: float,
                 groups: list | None) -> int:
    """The candidate whose difference to the first one is best once the
    search's paired mean (with its standard error) and the scorer's value
    (with ``prior_sd``) are combined by their precisions."""
    def combined(index: int) -> float:
        if index == 0:
            return 0.0
        mean, error = _paired(results[index], results[0], groups)
        if error == 0:
            return mean
        weight, prior_weight = 1 / error ** 2, 1 / prior_sd ** 2
        return (mean * weight + priors[index] * prior_weight) / (weight + prior_weight)

    return max(alive, key=lambda index: (combined(index), -index))


def _batches(groups: list | None) -> int | None:
    return None if groups is None else len(set(groups))


def _clearly_better(mine: list[float], theirs: list[float], z: float, groups: list | None = None) -> bool:
    if len(mine) < 2:
        return False
    mean, error = _paired(mine, theirs, groups)
    return mean > z * error


def _survivors(alive: list[int], results: list[list[float]], groups: list | None = None) -> list[int]:
    """Drop the candidates whose paired difference to the leader (same worlds)
    is below zero by more than :data:`ELIMINATION_Z` standard errors; the
    remaining budget then goes to the close contest.  With batch means, only
    once there are :data:`MIN_BATCHES` batches."""
    batches = _batches(groups)
    if batches is not None and batches < MIN_BATCHES:
        return alive
    leader = max(alive, key=lambda index: (sum(results[index]), -index))
    keep = []
    for index in alive:
        if index == leader:
            keep.append(index)
            continue
        mean, error = _paired(results[index], results[leader], groups)
        if mean + ELIMINATION_Z * error >= 0:
            keep.append(index)
    return keep


def rollout(game: "Game", weights: Weights = DEFAULT_WEIGHTS, max_actions: int = MAX_ACTIONS, *,
            hero: int | None = None, hero_move: "Callable[[Situation], Combo | None] | None" = None,
            declined: Combo | None = None) -> "Game":
    """Finish ``game`` with every seat played by the normal heuristic (each
    seeing only its own hand), offering out-of-turn chops as the table does.
    ``hero_move`` plays seat ``hero``'s turns instead, when given; ``hero``
    is not offered an out-of-turn chop on the top ``declined`` (it let it go)."""
    policies = [normal_heuristic(weights)] * game.players
    if hero is not None and hero_move is not None:
        policies[hero] = hero_move
    return play_out(game, policies, max_actions, decliner=hero, declined=declined)
