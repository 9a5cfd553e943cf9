"""The command line run in the test process (shared by the CLI tests)."""

from __future__ import annotations

import contextlib
import io
import sys


def run_cli(args):
    """``sskernels ARGS`` in this process: (exit code, stdout, stderr)."""
    from sskernels import cli

    out, err = io.StringIO(), io.StringIO()
    argv, sys.argv = sys.argv, ["sskernels", *map(str, args)]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()
