"""Deep Monte-Carlo training of the move scorer by self-play (issue 44), in numpy.

The network is ``Q(s, a) = A(row(s, a)) + V(z(s))``:

* ``A`` is the scorer itself (a :class:`~tienlen.ai.model.Model` MLP over the
  option's feature row), warm-started from today's ``normal`` weights.  It is
  what plays: a player takes the option of highest ``A``, exactly as
  ``normal+`` does (:func:`tienlen.ai.plus.plus_move`), and :func:`export`
  writes it in the shipped format;
* ``V`` is a small critic over the decision's context (the same for every
  option, so it never changes which option is best) and, with ``oracle``, the
  other seats' hands (PerfectDou's / Suphx's oracle: it sees every card and is
  only used in training).  The shipped scorer was fitted on differences
  between a decision's options, so its absolute level means nothing: ``V``
  carries the level (the expected return of the state), and the first
  ``warmup`` iterations train ``V`` alone, so that ``A`` starts learning from
  sensible residuals instead of unlearning its warm start.

Each iteration plays ``episodes`` self-play games (:mod:`.episodes`) with the
network fixed, then fits ``Q`` of every recorded learner decision to the
seat's real return (DouZero's plain mean squared error, on-policy: the data
of an iteration is used for ``epochs`` passes and dropped), with Adam.  Every
``snapshot_every`` iterations the current ``A`` joins the pool of opponents
(the last ``snapshots`` of them are kept; the warm start is the first).

A run lives in one directory: ``checkpoint.npz`` (weights, Adam moments, the
pool, the config and the log), ``log.jsonl`` (one line per iteration) and
``curve/iteration-NNNN.npz`` (the scorer every ``keep_every`` iterations, for
the learning curve).  A run stops at an iteration boundary (``--iterations``
or ``--hours``) and the same command resumes it; the episodes and the order
of the mini-batches are seeded by the run's seed and the iteration, so a run
resumed in chunks equals one made in one go (tested).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from tienlen.ai.features import FEATURES
from tienlen.ai.model import Model, _one_blas_thread, load, mlp_forward, mlp_layers
from tienlen.ai.selfplay.episodes import ORACLE_INPUTS, VALUE_INPUTS, play_episodes
from tienlen.ai.train import _Adam, _initial

__all__ = ["Config", "Trainer", "backward", "parse_pool", "export", "CHECKPOINT"]

CHECKPOINT = "checkpoint.npz"


@dataclass
class Config:
    """Everything that defines a run (kept in its checkpoint)."""

    seed: int = 1
    preset: str = "mien-nam"
    init: str = "shipped"
    """The scorer to start from: "shipped" (today's ``normal``), a weights file, or "fresh:H[,H…]"."""
    normal: str = "shipped"
    """Today's ``normal`` in the pool (a fixed reference): "shipped" or a weights file."""
    episodes: int = 1000
    """Self-play games per iteration."""
    learner_share: float = 0.5
    """Chance that a seat plays the network being trained (at least one seat does)."""
    pool: str = "snapshot:2,normal:2,heuristic:1,easy:1,greedy:1"
    """Weights of the kinds of player in the other seats."""
    epsilon: float = 0.02
    """Share of the learner's decisions that take a random option (exploration)."""
    oracle: bool = True
    """Whether the critic sees the other seats' hands."""
    first_bonus: float = 0.0
    """Bet units added to the return of the seat that finishes first."""
    rate: float = 1e-4
    """Adam's step for the scorer ``A``."""
    critic_rate: float = 1e-3
    critic_hidden: int = 64
    critic_decay: float = 1e-5
    batch: int = 256
    epochs: int = 2
    warmup: int = 2
    """Iterations that train the critic alone."""
    snapshot_every: int = 5
    snapshots: int = 4
    keep_every: int = 5
    """Write the scorer to ``curve/`` every this many iterations."""


def parse_pool(text: str) -> list[tuple[str, float]]:
    pool = []
    for part in text.split(","):
        name, _, weight = part.partition(":")
        pool.append((name.strip(), float(weight or 1)))
    return pool


def backward(weights: dict[str, np.ndarray], activations: list[np.ndarray], delta: np.ndarray,
             decay: float = 0.0) -> dict[str, np.ndarray]:
    """Gradients of a loss through an MLP (:func:`~tienlen.ai.model.mlp_forward`'s
    ``activations``), given ``delta`` = d loss / d output per row; a "bias"
    entry of ``weights`` is the output's bias."""
    layers = mlp_layers(weights)
    last = f"w{layers}"
    gradients = {last: activations[-2].T @ delta + decay * weights[last]}
    if "bias" in weights:
        gradients["bias"] = np.array([delta.sum()])
    delta = np.outer(delta, weights[last]) * (activations[-2] > 0)
    for number in range(layers - 1, 0, -1):
        gradients[f"w{number}"] = activations[number - 1].T @ delta + decay * weights[f"w{number}"]
        gradients[f"b{number}"] = delta.sum(axis=0)
        if number > 1:
            delta = (delta @ weights[f"w{number}"].T) * (activations[number - 1] > 0)
    return gradients


def _scorer_from(init: str, seed: int) -> Model:
    if init == "shipped":
        from tienlen.ai.plus import SHIPPED_WEIGHTS
        return load(SHIPPED_WEIGHTS)
    if init.startswith("fresh:"):
        widths = tuple(int(width) for width in init.partition(":")[2].split(","))
        weights = _initial(FEATURES, widths, np.random.default_rng(seed))
        return Model("mlp", np.zeros(FEATURES), np.ones(FEATURES), weights, {"presets": [], "players": [4]})
    return load(init)


def _copy(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {name: value.copy() for name, value in weights.items()}


@dataclass
class Trainer:
    config: Config
    scorer: Model
    critic: dict[str, np.ndarray]
    critic_mean: np.ndarray | None = None
    critic_scale: np.ndarray | None = None
    snapshots: list[dict[str, np.ndarray]] = field(default_factory=list)
    iteration: int = 0
    log: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    """Training time over every chunk of the run."""

    def __post_init__(self) -> None:
        _one_blas_thread()
        self.adam = _Adam(self.scorer.weights, self.config.rate)
        self.critic_adam = _Adam(self.critic, self.config.critic_rate)
        self.normal = _scorer_from(self.config.normal, 0)

    # ------------------------------------------------------------ creation
    @classmethod
    def start(cls, config: Config) -> "Trainer":
        scorer = _scorer_from(config.init, config.seed)
        scorer.info = {"presets": sorted(set(scorer.info.get("presets") or []) | {config.preset}), "players": [4]}
        width = VALUE_INPUTS + (ORACLE_INPUTS if config.oracle else 0)
        critic = _initial(width, (config.critic_hidden,), np.random.default_rng([config.seed, 7]))
        critic["bias"] = np.zeros(1)
        trainer = cls(config, scorer, critic)
        trainer.snapshots.append(_copy(scorer.weights))
        return trainer

    # ------------------------------------------------------------ training
    def snapshot_models(self) -> list[Model]:
        return [Model("mlp", self.scorer.mean, self.scorer.scale, weights, self.scorer.info, self.scorer.features)
                for weights in self.snapshots]

    def q(self, rows: np.ndarray, values: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
        """Activations of ``A`` and of ``V`` and ``Q`` for standardised inputs."""
        scorer = mlp_forward(self.scorer.weights, rows)
        critic = mlp_forward(self.critic, values)
        return scorer, critic, scorer[-1] + critic[-1] + self.critic["bias"][0]

    def step(self) -> dict:
        """One iteration: its episodes, then the fit; returns its log line."""
        config = self.config
        started = time.monotonic()
        first = self.iteration * config.episodes
        batch = play_episodes(config.preset, config.seed, range(first, first + config.episodes), self.scorer,
                              self.normal, self.snapshot_models(), learner_share=config.learner_share,
                              pool=parse_pool(config.pool), epsilon=config.epsilon, oracle=config.oracle,
                              first_bonus=config.first_bonus)
        played = time.monotonic() - started
        data = batch.arrays(config.oracle)
        if self.critic_mean is None:
            self.critic_mean = data["values"].mean(axis=0)
            scale = data["values"].std(axis=0)
            self.critic_scale = np.where(scale > 1e-6, scale, 1.0)
        rows = self.scorer.inputs(data["rows"][:, :self.scorer.features])
        values = (data["values"] - self.critic_mean) / self.critic_scale
        returns = data["returns"]
        before = float(np.mean((self.q(rows, values)[2] - returns) ** 2))
        train_scorer = self.iteration >= config.warmup
        rng = np.random.default_rng([config.seed, self.iteration, 1])
        for _ in range(config.epochs):
            order = rng.permutation(len(returns))
            for chunk in np.array_split(order, max(1, len(order) // config.batch)):
                scorer, critic, q = self.q(rows[chunk], values[chunk])
                delta = 2.0 * (q - returns[chunk]) / len(chunk)
                self.critic_adam.step(backward(self.critic, critic, delta, config.critic_decay))
                if train_scorer:
                    self.adam.step(backward(self.scorer.weights, scorer, delta))
        after = float(np.mean((self.q(rows, values)[2] - returns) ** 2))
        self.iteration += 1
        if self.iteration % config.snapshot_every == 0:
            self.snapshots = (self.snapshots + [_copy(self.scorer.weights)])[-config.snapshots:]
        elapsed = time.monotonic() - started
        self.seconds += elapsed
        line = {"iteration": self.iteration, "games": self.iteration * config.episodes, "decisions": len(returns),
                "mse_before": round(before, 4), "mse_after": round(after, 4),
                "return_variance": round(float(returns.var()), 4), "scorer_trained": train_scorer,
                "learner": _outcomes(batch.outcomes), "seconds": round(elapsed, 1), "play_seconds": round(played, 1)}
        self.log.append(line)
        return line

    # ------------------------------------------------------- checkpoints
    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        header = {"config": asdict(self.config), "iteration": self.iteration, "log": self.log,
                  "seconds": self.seconds, "adam_steps": self.adam.steps, "critic_adam_steps": self.critic_adam.steps,
                  "scorer_kind": self.scorer.kind, "scorer_features": self.scorer.features,
                  "scorer_info": self.scorer.info, "snapshots": len(self.snapshots)}
        arrays = {"header": np.array(json.dumps(header, sort_keys=True)),
                  "scorer_mean": self.scorer.mean, "scorer_scale": self.scorer.scale}
        if self.critic_mean is not None:
            arrays["critic_mean"], arrays["critic_scale"] = self.critic_mean, self.critic_scale
        for prefix, weights in (("a_", self.scorer.weights), ("v_", self.critic)):
            for name, value in weights.items():
                arrays[prefix + name] = value
        for prefix, adam in (("am_", self.adam), ("vm_", self.critic_adam)):
            for name, (first, second) in adam.moments.items():
                arrays[f"{prefix}1_{name}"], arrays[f"{prefix}2_{name}"] = first, second
        for number, weights in enumerate(self.snapshots):
            for name, value in weights.items():
                arrays[f"s{number}_{name}"] = value
        path = directory / CHECKPOINT
        temporary = directory / (CHECKPOINT + ".tmp.npz")
        np.savez_compressed(temporary, **arrays)
        os.replace(temporary, path)
        return path

    @classmethod
    def resume(cls, directory: str | Path) -> "Trainer":
        with np.load(Path(directory) / CHECKPOINT, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            arrays = {name: data[name] for name in data.files if name != "header"}
        config = Config(**header["config"])
        pick = lambda prefix: {name[len(prefix):]: value for name, value in arrays.items() if name.startswith(prefix)}
        scorer = Model(header["scorer_kind"], arrays["scorer_mean"], arrays["scorer_scale"], pick("a_"),
                       header["scorer_info"], header["scorer_features"])
        trainer = cls(config, scorer, pick("v_"), arrays.get("critic_mean"), arrays.get("critic_scale"),
                      [pick(f"s{number}_") for number in range(header["snapshots"])], header["iteration"],
                      header["log"], header["seconds"])
        for prefix, adam, steps in (("am_", trainer.adam, header["adam_steps"]),
                                    ("vm_", trainer.critic_adam, header["critic_adam_steps"])):
            adam.steps = steps
            for name in adam.moments:
                adam.moments[name] = (arrays[f"{prefix}1_{name}"].copy(), arrays[f"{prefix}2_{name}"].copy())
        return trainer

    def export(self) -> Model:
        """The scorer as a playable model, with how it was trained."""
        info = dict(self.scorer.info)
        info["selfplay"] = {"config": asdict(self.config), "iteration": self.iteration,
                            "games": self.iteration * self.config.episodes, "seconds": round(self.seconds),
                            "command": command_line(self.config, self.iteration)}
        return Model(self.scorer.kind, self.scorer.mean, self.scorer.scale, _copy(self.scorer.weights), info,
                     self.scorer.features)


def _outcomes(outcomes: list[tuple[int, str, float, bool]]) -> dict:
    """The learner seats' mean settlement and first places in the iteration's games, by table."""
    tables: dict[str, list[tuple[float, bool]]] = {}
    for _, others, units, first in outcomes:
        tables.setdefault("all", []).append((units, first))
        if len(set(others.split(","))) == 1:
            tables.setdefault(f"3x{others.split(',')[0]}", []).append((units, first))
    return {name: {"seats": len(results), "units": round(sum(u for u, _ in results) / len(results), 3),
                   "first": round(sum(f for _, f in results) / len(results), 3)}
            for name, results in sorted(tables.items())}


def command_line(config: Config, iterations: int) -> str:
    """The command that reproduces a run up to ``iterations``."""
    defaults = Config()
    parts = ["python -m tienlen.ai.selfplay train"]
    for item in fields(Config):
        value = getattr(config, item.name)
        if item.name == "seed" or value != getattr(defaults, item.name):
            flag = "--" + item.name.replace("_", "-")
            if isinstance(value, bool):
                parts.append(flag if value else "--no-" + item.name.replace("_", "-"))
            else:
                parts.append(f"{flag} {value}")
    parts.append(f"--iterations {iterations} --out RUN")
    return " ".join(parts)


def export(directory: str | Path, out: str | Path) -> Model:
    model = Trainer.resume(directory).export()
    model.save(out)
    return model


def run(directory: str | Path, config: Config | None, *, iterations: int | None = None, hours: float = 0.0,
        log=lambda text: print(text, file=sys.stderr, flush=True)) -> Trainer:
    """Start (or resume, when ``directory`` has a checkpoint) a run and train until
    ``iterations`` in all, or until another iteration would pass ``hours``."""
    directory = Path(directory)
    if (directory / CHECKPOINT).exists():
        trainer = Trainer.resume(directory)
        if config is not None and config != trainer.config:
            raise ValueError(f"{directory} holds a run with another config: {asdict(trainer.config)}")
        log(f"resumed at iteration {trainer.iteration}")
    else:
        if config is None:
            raise ValueError(f"no checkpoint in {directory}")
        trainer = Trainer.start(config)
        trainer.save(directory)
        _keep(trainer, directory)
    started = time.monotonic()
    while iterations is None or trainer.iteration < iterations:
        done = trainer.iteration
        spent = time.monotonic() - started
        if hours and done and spent + trainer.seconds / max(1, done) > 3600 * hours:
            break
        line = trainer.step()
        trainer.save(directory)
        with open(directory / "log.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
        if trainer.iteration % trainer.config.keep_every == 0:
            _keep(trainer, directory)
        log(json.dumps(line))
        if hours and time.monotonic() - started > 3600 * hours:
            break
    return trainer


def _keep(trainer: Trainer, directory: Path) -> None:
    curve = directory / "curve"
    curve.mkdir(exist_ok=True)
    trainer.export().save(curve / f"iteration-{trainer.iteration:04d}.npz")
