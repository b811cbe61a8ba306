"""Is a scorer short of data or short of information?  A learning curve on rollout labels (issue 44).

Fits the scorer (``train``'s MLP ensemble) on growing shares of the training
decisions of some label files (``python -m tienlen.ai.train label`` or
``python -m tienlen.ai.selfplay label``) and prints each fit's regret on the
same held-out tenth of the decisions (split by decision, ``--seed``), beside
the regret of given weights files (today's ``normal`` by default) and of the
heuristic's choice.  Regret is the best option's true-deal settlement minus the
chosen one's, bet units per decision: if it stops falling as data grows, more
labels of the same kind cannot lift the scorer, and what is left is the price
of the hidden cards for these features.

Usage::

    nice -n 10 python bench/bench_labels.py --data r1.npz [r2.npz] --shares 0.25,0.5,1 --members 10 \
        [--weights a.npz b.npz] [--first-bonus 1]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402

from tienlen.ai.model import load  # noqa: E402
from tienlen.ai.plus import SHIPPED_WEIGHTS  # noqa: E402
from tienlen.ai.train import fit_ensemble, fit_mlp, load_labels, regret, renumber, split  # noqa: E402


def first_decisions(data: dict[str, np.ndarray], share: float) -> dict[str, np.ndarray]:
    """The rows of the first ``share`` of the decisions (they are numbered in labelling order)."""
    groups = data["groups"]
    keep = groups < max(1, int(round(share * (groups.max() + 1))))
    return {name: (renumber(value[keep]) if name == "groups" else value[keep]) for name, value in data.items()}


def fit(training: dict[str, np.ndarray], validation: dict[str, np.ndarray], members: int, epochs: int, seed: int):
    options = {"hidden": 32, "epochs": epochs, "seed": seed}
    if members > 1:
        return fit_ensemble(training, validation, members=members, **options)
    return fit_mlp(training, validation, **options)


def row(name: str, decisions: int | str, figures: dict) -> str:
    return (f"| {name} | {decisions} | {figures['model_regret']:.4f} | {figures['gain_vs_normal']:+.4f} "
            f"± {figures['gain_ci95']:.4f} | {100 * figures['agrees_with_normal']:.1f} % |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", required=True)
    parser.add_argument("--shares", default="0.25,0.5,1")
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first-bonus", type=float, default=0.0)
    parser.add_argument("--weights", nargs="*", default=[str(SHIPPED_WEIGHTS)])
    args = parser.parse_args(argv)
    training, validation = split(load_labels(args.data, first_bonus=args.first_bonus), seed=args.seed)
    lines = ["| scorer | training decisions | held-out regret | gain over the heuristic's choice | agrees with it |",
             "|---|---:|---:|---:|---:|"]
    for path in args.weights:
        lines.append(row(os.path.basename(path), "—", regret(load(path).predict(validation["rows"]), validation)))
        print(lines[-1], file=sys.stderr, flush=True)
    for share in (float(text) for text in args.shares.split(",")):
        part = first_decisions(training, share)
        model = fit(part, validation, args.members, args.epochs, args.seed)
        lines.append(row(f"fit on {share:g} of the training decisions", int(part["groups"].max()) + 1,
                         regret(model.predict(validation["rows"]), validation)))
        print(lines[-1], file=sys.stderr, flush=True)
    print(f"held out: {int(validation['groups'].max()) + 1} decisions; the heuristic's own regret "
          f"{regret(np.zeros(len(validation['values'])), validation)['normal_regret']:.4f}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
