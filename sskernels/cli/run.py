"""``sskernels run``: every method of each spec on every split, and the run's tables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

import typer

from sskernels.cli.console import err, out
from sskernels.cli.errors import _interrupt_message
from sskernels.cli.specs import _READING_HELP, _WITH_HELP, _specs
from sskernels.cli.tables import _show, _stem, _write_splits
from sskernels.errors import UserError


def _suite_defaults(specs, table, title, metric):
    """``(table, title, metric)`` of a run: a lone suite argument (``liu2009/table3``) gives
    its combined table's stem, title and metrics where the options do not."""
    from sskernels.suites import get_suite

    suites = [get_suite(p) for p in specs if not Path(p).exists()]
    if len(specs) != 1 or not suites or suites[0] is None:
        return table, title, metric
    suite = suites[0]
    return (
        Path(suite.output) if table is None else table,
        title or suite.reproduces,
        metric or list(suite.metrics) or None,
    )


def run(
    specs: List[Path] = typer.Argument(
        ...,
        help="YAML experiment specs to run, or a suite's name (e.g. liu2009/table3: "
        "its packaged specs and, without --table, its combined table under "
        "results/; sskernels suites list).",
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Worker processes."),
    splits: Optional[int] = typer.Option(
        None, "--splits", min=1, help="Run only the first N splits of each spec."
    ),
    table: Optional[Path] = typer.Option(
        None,
        "--table",
        "-t",
        help="Also write one combined table STEM.csv/STEM.md and its per-split values "
        "STEM_splits.csv (STEM.md or STEM.csv names the same STEM).",
    ),
    title: Optional[str] = typer.Option(None, help="Title of the combined table."),
    metric: Optional[List[str]] = typer.Option(
        None, help="Keep only these metrics in the combined table (repeatable)."
    ),
    progress: bool = typer.Option(True, help="Show a progress bar."),
    reuse: bool = typer.Option(
        True,
        help="Copy a record another spec's output folder (beside this one) already "
        "holds for the same key (same data, splits, method parameters and code) "
        "instead of recomputing it; the copy says reused_from.",
    ),
    backend: str = typer.Option(
        "local",
        "--backend",
        metavar="local|dask",
        help="local: --jobs worker processes on this machine.  dask: the tasks, and each "
        "spec's graphs and spectra, go to a Dask cluster (needs Dask: the 'dask' extra): "
        "a local one of --jobs single-threaded worker processes, or the one at "
        "--scheduler.  Records are written by this process either way; see "
        "docs/distributed.md.",
    ),
    scheduler: Optional[str] = typer.Option(
        None,
        "--scheduler",
        metavar="ADDRESS",
        help="With --backend dask: the address of a running Dask scheduler "
        "(e.g. tcp://host:8786) whose workers run the tasks.",
    ),
    reading: Optional[List[str]] = typer.Option(
        None, "--reading", metavar="NAME", help=_READING_HELP
    ),
    with_: Optional[List[str]] = typer.Option(
        None, "--with", metavar="[LABEL=]MODULE:CLASS", help=_WITH_HELP
    ),
    artifacts: Optional[Path] = typer.Option(
        None,
        "--artifacts",
        metavar="DIR",
        help="Keep the k-NN graphs and their spectra in DIR across runs (local backend): "
        "a run loads those an earlier run built on the same points with the same graph "
        "code, library versions, BLAS and --jobs, and writes those it builds.  Records do "
        "not change; the 'graph (Lap)' time row says what was loaded.  Default: "
        "$SSKERNELS_ARTIFACTS, else no store.",
    ),
    no_cache: bool = typer.Option(
        False,
        "--no-cache",
        help="Keep nothing in the in-memory memos (graphs, spectra, bases, solver results): "
        "each is computed where it is needed, in every worker.  Slower, same records; "
        "for a machine short of memory, or to check that no memo changes a number.  "
        "Sets $SSKERNELS_CACHE=off for the run's workers (those of a Dask cluster at "
        "--scheduler started elsewhere: set it in their environment).",
    ),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Print, per spec, how many records a run would compute and why (new, data "
        "changed, code of FILE changed, parameters changed, versions changed); the data "
        "are loaded for their fingerprint, nothing is fitted or written.",
    ),
):
    """Run every method of each spec on every split (resuming what is already recorded).

    Per-split records go to the spec's output folder (default results/runs/NAME);
    a summary (CSV in the shared schema, and Markdown) is written beside them.
    """
    import pandas as pd

    from sskernels.experiment.runner import run_specs
    from sskernels.experiment.tables import split_rows, summarize, write_table

    from sskernels.experiment.records import claim_output

    from sskernels.experiment.executors import make_executor
    from sskernels.memo import CACHE_ENV, caching_enabled, set_caching

    if no_cache:  # before the workers start, so that they inherit the switch
        os.environ[CACHE_ENV] = "off"
        set_caching(False)
    try:  # a bad $SSKERNELS_CACHE fails here, in one line
        caching_enabled()
    except ValueError as exc:
        raise UserError(str(exc)) from None
    pool = make_executor(backend, jobs, scheduler)  # bad options fail before any spec is read
    table, title, metric = _suite_defaults(specs, table, title, metric)
    parsed = _specs(specs, reading, with_)
    if dry_run:  # what a run would compute and why (experiment/identity)
        from sskernels.experiment.identity import dry_run_text
        from sskernels.experiment.runner import dry_run as planned

        typer.echo(dry_run_text(planned(parsed, n_splits=splits, reuse=reuse)))
        return
    for spec in parsed:  # every output folder checked before any spec runs
        claim_output(spec)
    for spec in parsed:
        if splits is not None and splits > spec.splits.n_splits:
            raise UserError(
                f"{spec.path}: --splits {splits} exceeds the spec's splits.n_splits "
                f"({spec.splits.n_splits}); raise n_splits in the spec to run more"
            )
    frames, per_split = [], []
    from sskernels.experiment.artifacts import using

    with (
        using(artifacts),
        pool as workers,
    ):  # one set of workers (processes or a Dask client) for every spec
        # the specs in order, each begun while the workers finish the one before (run_specs)
        stream = run_specs(
            parsed,
            jobs=jobs,
            progress=progress,
            n_splits=splits,
            console=err,
            reuse=reuse,
            workers=workers,
        )
        while True:
            with _interrupt_message():
                item = next(stream, None)
            if item is None:
                break
            spec, records = item
            summary = summarize(records, spec)
            write_table(summary, str(Path(spec.output) / "summary"), title=spec.name)
            _show(summary, f"{spec.name}  ({spec.output}/summary.md)")
            frames.append(summary)
            per_split.append(split_rows(records, spec))
    if table is not None:
        from sskernels.experiment.tables import select_metrics

        table = _stem(table)
        write_table(
            select_metrics(pd.concat(frames, ignore_index=True), metric), str(table), title=title
        )
        _write_splits(per_split, table, metric)
        out.print(f"wrote {table}.csv and {table}.md")
