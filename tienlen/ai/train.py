"""Trainer of the learned move scorer (``normal+``): labels, fitting, and the regret bank.

Reproducible from its arguments: the labelled deals are named by their
seeds, and a time limit (``--hours``) only stops the labelling early, after
which the file records the seeds actually done.  Keep training seeds
disjoint from the evaluation seeds (``bench/bench_ai.py --seed 1`` plays
deals 1,000,000 to 1,000,499; :data:`DEFAULT_TRAIN_SEEDS` and
:data:`DEFAULT_BANK_SEEDS` are far from them).

::

    python -m tienlen.ai.train label --seeds 50000000:50100000 --hours 0.5 --out labels-r1.npz
    python -m tienlen.ai.train label --seeds 90000000:90003000 --out bank.npz
    python -m tienlen.ai.train fit --data labels-r1.npz --model mlp --out normal_plus.npz
    python -m tienlen.ai.train bank --data bank.npz --weights normal_plus.npz
    python -m tienlen.ai.train label --policy normal_plus.npz --seeds 51000000:51100000 --hours 0.5 --out labels-r2.npz
    python -m tienlen.ai.train all --seeds 50000000:50100000 --hours 0.5 --out normal_plus.npz   # label + fit
    python -m tienlen.ai.train fit --data labels-r1.npz labels-r2.npz --members 10 --epochs 15 --out normal_plus.npz
    python -m tienlen.ai.train fit --data labels-r2.npz --features 72 --out first72.npz   # the first 72 features only
    python -m tienlen.ai.train combine --weights old.npz new.npz --out normal_plus.npz   # the mean of two models
    python -m tienlen.ai.train fit --data labels-r6.npz --first-bonus 1 --out first.npz   # first place worth 1 unit more
    python -m tienlen.ai.train label --preset mien-bac --players 3 --seeds 63000000:63900000 --hours 0.33 --out mb3.npz
    python -m tienlen.ai.train transfer --weights normal_plus.npz --to iwin:4 mien-nam:3 --measured "BENCHMARKS.md, ..." --out normal_plus.npz

Fitting minimises, over the options of each decision, the squared error
between the model's values (minus their mean over the decision) and the
labels (settlement minus the mean over the decision): only differences
between a decision's options are learned.  The linear model is solved in
closed form (ridge); the MLP (layers of ReLUs) with Adam on mini-batches
of decisions, keeping the epoch with the lowest regret on a held-out tenth
of the decisions.  ``--members K`` fits K MLPs from different seeds and
ships their mean as one wider MLP: the labels are single play-outs of
hidden deals, so each fit carries its own share of their noise, and the
mean of several carries less (measured in BENCHMARKS.md).  ``combine`` does
the same for models fitted apart, on other labels or fewer features.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from tienlen.ai.labels import DECISIONS_PER_GAME, label_deals, parse_mixture
from tienlen.ai.model import Model, linear_inputs, load, mlp_forward, mlp_layers
from tienlen.rules import RULESETS

__all__ = ["fit_linear", "fit_mlp", "fit_ensemble", "merge_mlps", "combine", "regret", "load_labels", "main", "DEFAULT_TRAIN_SEEDS", "DEFAULT_BANK_SEEDS"]

DEFAULT_TRAIN_SEEDS = "50000000:50100000"
DEFAULT_BANK_SEEDS = "90000000:90003000"


# ------------------------------------------------------------------ labels
def parse_seeds(text: str) -> range:
    start, _, end = text.partition(":")
    return range(int(start), int(end))


def label(args: argparse.Namespace) -> dict[str, np.ndarray]:
    model = load(args.policy) if args.policy else None
    deadline = time.monotonic() + 3600 * args.hours if args.hours else None
    seeds = parse_seeds(args.seeds)
    started = time.monotonic()
    labels, done = label_deals(args.preset, seeds, model, per_game=args.per_game,
                               opponents=parse_mixture(args.opponents), players=args.players,
                               stop=lambda: deadline is not None and time.monotonic() >= deadline)
    arrays = labels.arrays()
    meta = {"preset": args.preset, "players": args.players, "seeds": f"{seeds.start}:{seeds.start + done}",
            "per_game": args.per_game,
            "policy": "normal+" if model else "normal", "policy_info": _summary(model) if model else {},
            "opponents": args.opponents or "the labelling policy",
            "decisions": labels.decisions, "options": len(labels.values),
            "seconds": round(time.monotonic() - started, 1)}
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    print(json.dumps(meta), file=sys.stderr)
    return arrays


def _summary(model: Model) -> dict:
    """What names a labelling model: its shape and the seeds of its data (the
    data's own records would nest every earlier round's, ever deeper)."""
    info = model.info
    return {"features": model.features, "hidden": info.get("hidden"), "members": info.get("members", 1),
            "data": [part.get("seeds") for part in info.get("data", [])]}


LABEL_ARRAYS = ("rows", "values", "groups", "normal_choice")


def load_labels(paths: list[str], first_bonus: float = 0.0) -> dict[str, np.ndarray]:
    """Several label files as one set (decision numbers kept distinct).

    With ``first_bonus``, each option's value is its settlement plus that
    many bet units when the seat finished first: in ``mien-nam`` first place
    is worth one unit more than second but third costs two units more than
    second, so money alone values a safe second place as much as a chance
    of first.  Needs files that record first places (labelled since
    December 2026)."""
    parts = []
    offset = 0
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            part = {name: data[name] for name in LABEL_ARRAYS}
            if first_bonus:
                if "firsts" not in data.files:
                    raise ValueError(f"{path} does not record first places; --first-bonus needs newer labels")
                part["values"] = part["values"] + np.float32(first_bonus) * data["firsts"]
        part["groups"] = part["groups"] + offset
        offset = int(part["groups"].max()) + 1 if len(part["groups"]) else offset
        parts.append(part)
    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


# ------------------------------------------------------------ group algebra
def group_mean(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each row's mean over its decision (groups are numbered 0..n-1)."""
    sums = np.bincount(groups, weights=values)
    counts = np.bincount(groups)
    return (sums / np.maximum(counts, 1))[groups]


