"""The command line run in the test process (shared by the CLI tests)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
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


@contextlib.contextmanager
def as_a_process(env, cwd):
    """This process as a subprocess started with environment ``env`` in folder ``cwd`` would
    be: ``os.environ`` is ``env``, the working folder ``cwd`` and ``$PYTHONPATH``'s folders
    lead ``sys.path``; all three are restored when the block ends (the command line also
    appends the working folder to ``sys.path``).  Worker processes spawned in the block
    inherit the environment and the import path, as a subprocess's workers would."""
    saved_env, saved_path, saved_cwd = dict(os.environ), list(sys.path), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    first = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = first + [p for p in sys.path if p not in first]
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        os.environ.clear()
        os.environ.update(saved_env)


def run_in_process(args, env, cwd):
    """``sskernels ARGS`` as ``subprocess.run`` with ``env`` and ``cwd`` would run it, but in
    this process (:func:`run_cli` in :func:`as_a_process`): no interpreter start, no imports,
    and the code hashes of the records' keys computed once per test process.  A
    ``CompletedProcess`` with ``returncode``, ``stdout`` and ``stderr`` (what the command
    line prints; not what a worker process it spawns writes to its own stderr)."""
    with as_a_process(env, cwd):
        code, out, err = run_cli(args)
    return subprocess.CompletedProcess(["sskernels", *map(str, args)], code, out, err)
