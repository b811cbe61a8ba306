"""Command line of the self-play trainer (see :mod:`tienlen.ai.selfplay`)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields
from pathlib import Path

from tienlen.ai.selfplay.dmc import Config, export, run


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tienlen.ai.selfplay", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    train = commands.add_parser("train", help="start or resume a run (its directory: --out)")
    train.add_argument("--out", required=True, help="the run's directory (resumed when it holds a checkpoint)")
    train.add_argument("--iterations", type=int, help="stop once the run has this many iterations")
    train.add_argument("--hours", type=float, default=0.0, help="stop before an iteration would pass this long")
    defaults = Config()
    for item in fields(Config):
        flag = "--" + item.name.replace("_", "-")
        default = getattr(defaults, item.name)
        if isinstance(default, bool):
            train.add_argument(flag, dest=item.name, action=argparse.BooleanOptionalAction, default=None)
        else:
            train.add_argument(flag, dest=item.name, type=type(default), default=None,
                               help=f"(default {default})")
    exporting = commands.add_parser("export", help="write a run's scorer as a weights file")
    exporting.add_argument("--run", required=True)
    exporting.add_argument("--out", required=True)
    labelling = commands.add_parser("label", help="paired rollout labels for policy iteration (see .rollouts)")
    labelling.add_argument("--hero", default="shipped", help='the hero\'s scorer: "shipped" or a weights file')
    labelling.add_argument("--others", default="shipped", help='the other seats\' scorer (default today\'s normal)')
    labelling.add_argument("--seeds", required=True, help="deals START:END (END excluded)")
    labelling.add_argument("--hours", type=float, default=0.0, help="stop after this long (0: no limit)")
    labelling.add_argument("--per-game", type=int, default=4)
    labelling.add_argument("--preset", default="mien-nam")
    labelling.add_argument("--out", required=True)
    return parser


def _label(args: argparse.Namespace) -> int:
    import numpy as np
    from tienlen.ai.selfplay.dmc import _scorer_from
    from tienlen.ai.selfplay.rollouts import label_arrays
    from tienlen.ai.train import parse_seeds
    names = {"hero": Path(args.hero).name, "others": Path(args.others).name}
    arrays = label_arrays(args.preset, parse_seeds(args.seeds), _scorer_from(args.hero, 0), _scorer_from(args.others, 0),
                          per_game=args.per_game, hours=args.hours, names=names)
    np.savez_compressed(args.out, **arrays)
    print(str(arrays["meta"]), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "label":
        return _label(args)
    if args.command == "export":
        model = export(args.run, args.out)
        print(json.dumps(model.info["selfplay"]), file=sys.stderr)
        return 0
    given = {item.name: getattr(args, item.name) for item in fields(Config) if getattr(args, item.name) is not None}
    from tienlen.ai.selfplay.dmc import CHECKPOINT, Trainer
    if (Path(args.out) / CHECKPOINT).exists():
        stored = Trainer.resume(args.out).config
        clash = {name: value for name, value in given.items() if getattr(stored, name) != value}
        if clash:
            raise SystemExit(f"{args.out} holds a run with other settings: {clash}")
        config = None
    else:
        config = Config(**given)
    run(args.out, config, iterations=args.iterations, hours=args.hours)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
