"""``python -m tienlen play …``: the terminal game (see :mod:`tienlen.cli`)."""

from tienlen.cli import main

raise SystemExit(main())
