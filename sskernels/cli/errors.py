"""How the command line ends on an error or an interrupt: :func:`run_app` (what
:func:`sskernels.cli.main` does with an exception: one line and an exit code),
:func:`_interrupt_message` (Ctrl-C during a run) and :func:`_one_line`."""

from __future__ import annotations

import sys
from contextlib import contextmanager

import typer

from sskernels.cli.console import err
from sskernels.errors import UserError


@contextmanager
def _interrupt_message():
    """Ctrl-C during a run: say that the finished splits are kept, exit 130 (no traceback)."""
    try:
        yield
    except KeyboardInterrupt:
        err.print("interrupted; the finished splits are recorded: rerun the same command to resume")
        raise typer.Exit(130) from None


def run_app(app, debug):
    """The body of :func:`sskernels.cli.main`: run the Typer ``app``, what it raises ending
    as one error line and an exit code; ``debug`` is the ``--debug`` flag's list, read after
    the app's callback has set ``debug[0]``."""
    import traceback

    from sskernels.errors import InternalError
    from sskernels.faults import environment_fault

    try:
        app()
    except UserError as exc:
        if debug[0]:
            detail = getattr(exc, "detail", "")  # a fit's own frames (a user's estimator)
            if detail:
                print(detail.rstrip(), file=sys.stderr)
            else:
                traceback.print_exc()
        print(f"error: {_one_line(str(exc) or type(exc).__name__)}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        print("interrupted; rerun the same command to resume", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:  # a defect of ours: never disguised as the user's error
        fault = environment_fault(exc)
        if fault is not None:  # a limit of the machine (disk, memory, files)
            if debug[0]:
                traceback.print_exc()
            print(f"error: {_one_line(str(fault))}", file=sys.stderr)
            sys.exit(fault.exit_code)
        if isinstance(exc, InternalError) and exc.detail:
            print(exc.detail.rstrip(), file=sys.stderr)  # where it was raised (a worker)
            if debug[0]:
                traceback.print_exc()
        else:
            traceback.print_exc()
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(
            f"error: internal error (a defect of sskernels; please report it with the "
            f"traceback above): {_one_line(first or type(exc).__name__)}",
            file=sys.stderr,
        )
        sys.exit(1)


#: the longest error line the CLI prints (a message quoting a 100 KB value stays readable)
MAX_ERROR_LINE = 2000


def _one_line(text):
    """An error message as the one line the CLI prints: every line break
    (:meth:`str.splitlines` breaks at ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``,
    ``\\u2029`` too) and other non-printable character escaped, at most
    :data:`MAX_ERROR_LINE` characters."""
    from sskernels.spec import one_line

    return one_line(text, limit=MAX_ERROR_LINE)
