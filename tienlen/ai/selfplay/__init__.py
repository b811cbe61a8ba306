"""Self-play training of the move scorer, Deep Monte-Carlo style (issue 44).

:mod:`.episodes` plays whole games through the engine (the network being
trained in some seats, a pool of other players in the rest) and records the
learner's decisions with the seat's real return in bet units;
:mod:`.dmc` fits the scorer to those returns (plain mean squared error, a
critic that may see every hand, warm start from today's ``normal``,
checkpoints that a later run resumes).  Training is numpy; what it exports
is an ordinary scorer file that :class:`~tienlen.ai.plus.NormalPlusPlayer`
plays with numpy inference.

:mod:`.rollouts` is the lower-variance alternative (issue 44, second step):
policy iteration on paired rollout labels, every option of a decision played
out in the true deal with the improved scorer in the hero's seat and a fixed
one (today's ``normal``) in the others, in the format ``train fit`` reads.

::

    python -m tienlen.ai.selfplay train --seed 1 --hours 1 --out RUN     # start or resume RUN
    python -m tienlen.ai.selfplay train --seed 1 --iterations 40 --out RUN   # reproduce a run to iteration 40
    python -m tienlen.ai.selfplay export --run RUN --out scorer.npz
    python bench/bench_ai.py --pairing plus-normal --plus-weights RUN/curve/iteration-0040.npz --games 2000
    python -m tienlen.ai.selfplay label --hero shipped --seeds 71000000:71200000 --hours 0.6 --out r1.npz
"""
