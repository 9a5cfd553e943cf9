"""The command line's two consoles: ``out`` for the tables and what was written (120
columns wide when stdout is not a terminal), ``err`` for progress bars and notes (stderr)."""

from __future__ import annotations

import sys

from rich.console import Console


out = Console(width=None if sys.stdout.isatty() else 120)
err = Console(stderr=True)
