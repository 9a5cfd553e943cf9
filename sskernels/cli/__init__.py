"""Command line: ``sskernels run | table | datasets | methods | suites | bench | get-configs``.

A spec path that does not exist here names a packaged spec (the repository's ``configs/``,
shipped with the package: ``sskernels run liu2009/heart.yaml``; :mod:`sskernels.spec_params`),
said in one line on stderr; ``sskernels get-configs DIR`` writes them out.  A suite's name
(``sskernels run liu2009/table3``, :mod:`sskernels.suites`; ``sskernels suites list``) stands
for the packaged specs of one paper table.  ``run --with [LABEL=]pkg.module:Class`` adds a
user's estimator to every spec of the run (:mod:`sskernels.user_methods`); the current folder
is on the import path, so ``myssl.py`` there is ``myssl:Class``.

The package: :mod:`~sskernels.cli.run`, :mod:`~sskernels.cli.bound`,
:mod:`~sskernels.cli.tables` (``table``, ``archive``), :mod:`~sskernels.cli.figure`,
:mod:`~sskernels.cli.catalog` (``datasets``, ``methods``, ``suites``, ``get-configs``) and
:mod:`~sskernels.cli.bench` hold the commands, registered here on :data:`app`;
:mod:`~sskernels.cli.specs` reads their spec arguments, :mod:`~sskernels.cli.console` holds
the consoles and :mod:`~sskernels.cli.errors` what :func:`main` does with an exception.
"""

from __future__ import annotations

import typer

from sskernels.cli import bench, bound, catalog, figure, run, tables
from sskernels.cli.errors import run_app
from sskernels.cli.specs import _specs
from sskernels.report.command import report as report_command

app = typer.Typer(
    help="Semi-supervised kernel learning: run YAML experiment specs and reproduce the papers' "
    "tables.  Data come from their canonical sources; to work offline, set "
    "SSKERNELS_DATA_MIRROR to a folder holding the data files under their registry paths "
    "(e.g. DIR/uci/heart.dat).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
datasets_app = typer.Typer(help="List and fetch the registered data sets.", no_args_is_help=True)
methods_app = typer.Typer(help="List the registered methods.", no_args_is_help=True)
suites_app = typer.Typer(
    help="List the named suites: the packaged specs of one paper table "
    "(sskernels run liu2009/table3).",
    no_args_is_help=True,
)
app.add_typer(datasets_app, name="datasets")
app.add_typer(methods_app, name="methods")
app.add_typer(suites_app, name="suites")
# `sskernels report`: the command lives with the report (sskernels/report/command.py)
app.command("report")(report_command)
app.command()(run.run)
app.command()(bound.bound)
app.command("table")(tables.table_cmd)
app.command("archive")(tables.archive_cmd)
app.command()(figure.figure)
datasets_app.command("list")(catalog.datasets_list)
datasets_app.command("fetch")(catalog.datasets_fetch)
methods_app.command("list")(catalog.methods_list)
suites_app.command("list")(catalog.suites_list)
app.command("get-configs")(catalog.get_configs)
app.command()(bench.bench)

#: ``--debug``: show the full traceback of any error (set by the app's callback)
_DEBUG = [False]


def _print_version(value: bool):
    """``--version``: ``sskernels X.Y.Z``, exit 0."""
    if value:
        from sskernels import __version__

        typer.echo(f"sskernels {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    debug: bool = typer.Option(
        False,
        "--debug",
        help="Show the full traceback of any error (a spec or data error "
        "too; an internal error always shows its traceback).",
    ),
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
):
    """Semi-supervised kernel learning: run YAML experiment specs and reproduce the papers'
    tables."""
    from sskernels.user_methods import importable_cwd

    _DEBUG[0] = debug
    importable_cwd()  # a user's module in the current folder, as for `python -m`


def main():
    """The console script: a user's error (a spec, data or parameter error) is one line and
    exit 2; any other exception is an internal error: its traceback, one line, exit 1;
    ``--debug`` shows the traceback of either."""
    run_app(app, _DEBUG)


#: what other code imports from here besides the app and main: ``_specs`` (the tests read
#: specs as the commands do); each command is its module's (``sskernels.cli.run.run``)
__all__ = ["app", "datasets_app", "methods_app", "suites_app", "main", "_specs"]