def centred(data: dict[str, np.ndarray]) -> np.ndarray:
    values = data["values"].astype(np.float64)
    return values - group_mean(values, data["groups"])


def renumber(groups: np.ndarray) -> np.ndarray:
    _, numbers = np.unique(groups, return_inverse=True)
    return numbers


def split(data: dict[str, np.ndarray], held_out: float = 0.1, seed: int = 0):
    """Training and validation sets, split by decision."""
    groups = data["groups"]
    decisions = np.unique(groups)
    rng = np.random.default_rng(seed)
    validation = set(rng.choice(decisions, size=max(1, int(held_out * len(decisions))), replace=False).tolist())
    mask = np.array([group in validation for group in groups.tolist()])
    pick = lambda rows: {name: (renumber(value[rows]) if name == "groups" else value[rows]) for name, value in data.items()}
    return pick(~mask), pick(mask)


# ------------------------------------------------------------------ regret
def regret(predicted: np.ndarray, data: dict[str, np.ndarray]) -> dict[str, float]:
    """Mean regret per decision (best option's settlement minus the chosen
    one's) of the model's choice and of ``normal``'s, and how often they agree."""
    groups, values = data["groups"], data["values"].astype(np.float64)
    order = np.lexsort((-predicted, groups))  # per decision, highest prediction first
    first = np.ones(len(order), dtype=bool)
    first[1:] = groups[order][1:] != groups[order][:-1]
    chosen = order[first]  # one row per decision, in decision order
    best = np.full(groups.max() + 1, -np.inf)
    np.maximum.at(best, groups, values)
    normal_rows = np.flatnonzero(data["normal_choice"])
    model_regret = best[groups[chosen]] - values[chosen]
    normal_regret = best[groups[normal_rows]] - values[normal_rows]
    differences = np.zeros(groups.max() + 1)
    differences[groups[chosen]] += values[chosen]
    differences[groups[normal_rows]] -= values[normal_rows]
    return {
        "decisions": int(len(chosen)),
        "model_regret": float(model_regret.mean()),
        "normal_regret": float(normal_regret.mean()),
        "gain_vs_normal": float(differences.mean()),
        "gain_ci95": float(1.96 * differences.std(ddof=1) / np.sqrt(len(differences))) if len(differences) > 1
        else float("nan"),
        "agrees_with_normal": float(np.isin(chosen, normal_rows).mean()),
    }


