"""The learned move scorer's models: a linear model and a small MLP, in numpy.

A model maps a decision's feature rows (:mod:`tienlen.ai.features`) to one
value per option; only the differences between a decision's options matter
(it is trained on each option's settlement minus the mean over that
decision's options), so the player simply plays the highest value.

Inputs are standardised with the training set's means and scales, kept with
the weights.  The linear model also sees every option feature times a few
context flags (leading, an opponent on one or two cards, the last two in
play): alone, a context feature is the same for every option and cancels.

Weights live in an ``.npz`` file (no pickles) with a JSON header describing
the model and how it was trained; :func:`load` reads one back.  A model
keeps how many features it was trained on (``features``): features are only
ever added at the end of a row, so a model of the first N reads the first N
columns of today's rows and older weights keep working.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from tienlen.ai.features import CONTEXT_NAMES, FEATURES, OPTION_NAMES

__all__ = ["Model", "load", "linear_inputs", "mlp_forward", "mlp_layers", "INTERACTIONS"]

INTERACTIONS = ("lead", "pressed", "opponent_on_one")
"""Context flags the linear model crosses with every option feature."""
_OPTIONS = len(OPTION_NAMES)
_CROSS = [len(OPTION_NAMES) + CONTEXT_NAMES.index(name) for name in INTERACTIONS]


def linear_inputs(rows: np.ndarray) -> np.ndarray:
    """Option features, then each of them times each :data:`INTERACTIONS` flag."""
    options = rows[:, :_OPTIONS]
    crosses = [options * rows[:, column:column + 1] for column in _CROSS]
    return np.concatenate([options, *crosses], axis=1)


@dataclass
class Model:
    """``kind`` is "linear" (``weights["w"]``) or "mlp": layers of ReLUs
    ``w1``, ``b1``, ``w2``, ``b2``, … and a last vector ``wN`` (no bias: only
    differences between options count)."""

    kind: str
    mean: np.ndarray
    scale: np.ndarray
    weights: dict[str, np.ndarray]
    info: dict = field(default_factory=dict)
    """How the model was trained (seeds, positions, fit figures): goes in the file."""
    features: int = FEATURES
    """How many of the leading feature columns it reads."""

    def covers(self, preset: str, players: int) -> bool:
        """Whether the model plays this rule set and table size: it was trained
        there, or it was measured to transfer there (``info["transfers"]``, pairs
        written by ``python -m tienlen.ai.train transfer``); elsewhere ``normal+``
        plays as the heuristic.

        >>> model = Model("linear", np.zeros(1), np.ones(1), {"w": np.zeros(1)},
        ...               {"presets": ["mien-nam"], "players": [4], "transfers": [["iwin", 3]]})
        >>> model.covers("mien-nam", 4), model.covers("iwin", 3), model.covers("iwin", 4)
        (True, True, False)
        """
        presets = self.info.get("presets")
        trained = (not presets or preset in presets) and players in self.info.get("players", (players,))
        return trained or [preset, players] in self.info.get("transfers", [])

    def inputs(self, rows: np.ndarray) -> np.ndarray:
        raw = linear_inputs(rows) if self.kind == "linear" else rows
        return (raw - self.mean) / self.scale

    def predict(self, rows) -> np.ndarray:
        """One value per row (higher = better option)."""
        x = self.inputs(np.atleast_2d(np.asarray(rows, dtype=np.float64))[:, :self.features])
        if self.kind == "linear":
            return x @ self.weights["w"]
        return mlp_forward(self.weights, x)[-1]

    def save(self, path: str | Path) -> None:
        header = {"kind": self.kind, "features": self.features, "info": self.info}
        arrays = {f"w_{name}": value for name, value in self.weights.items()}
        np.savez_compressed(path, header=np.array(json.dumps(header, sort_keys=True)),
                            mean=self.mean, scale=self.scale, **arrays)


def mlp_layers(weights: dict[str, np.ndarray]) -> int:
    """How many weight matrices an MLP has (hidden layers + 1)."""
    return sum(1 for name in weights if name.startswith("w"))


def mlp_forward(weights: dict[str, np.ndarray], x: np.ndarray) -> list[np.ndarray]:
    """The MLP's activations layer by layer: ``x``, each hidden layer's ReLUs,
    and last the output (one value per row)."""
    layers = mlp_layers(weights)
    activations = [x]
    for number in range(1, layers):
        activations.append(np.maximum(activations[-1] @ weights[f"w{number}"] + weights[f"b{number}"], 0.0))
    activations.append(activations[-1] @ weights[f"w{layers}"])
    return activations


_BLAS_LIMITED = False


def _one_blas_thread() -> None:
    """A decision's products are small: with more than one BLAS thread, OpenBLAS
    splits the wider models' ones across threads that spin for a core, which
    tripled the CPU time of a decision when every core is busy (measured in
    BENCHMARKS.md).  Set once per process that loads a model to play."""
    global _BLAS_LIMITED
    if not _BLAS_LIMITED:
        threadpool_limits(limits=1, user_api="blas")
        _BLAS_LIMITED = True


def load(path: str | Path) -> Model:
    """A model saved by :meth:`Model.save` (to play: BLAS gets one thread, see
    :func:`_one_blas_thread`); refuses one built for more features than there are."""
    _one_blas_thread()
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["header"]))
        if header["features"] > FEATURES:
            raise ValueError(f"{path}: built for {header['features']} features, there are {FEATURES}")
        weights = {name[2:]: data[name] for name in data.files if name.startswith("w_")}
        return Model(header["kind"], data["mean"], data["scale"], weights, header.get("info", {}),
                     header["features"])
