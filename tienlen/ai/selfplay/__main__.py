"""Command line of the self-play trainer (see :mod:`tienlen.ai.selfplay`)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields

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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "export":
        model = export(args.run, args.out)
        print(json.dumps(model.info["selfplay"]), file=sys.stderr)
        return 0
    given = {item.name: getattr(args, item.name) for item in fields(Config) if getattr(args, item.name) is not None}
    from pathlib import Path
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