# ------------------------------------------------------------------ models
def standardise(inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = inputs.mean(axis=0)
    scale = inputs.std(axis=0)
    return mean, np.where(scale > 1e-6, scale, 1.0)


def fit_linear(data: dict[str, np.ndarray], ridge: float = 1.0) -> Model:
    """Ridge regression of the centred labels on the decision-centred inputs."""
    raw = linear_inputs(data["rows"].astype(np.float64))
    mean, scale = standardise(raw)
    x = (raw - mean) / scale
    groups = data["groups"]
    x_centred = x - np.stack([group_mean(column, groups) for column in x.T], axis=1)
    gram = x_centred.T @ x_centred + ridge * np.eye(x.shape[1])
    weights = np.linalg.solve(gram, x_centred.T @ centred(data))
    return Model("linear", mean, scale, {"w": weights}, features=data["rows"].shape[1])


def fit_mlp(data: dict[str, np.ndarray], validation: dict[str, np.ndarray], *, hidden: int | tuple[int, ...] = 32,
            epochs: int = 30, batch: int = 512, rate: float = 2e-3, decay: float = 1e-4,
            seed: int = 0, log=None) -> Model:
    """Hidden layers of ReLUs (``hidden``: one width, or one per layer), Adam on
    mini-batches of ``batch`` decisions; the epoch with the lowest validation
    regret is kept."""
    rows = data["rows"].astype(np.float64)
    mean, scale = standardise(rows)
    widths = (hidden,) if isinstance(hidden, int) else tuple(hidden)
    model = Model("mlp", mean, scale, _initial(rows.shape[1], widths, np.random.default_rng(seed)),
                  features=rows.shape[1])
    x_all = model.inputs(rows)
    targets = centred(data)
    starts, lengths = _group_spans(data["groups"])
    adam = _Adam(model.weights, rate)
    rng = np.random.default_rng(seed + 1)
    best = (np.inf, {name: value.copy() for name, value in model.weights.items()}, -1)
    for epoch in range(epochs):
        for chunk in np.array_split(rng.permutation(len(starts)), max(1, len(starts) // batch)):
            picked = _rows_of(starts[chunk], lengths[chunk])
            local = np.repeat(np.arange(len(chunk)), lengths[chunk])
            adam.step(_gradients(model.weights, x_all[picked], targets[picked], local, decay))
        score = regret(model.predict(validation["rows"]), validation)["model_regret"]
        if log:
            log(f"epoch {epoch + 1}: validation regret {score:.4f}")
        if score < best[0]:
            best = (score, {name: value.copy() for name, value in model.weights.items()}, epoch + 1)
    model.weights = best[1]
    model.info["best_epoch"] = best[2]
    return model


def fit_ensemble(data: dict[str, np.ndarray], validation: dict[str, np.ndarray], *, members: int,
                 seed: int = 0, log=None, **options) -> Model:
    """``members`` MLPs (seeds ``seed``, ``seed + 1``, …) averaged, as one wider
    MLP: their hidden layers side by side (block-diagonal beyond the first),
    the output weights divided by ``members``, so it predicts exactly their mean.
    Averaging models fitted to noisy labels cancels part of each one's error."""
    fitted = []
    for number in range(members):
        model = fit_mlp(data, validation, seed=seed + number, log=log, **options)
        fitted.append(model)
        if log:
            log(f"member {number + 1}/{members}: best epoch {model.info['best_epoch']}")
    merged = Model("mlp", fitted[0].mean, fitted[0].scale, merge_mlps([model.weights for model in fitted]),
                   features=fitted[0].features)
    merged.info.update({"members": members, "best_epoch": [model.info["best_epoch"] for model in fitted]})
    return merged


def merge_mlps(members: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One MLP whose output is the mean of ``members``' (same shapes, same inputs)."""
    layers = mlp_layers(members[0])
    merged = {"w1": np.concatenate([weights["w1"] for weights in members], axis=1)}
    for number in range(1, layers + 1):
        name = f"w{number}"
        if number == layers:
            merged[name] = np.concatenate([weights[name] for weights in members]) / len(members)
        elif number > 1:
            merged[name] = _block_diagonal([weights[name] for weights in members])
        if number < layers:
            merged[f"b{number}"] = np.concatenate([weights[f"b{number}"] for weights in members])
    return merged


def combine(models: list[Model]) -> Model:
    """One MLP predicting the mean of ``models`` (MLPs of one depth, trained on
    other data or on fewer features): each one's standardisation is folded into
    its first layer and the features it does not read get zero weights, so the
    merged model reads raw rows of the widest one's features."""
    features = max(model.features for model in models)
    folded = []
    for model in models:
        weights = dict(model.weights)
        first = weights["w1"] / model.scale[:, None]
        weights["b1"] = weights["b1"] - (model.mean / model.scale) @ weights["w1"]
        weights["w1"] = np.vstack([first, np.zeros((features - model.features, first.shape[1]))])
        folded.append(weights)
    merged = Model("mlp", np.zeros(features), np.ones(features), merge_mlps(folded), features=features)
    merged.info.update({key: value for key, value in models[0].info.items() if key in ("presets", "players")})
    merged.info["combined"] = [dict(model.info, features=model.features) for model in models]
    return merged


def _block_diagonal(blocks: list[np.ndarray]) -> np.ndarray:
    out = np.zeros((sum(block.shape[0] for block in blocks), sum(block.shape[1] for block in blocks)))
    row = column = 0
    for block in blocks:
        out[row:row + block.shape[0], column:column + block.shape[1]] = block
        row, column = row + block.shape[0], column + block.shape[1]
    return out


def _initial(inputs: int, widths: tuple[int, ...], rng: np.random.Generator) -> dict[str, np.ndarray]:
    weights = {}
    fan_in = inputs
    for number, width in enumerate(widths, start=1):
        weights[f"w{number}"] = rng.normal(0.0, np.sqrt(2.0 / fan_in), (fan_in, width))
        weights[f"b{number}"] = np.zeros(width)
        fan_in = width
    weights[f"w{len(widths) + 1}"] = rng.normal(0.0, np.sqrt(1.0 / fan_in), fan_in)
    return weights


def _group_spans(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start row and row count of every decision (rows of a decision are contiguous)."""
    change = np.flatnonzero(np.diff(groups)) + 1
    starts = np.concatenate([[0], change])
    lengths = np.diff(np.concatenate([starts, [len(groups)]]))
    return starts, lengths


def _rows_of(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(starts - offsets, lengths) + np.arange(lengths.sum())


def _gradients(weights: dict[str, np.ndarray], x: np.ndarray, targets: np.ndarray, groups: np.ndarray,
               decay: float) -> dict[str, np.ndarray]:
    """Gradients of the mean squared error of decision-centred predictions."""
    activations = mlp_forward(weights, x)
    output = activations[-1]
    error = output - group_mean(output, groups) - targets
    delta = 2.0 * (error - group_mean(error, groups)) / len(targets)  # d loss / d output
    layers = mlp_layers(weights)
    last = f"w{layers}"
    gradients = {last: activations[-2].T @ delta + decay * weights[last]}
    delta = np.outer(delta, weights[last]) * (activations[-2] > 0)
    for number in range(layers - 1, 0, -1):
        gradients[f"w{number}"] = activations[number - 1].T @ delta + decay * weights[f"w{number}"]
        gradients[f"b{number}"] = delta.sum(axis=0)
        if number > 1:
            delta = (delta @ weights[f"w{number}"].T) * (activations[number - 1] > 0)
    return gradients


class _Adam:
    def __init__(self, weights: dict[str, np.ndarray], rate: float) -> None:
        self.weights = weights
        self.rate = rate
        self.moments = {name: (np.zeros_like(value), np.zeros_like(value)) for name, value in weights.items()}
        self.steps = 0

    def step(self, gradients: dict[str, np.ndarray]) -> None:
        self.steps += 1
        for name, gradient in gradients.items():
            first, second = self.moments[name]
            first *= 0.9
            first += 0.1 * gradient
            second *= 0.999
            second += 0.001 * gradient * gradient
            corrected = first / (1 - 0.9 ** self.steps), second / (1 - 0.999 ** self.steps)
            self.weights[name] -= self.rate * corrected[0] / (np.sqrt(corrected[1]) + 1e-8)


# -------------------------------------------------------------------- CLI
def fit(args: argparse.Namespace) -> Model:
    data = load_labels(args.data, first_bonus=args.first_bonus)
    if args.features:
        data["rows"] = data["rows"][:, :args.features]
    training, validation = split(data, seed=args.seed)
    log = lambda text: print(text, file=sys.stderr, flush=True)
    if args.model == "linear":
        model = fit_linear(training, ridge=args.ridge)
    else:
        options = {"hidden": args.hidden, "epochs": args.epochs, "seed": args.seed, "log": log}
        model = (fit_ensemble(training, validation, members=args.members, **options) if args.members > 1
                 else fit_mlp(training, validation, **options))
        args.hidden = list(args.hidden)
    metas = [_meta(path) for path in args.data]
    model.info.update({
        "presets": sorted({meta["preset"] for meta in metas if "preset" in meta}),
        "players": sorted({meta.get("players", 4) for meta in metas}),
        "model": args.model, "hidden": args.hidden if args.model == "mlp" else 0, "seed": args.seed,
        "first_bonus": args.first_bonus,
        "data": metas,
        "training": regret(model.predict(training["rows"]), training),
        "validation": regret(model.predict(validation["rows"]), validation),
    })
    log(json.dumps({"training": model.info["training"], "validation": model.info["validation"]}))
    return model


def _meta(path: str) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["meta"])) if "meta" in data.files else {"file": Path(path).name}


def bank(args: argparse.Namespace) -> dict:
    data = load_labels(args.data)
    report = regret(load(args.weights).predict(data["rows"]), data)
    print(json.dumps(report))
    return report


def _where(text: str) -> list:
    preset, players = text.rsplit(":", 1)
    if preset not in RULESETS or not 2 <= int(players) <= 4:
        raise argparse.ArgumentTypeError(f"{text!r}: expected PRESET:PLAYERS, e.g. iwin:4")
    return [preset, int(players)]


def transfer(model: Model, where: list[list], measured: str) -> Model:
    """``model`` allowed to play at ``where`` ([preset, players] pairs) beyond what
    it was trained on; the weights are unchanged.

    >>> model = Model("linear", np.zeros(1), np.ones(1), {"w": np.zeros(1)}, {"presets": ["mien-nam"], "players": [4]})
    >>> moved = transfer(model, [["iwin", 4]], "BENCHMARKS.md")
    >>> moved.covers("iwin", 4), moved.covers("iwin", 3), moved.info["transfer_measured"]
    (True, False, 'BENCHMARKS.md')
    """
    info = dict(model.info, transfers=sorted(where), transfer_measured=measured)
    return Model(model.kind, model.mean, model.scale, model.weights, info, model.features)


def _widths(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(","))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tienlen.ai.train", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("label", "all"):
        command = commands.add_parser(name, help="label deals" + (" and fit" if name == "all" else ""))
        command.add_argument("--preset", default="mien-nam")
        command.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
        command.add_argument("--seeds", default=DEFAULT_TRAIN_SEEDS, help="deals START:END (END excluded)")
        command.add_argument("--hours", type=float, default=0.0, help="stop labelling after this long (0: no limit)")
        command.add_argument("--per-game", type=int, default=DECISIONS_PER_GAME)
        command.add_argument("--policy", help="weights of the labelling normal+ (default: normal)")
        command.add_argument("--opponents", help='mixture of opponent types, e.g. "normal:2,easy:1,greedy:1,plus:1" '
                                                 "(default: every seat plays the labelling policy)")
        command.add_argument("--out", required=True)
    fitting = [commands.choices["all"], commands.add_parser("fit", help="fit a model to label files")]
    fitting[1].add_argument("--data", nargs="+", required=True)
    fitting[1].add_argument("--out", required=True)
    for command in fitting:
        command.add_argument("--model", choices=("linear", "mlp"), default="mlp")
        command.add_argument("--hidden", type=_widths, default=(32,),
                             help="hidden layer widths, e.g. 64 or 64,32 (MLP)")
        command.add_argument("--epochs", type=int, default=30)
        command.add_argument("--members", type=int, default=1,
                             help="an ensemble of this many MLPs (seeds --seed, --seed + 1, ...), shipped as one wider MLP")
        command.add_argument("--ridge", type=float, default=1.0)
        command.add_argument("--seed", type=int, default=0)
        command.add_argument("--features", type=int, default=0,
                             help="fit on the first N features only (0: all), e.g. to measure what later ones add")
        command.add_argument("--first-bonus", type=float, default=0.0,
                             help="bet units added to an option's value when the seat finished first (labels that record it)")
    combining = commands.add_parser("combine", help="one model that predicts the mean of several MLPs")
    combining.add_argument("--weights", nargs="+", required=True)
    combining.add_argument("--out", required=True)
    moving = commands.add_parser("transfer", help="let weights play rule sets and table sizes where they were "
                                                  "measured to beat the heuristic (bench/bench_ai.py)")
    moving.add_argument("--weights", required=True)
    moving.add_argument("--to", nargs="+", required=True, type=_where, help="PRESET:PLAYERS, e.g. iwin:4 mien-nam:3")
    moving.add_argument("--measured", required=True, help="where the measurement is written (goes in the file)")
    moving.add_argument("--out", required=True)
    scoring = commands.add_parser("bank", help="regret of weights on labelled positions")
    scoring.add_argument("--data", nargs="+", required=True)
    scoring.add_argument("--weights", required=True)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "bank":
        bank(args)
        return 0
    if args.command == "transfer":
        transfer(load(args.weights), args.to, args.measured).save(args.out)
        return 0
    if args.command == "combine":
        combine([load(path) for path in args.weights]).save(args.out)
        return 0
    if args.command in ("label", "all"):
        arrays = label(args)
        labels_path = args.out if args.command == "label" else str(Path(args.out).with_suffix("")) + "-labels.npz"
        np.savez_compressed(labels_path, **arrays)
        if args.command == "label":
            return 0
        args.data = [labels_path]
    fit(args).save(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
