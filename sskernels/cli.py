"""Command line: ``sskernels run | table | datasets | methods | suites | bench | get-configs``.

A spec path that does not exist here names a packaged spec (the repository's ``configs/``,
shipped with the package: ``sskernels run liu2009/heart.yaml``; :mod:`sskernels.spec_params`),
said in one line on stderr; ``sskernels get-configs DIR`` writes them out.  A suite's name
(``sskernels run liu2009/table3``, :mod:`sskernels.suites`; ``sskernels suites list``) stands
for the packaged specs of one paper table.  ``run --with [LABEL=]pkg.module:Class`` adds a
user's estimator to every spec of the run (:mod:`sskernels.user_methods`); the current folder
is on the import path, so ``myssl.py`` there is ``myssl:Class``.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from sskernels.errors import UserError

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
from sskernels.report.command import report as report_command  # noqa: E402

app.command("report")(report_command)

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


out = Console(width=None if sys.stdout.isatty() else 120)
err = Console(stderr=True)


def _specs(paths, readings=None, with_=()):
    """The specs of ``paths``; with ``readings`` (names, or ``["all"]``) each spec under each
    of those readings it declares instead (:func:`sskernels.spec.load_spec`'s ``reading``):
    a named reading a spec does not declare is an error, ``all`` skips specs without any.
    A path that does not exist here may name a packaged spec (:func:`_spec_file`) or a
    suite of them (:func:`sskernels.suites.expand`); each ``with_`` value (``--with``) adds
    its method to every spec (checked first: an error names the flag)."""
    from functools import partial

    from sskernels.spec import load_spec
    from sskernels.suites import expand, get_suite
    from sskernels.user_methods import check_with, importable_cwd

    importable_cwd()
    extra = [(f"--with[{i}]", check_with(w)) for i, w in enumerate(with_ or ())]
    files = []
    for p in paths:
        suite = None if Path(p).exists() else get_suite(p)
        if suite is not None:  # one note for the suite, not one per spec
            print(
                f"note: suite {suite.name}: {len(suite.specs)} specs, {suite.reproduces} "
                f"(outputs under {Path.cwd()})",
                file=sys.stderr,
            )
        files += [_spec_file(q, quiet=suite is not None) for q in expand([p])]
    loads = [
        partial(load_spec, path, extra_methods=extra, output_base=base) for path, base in files
    ]
    if not readings:
        return [load() for load in loads]
    out = []
    for load in loads:
        names = list(load().readings) if readings == ["all"] else readings
        out += [load(reading=name) for name in names]
    if not out:
        raise UserError("--reading all: none of the specs declares a reading (readings:)")
    return out


def _spec_file(path, quiet=False):
    """``(file, output_base)`` of a spec path given on the command line: the path itself, or,
    when it does not exist here, the packaged spec it names, whose relative output is taken
    under the current directory (said in one line on stderr unless ``quiet``: a suite's
    specs, which :func:`_specs` announces once)."""
    from sskernels.spec_params import packaged_output_base, packaged_spec

    found = packaged_spec(path)
    if found is None:
        return path, None
    base = packaged_output_base(found)
    if not quiet:
        print(
            f"note: {path} is not a file here; running the packaged spec {found} (its "
            f"outputs under {Path.cwd()})",
            file=sys.stderr,
        )
    return found, base


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


_WITH_HELP = (
    "Add a method to every spec (repeatable): a user's estimator by its import path "
    "pkg.module:Class, a registered method's name or an entry point of "
    "'sskernels.methods'; LABEL=... names its row (default: the path or name).  The "
    "estimator takes -1 for unlabeled points and gives transduction_ or predict."
)


_READING_HELP = (
    "Run the specs under these documented alternative readings (their "
    "'readings:' overlays; repeatable, or 'all' for every reading each spec "
    "declares) instead of the primary specs.  Their records go beside the "
    "primary ones (OUTPUT.NAME) and their rows carry the reading's name."
)


def _only_methods(spec, methods):
    """Keep only the spec's methods labelled in the comma-separated ``methods`` (None: all)."""
    if methods:
        wanted = [m.strip() for m in methods.split(",")]
        spec.methods = [m for m in spec.methods if m.label in wanted]
        if not spec.methods:
            raise UserError(f"{spec.path}: no method labelled {', '.join(wanted)}")
    return spec


def _show(df, title):
    """A compact terminal view of schema rows: ours beside the paper's value."""
    t = Table(title=title)
    for col, just in (
        ("dataset", "left"),
        ("setting", "left"),
        ("method", "left"),
        ("metric", "left"),
        ("ours", "right"),
        ("paper", "right"),
        ("Δ", "right"),
        ("s/split", "right"),
    ):
        t.add_column(col, justify=just)
    notes = "notes" in df.columns and bool(df["notes"].fillna("").astype(str).str.strip().any())
    if notes:
        t.add_column("notes", justify="left")
    chosen = "selected" in df.columns and bool(
        df["selected"].fillna("").astype(str).str.strip().any()
    )
    if chosen:
        t.add_column("selected (value ×splits)", justify="left")
    for _, r in df.iterrows():
        f = ".3g" if r["metric"] in ("rmse", "mse") else ".2f"  # regression: targets' units
        paper = (
            ""
            if r["paper_mean"] != r["paper_mean"]
            else f"{r['paper_mean']:{f}}"
            + (
                ""
                if r["paper_std"] != r["paper_std"]
                else f" ± {r['paper_std']:{f}}" + (" se" if r.get("paper_spread") == "se" else "")
            )
        )
        delta = (
            ""
            if r["delta"] != r["delta"]
            else f"{r['delta']:+{f}}"
            + (" ✓" if r.get("matched") is True or str(r.get("matched")) == "True" else "")
        )
        cells = [
            str(r["dataset"]),
            str(r["setting"]),
            str(r["method"]),
            str(r["metric"]),
            f"{r['mean']:{f}} ± {r['std']:{f}}",
            paper,
            delta,
            f"{r['seconds']:.3f}",
        ]
        if notes:
            cells.append("" if not isinstance(r["notes"], str) else r["notes"])
        if chosen:
            cells.append(
                "" if not isinstance(r["selected"], str) else r["selected"].replace(" x", " ×")
            )
        t.add_row(*cells)
    out.print(t)


@app.command()
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
    with pool as workers:  # one set of workers (processes or a Dask client) for every spec
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


def _stem(path):
    """A table's STEM: ``OUT.md`` and ``OUT.csv`` name ``OUT`` (the files written are
    ``OUT.md``, ``OUT.csv``, not ``OUT.md.md``)."""
    return path.with_suffix("") if path.suffix in (".md", ".csv") else path


def _write_splits(per_split, stem, metric=None):
    """``STEM_splits.csv`` beside a combined table: the per-split values we publish."""
    import pandas as pd

    from sskernels.experiment.tables import write_splits

    path = write_splits(pd.concat(per_split, ignore_index=True), str(stem), metric)
    if path is not None:
        out.print(f"wrote {path}")


@app.command()
def bound(
    specs: List[Path] = typer.Argument(..., help="YAML experiment specs whose methods to bound."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Worker processes."),
    splits: Optional[int] = typer.Option(
        None, "--splits", min=1, help="Bound only the first N splits of each spec."
    ),
    output: Optional[Path] = typer.Option(
        None, "--output", "-o", help="Also write one combined bound table STEM.csv/STEM.md."
    ),
    title: Optional[str] = typer.Option(None, help="Title of the combined table."),
    free: bool = typer.Option(
        True,
        help="Also scan the parameters the spec fixes that a method can select (over "
        "its default grid); --no-free: only the spec's own grids.",
    ),
    methods: Optional[str] = typer.Option(
        None, help="Comma-separated method labels: bound only these rows of each spec."
    ),
    progress: bool = typer.Option(True, help="Show a progress bar."),
):
    """Reachability bound, a DIAGNOSIS, never a result: the best accuracy each method's
    parameter grid reaches when the TEST labels choose the parameters.

    Every candidate is fitted on every split and scored on the unlabeled points (records in
    OUTPUT_bound beside the spec's output, resumable).  Per method: bound (each split's best
    candidate, averaged), the best single candidate, the spec's own result (when run) and the
    paper's value; "beyond our reading" where the paper's value exceeds the bound by more than
    two combined standard errors (the bound's and the paper's own), i.e. no parameter choice
    gets there on these splits as we read the protocol.  Writes
    OUTPUT_bound/bound.csv and .md per spec.
    """
    import copy

    import pandas as pd

    from sskernels.experiment.bound import bound_rows, bound_spec, write_bound
    from sskernels.experiment.records import claim_output
    from sskernels.experiment.collect import load_records
    from sskernels.experiment.executors import LocalExecutor
    from sskernels.experiment.runner import run_spec

    parsed = []
    for spec in _specs(specs):
        try:
            parsed.append((spec, *bound_spec(_only_methods(copy.copy(spec), methods), free=free)))
        except ValueError as exc:
            raise UserError(str(exc)) from None
    for _, bspec, _, _ in parsed:
        claim_output(bspec)
        if splits is not None and splits > bspec.splits.n_splits:
            raise UserError(
                f"{bspec.path}: --splits {splits} exceeds the spec's "
                f"splits.n_splits ({bspec.splits.n_splits})"
            )
    frames, skipped_all = [], []
    with LocalExecutor(jobs) as workers:
        for spec, bspec, grids, skipped in parsed:
            with _interrupt_message():
                records = run_spec(
                    bspec,
                    jobs=jobs,
                    progress=progress,
                    n_splits=splits,
                    console=err,
                    workers=workers,
                )
            try:
                ours = load_records(spec, n_splits=splits)
            except UserError as exc:
                err.print(f"note: no result of {spec.path} beside the bound ({exc})")
                ours = None
            df = bound_rows(records, spec, bspec, grids, ours)
            stem = str(Path(bspec.output) / "bound")
            write_bound(df, stem, title=f"{spec.name}: reachability bound", skipped=skipped)
            out.print(f"wrote {stem}.csv and {stem}.md")
            frames.append(df)
            skipped_all += skipped
    combined = pd.concat(frames, ignore_index=True)
    _show_bound(combined)
    if output is not None:
        write_bound(combined, str(output), title=title, skipped=skipped_all)
        out.print(f"wrote {output}.csv and {output}.md")


def _show_bound(df):
    t = Table(title="reachability bound (test labels choose: a diagnosis, not a result)")
    for col in ("dataset", "method", "grid", "paper", "ours", "bound", "best fixed", "verdict"):
        t.add_column(col)
    for r in df.itertuples():

        def f(v):
            return "" if v != v else f"{v:.2f}"

        t.add_row(
            str(r.dataset),
            str(r.method),
            str(r.grid),
            f(r.paper_mean),
            f(r.ours),
            f"{r.bound:.2f} ± {r.bound_se:.2f}",
            f(r.best_fixed),
            str(r.verdict),
        )
    out.print(t)


@app.command("table")
def table_cmd(
    specs: List[Path] = typer.Argument(..., help="YAML specs whose records to summarize."),
    output: Path = typer.Option(
        ..., "--output", "-o", help="Write STEM.csv, STEM.md and STEM_splits.csv."
    ),
    title: Optional[str] = typer.Option(None, help="Title of the table."),
    metric: Optional[List[str]] = typer.Option(None, help="Keep only these metrics (repeatable)."),
    reading: Optional[List[str]] = typer.Option(
        None, "--reading", metavar="NAME", help=_READING_HELP
    ),
    splits: Optional[int] = typer.Option(
        None,
        "--splits",
        min=1,
        help="Only the first N splits of each spec (as run with "
        "`sskernels run --splits N`); later ones are ignored.",
    ),
    with_: Optional[List[str]] = typer.Option(
        None, "--with", metavar="[LABEL=]MODULE:CLASS", help=_WITH_HELP
    ),
):
    """Re-render a summary table from the specs' recorded splits, without running anything."""
    import pandas as pd

    from sskernels.experiment.collect import load_records
    from sskernels.experiment.tables import summarize, write_table

    from sskernels.experiment.tables import split_rows

    output = _stem(output)
    frames, per_split = [], []
    for spec in _specs(specs, reading, with_):
        records = load_records(spec, n_splits=splits)
        if records.empty:
            raise UserError(f"{spec.path}: no records under {spec.output}; run it first")
        frames.append(summarize(records, spec))
        per_split.append(split_rows(records, spec))
    from sskernels.experiment.tables import select_metrics

    df = select_metrics(pd.concat(frames, ignore_index=True), metric)
    write_table(df, str(output), title=title)
    _write_splits(per_split, output, metric)
    _show(df, f"{output}.md")


@app.command("archive")
def archive_cmd(
    paths: List[Path] = typer.Argument(
        ..., help="YAML specs, or output folders (e.g. results/*/runs/*), whose records to pack."
    ),
):
    """Pack the records of each spec (or output folder) into one compressed file beside its
    output folder, OUTPUT.records.jsonl.gz, meant to be committed: a fresh clone's run takes
    its records from there when their keys still match (the same data, protocol and code),
    so after a change of code only the records that change made stale are computed again."""
    from sskernels.experiment.archive import archive_path, write_archive

    for path in paths:
        outputs = (
            [Path(path)]
            if Path(path).is_dir()  # a suite: each of its specs
            else [Path(spec.output) for spec in _specs([path])]
        )
        for output in outputs:
            n = write_archive(output)
            if n:
                out.print(f"{path}: {n} records -> {archive_path(output)}")
            else:
                out.print(f"{path}: no records under {output}; nothing archived")


@app.command()
def figure(
    specs: List[Path] = typer.Argument(..., help="YAML specs whose records to plot."),
    output: Path = typer.Option(
        ..., "--output", "-o", help="Write STEM.png, STEM.csv/.md and STEM_splits.csv."
    ),
    metric: Optional[List[str]] = typer.Option(
        None, help="Metrics to plot, one panel column each (default: all recorded)."
    ),
    title: Optional[str] = typer.Option(None, help="Title of the figure."),
    accuracy: bool = typer.Option(
        False, "--accuracy", help="Plot accuracy (%) instead of error rate (%)."
    ),
    with_: Optional[List[str]] = typer.Option(
        None,
        "--with",
        metavar="[LABEL=]MODULE:CLASS",
        help=_WITH_HELP + "  Its rows are highlighted.",
    ),
):
    """Plot error rate (or accuracy) against the number of labeled points from the records.

    One panel row per data set (per spec when specs share a data set), one column
    per metric; writes the figure with the numbers behind it (CSV, Markdown).  A table with
    one labeled-set size per data set (e.g. liu2009/table3) is drawn as one panel per data
    set instead: every row (--with rows highlighted) as a dot with its std, the paper's value
    as a red diamond (the first --metric, default accuracy)."""
    import pandas as pd

    from sskernels.experiment.figures import error_curves, setting_dots, write_figure
    from sskernels.experiment.collect import load_records
    from sskernels.experiment.tables import split_rows, summarize, write_table

    records, frames, per_split = [], [], []
    loaded = _specs(specs, with_=with_)
    for spec in loaded:
        rec = load_records(spec)
        if rec.empty:
            raise UserError(f"{spec.path}: no records under {spec.output}; run it first")
        records.append(rec)
        frames.append(summarize(rec, spec))
        per_split.append(split_rows(rec, spec))
    names = [str(rec["dataset"].iloc[0]) for rec in records]
    for spec, rec, name in zip(loaded, records, names):  # one panel per spec
        rec["panel"] = f"{name} ({spec.name})" if names.count(name) > 1 else name
    if all(rec["n_labeled"].nunique() == 1 for rec in records):  # one setting: no curve
        mine = [
            m.label for spec in loaded for m in spec.methods[len(spec.methods) - len(with_ or ()) :]
        ]
        summary = pd.concat(frames, ignore_index=True)
        shown = (
            metric
            or [m for m in ("accuracy",) if m in set(summary["metric"])]
            or [summary["metric"].iloc[0]]
        )[0]
        fig = setting_dots(summary, shown, title, accuracy, highlight=mine)
    else:
        fig = error_curves(pd.concat(records, ignore_index=True), metric, title, accuracy)
    write_figure(fig, f"{output}.png")
    write_table(pd.concat(frames, ignore_index=True), str(output), title=title)
    _write_splits(per_split, output)
    out.print(f"wrote {output}.png, {output}.csv and {output}.md")


@datasets_app.command("list")
def datasets_list():
    """Name, size, classes ("regression" for a regression set), source and whether the files
    are cached."""
    from sskernels.data import list_datasets

    t = Table(title="data sets")
    for col in ("name", "n", "d", "classes", "cached", "source"):
        t.add_column(col)
    for info in list_datasets():
        classes = str(info.n_classes) if info.task == "classification" else info.task
        t.add_row(
            info.name,
            str(info.n),
            str(info.d),
            classes,
            "yes" if info.cached else "no",
            info.source,
        )
    out.print(t)


@datasets_app.command("fetch")
def datasets_fetch(names: List[str] = typer.Argument(..., help="Registered data set names.")):
    """Download (or take from SSKERNELS_DATA_MIRROR) and verify a data set's files."""
    from sskernels.data import fetch

    for name in names:
        for path in fetch(name):
            out.print(f"{name}: {path}")


@methods_app.command("list")
def methods_list():
    """Name, paper, equation and whether the method predicts unseen points; then the methods
    installed packages register (entry points of 'sskernels.methods')."""
    from sskernels.learners.registry import METHODS, get_method
    from sskernels.user_methods import entry_point_names

    t = Table(title="methods")
    t.add_column("name", no_wrap=True, min_width=max(len(n) for n in METHODS))  # never cut
    for col in ("paper", "equation", "inductive", "description"):
        t.add_column(col)
    for m in sorted(METHODS.values(), key=lambda m: m.name):
        t.add_row(m.name, m.paper, m.equation, "yes" if m.inductive else "no", m.description)
    for name in entry_point_names():
        if name in METHODS:
            continue
        try:
            m = get_method(name)
        except Exception as exc:  # noqa: BLE001 - a broken package: listed, not fatal
            t.add_row(name, "entry point", "", "", f"cannot be used: {exc}")
            continue
        t.add_row(name, "entry point", m.equation, "yes" if m.inductive else "no", m.description)
    out.print(t)


@suites_app.command("list")
def suites_list():
    """Name, number of specs, what paper table it reproduces and the Makefile target of each
    suite; `sskernels run NAME` runs its packaged specs and writes its combined table."""
    from sskernels.suites import SUITES

    t = Table(title="suites (sskernels run NAME [--with LABEL=module:Class])")
    t.add_column("name", no_wrap=True)
    t.add_column("specs", justify="right")
    t.add_column("reproduces")
    t.add_column("combined table")
    for s in SUITES.values():
        t.add_row(s.name, str(len(s.specs)), s.reproduces, s.output)
    out.print(t)


@app.command("get-configs")
def get_configs(
    dest: Optional[Path] = typer.Argument(
        None,
        help="Folder to write the packaged specs to (./configs gives the repository's "
        "layout: their outputs then go under ./results).",
    ),
    list_: bool = typer.Option(False, "--list", help="List the packaged specs instead."),
    force: bool = typer.Option(
        False, "--force", help="Overwrite files in DEST that differ from the packaged."
    ),
):
    """Write out the paper specs that ship with the package (the repository's configs/), or
    list them.  Any command also takes a packaged spec by its name, e.g. `sskernels run
    liu2009/heart.yaml`, when no such file exists here."""
    from sskernels.spec_params import packaged_specs, write_packaged

    if list_:
        for name in packaged_specs():
            typer.echo(name)
        return
    if dest is None:
        raise UserError("get-configs: give a folder to write the packaged specs to, or --list")
    written = write_packaged(dest, force=force)
    typer.echo(f"wrote {len(written)} specs under {dest}")


@app.command()
def bench(
    specs: List[Path] = typer.Argument(..., help="YAML specs to time."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1),
    splits: Optional[int] = typer.Option(None, "--splits", min=1),
    budget: Optional[float] = typer.Option(
        None, help="Fail (exit 1) when the total exceeds this many seconds."
    ),
    methods: Optional[str] = typer.Option(
        None, help="Comma-separated method labels: time only these rows of each spec."
    ),
    out_stem: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Also write the per-stage table as STEM.csv and STEM.md."
    ),
    floors_: bool = typer.Option(
        True,
        "--floors/--no-floors",
        help="Measure each data set's floors in the same run (one dense n x n solve, one "
        "brute-force k-NN pass, a dense eigh; sskernels.experiment.floors) and give "
        "every stage as a multiple of them.",
    ),
    compare: bool = typer.Option(
        False,
        "--compare/--no-compare",
        help="Also give each row's seconds per split against the committed records of the "
        "same splits (the spec's archive, whatever their keys): fresh ÷ committed, so "
        "that a regression or a speed-up shows as a ratio.",
    ),
):
    """Time fresh runs of specs (records go to a temporary folder; nothing is resumed, and no
    record is copied from another spec: every row is computed).

    Each stage is also given as a multiple of its floor on the machine that runs it, measured
    in the same run: a method's seconds per split in dense n x n solves, the graphs and
    spectra in one brute-force k-NN pass plus one dense eigh.  With --compare, each row's
    seconds per split also against the committed records of the same splits."""
    import tempfile

    from sskernels.experiment.archive import archived_seconds
    from sskernels.experiment.floors import floors as measure_floors
    from sskernels.experiment.preparation import prepare
    from sskernels.experiment.runner import run_spec
    from sskernels.graph import clear_cache

    t = Table(title="benchmark: wall seconds of fresh runs (no resume)")
    for col in ("spec", "n", "splits", "graph+spectrum", "÷ (k-NN + eigh)", "total"):
        t.add_column(col, justify="left" if col == "spec" else "right")
    per_method: dict = {}
    rows, compared = [], []
    grand = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for spec in _specs(specs):
            committed = archived_seconds(spec.output) if compare else {}
            spec.output = str(Path(tmp) / spec.name)
            _only_methods(spec, methods)
            fl = {"n": None, "solve": None, "knn": None, "eigh": None}
            prep = None
            if floors_:
                # loaded once: the floors and the run share the prepared data (not timed)
                prep = prepare(spec, n_splits=splits)
                fl = measure_floors(prep.X, k=getattr(spec.graph, "k", 6) or 6)
            clear_cache()
            t0 = time.perf_counter()
            rec = run_spec(
                spec, jobs=jobs, progress=False, n_splits=splits, reuse=False, prepared=prep
            )
            total = time.perf_counter() - t0
            grand += total
            graph_s = float(rec.attrs.get("graph_seconds", 0.0))
            gfloor = (fl["knn"] + fl["eigh"]) if fl["knn"] and fl["eigh"] else None
            rows.append(
                _bench_row(
                    spec.name,
                    fl,
                    "graph + spectrum (once per data set)",
                    graph_s,
                    "k-NN pass + eigh",
                    gfloor,
                )
            )
            for m, g in rec.drop_duplicates(["method", "setting", "split"]).groupby(
                "method", sort=False
            ):
                s = g["seconds"]
                entry = per_method.setdefault(m, [0.0, None, ""])
                entry[0] += float(s.sum())
                row = _bench_row(spec.name, fl, m, float(s.mean()), "dense solve", fl["solve"])
                if compare:
                    old = [
                        committed.get((m, st, int(si))) for st, si in zip(g["setting"], g["split"])
                    ]
                    pairs = [(float(a), b) for a, b in zip(s, old) if b is not None]
                    row["committed_seconds"] = (
                        None if not pairs else round(sum(b for _, b in pairs) / len(pairs), 6)
                    )
                    row["vs_committed"] = (
                        None
                        if not pairs or not sum(b for _, b in pairs) > 0
                        else round(sum(a for a, _ in pairs) / sum(b for _, b in pairs), 3)
                    )
                    compared.append((spec.name, m, pairs))
                rows.append(row)
                if row["ratio"] is not None and (entry[1] is None or row["ratio"] > entry[1]):
                    entry[1], entry[2] = row["ratio"], spec.name
            t.add_row(
                spec.name,
                str(fl["n"] or ""),
                str(rec["split"].nunique()),
                f"{graph_s:.3f}",
                _times(_ratio_of(graph_s, gfloor)),
                f"{total:.2f}",
            )
    t.add_row("all", "", "", "", "", f"{grand:.2f}")
    out.print(t)
    tm = Table(
        title="fit + predict seconds per method, summed over all splits and specs; "
        "the largest mean split in dense solves of its data set's size"
    )
    for col in ("method", "seconds", "× dense solve (max)", "at"):
        tm.add_column(col, justify="left" if col in ("method", "at") else "right")
    for m, (s, r, at) in per_method.items():
        tm.add_row(m, f"{s:.2f}", _times(r), at)
    out.print(tm)
    if compare:
        out.print(_compare_table(compared))
    if out_stem is not None:
        _write_bench(out_stem, rows, jobs, splits, compare)
    if budget is not None and grand > budget:
        err.print(f"bench: {grand:.1f} s exceeds the budget of {budget:.1f} s")
        raise typer.Exit(1)


def _compare_table(compared):
    """Fresh against committed seconds per split, per row (summed over the specs), and all."""
    t = Table(
        title="seconds per split: fresh runs against the committed records of the same "
        "splits (ratio = fresh ÷ committed)"
    )
    for col in ("method", "splits", "fresh s/split", "committed s/split", "ratio"):
        t.add_column(col, justify="left" if col == "method" else "right")
    by_method: dict = {}
    for _, m, pairs in compared:
        by_method.setdefault(m, []).extend(pairs)
    total_new = total_old = 0.0
    for m, pairs in by_method.items():
        new, old = sum(a for a, _ in pairs), sum(b for _, b in pairs)
        total_new, total_old = total_new + new, total_old + old
        k = len(pairs)
        t.add_row(
            m,
            str(k),
            f"{new / k:.3f}" if k else "-",
            f"{old / k:.3f}" if k else "-",
            f"{new / old:.2f}" if old > 0 else "-",
        )
    t.add_row(
        "all",
        "",
        f"{total_new:.2f} (sum)",
        f"{total_old:.2f} (sum)",
        f"{total_new / total_old:.2f}" if total_old > 0 else "-",
    )
    return t


def _ratio_of(seconds, floor):
    from sskernels.experiment.floors import ratio

    return ratio(seconds, floor)


def _times(r):
    return "-" if r is None else f"{r:,.1f}×"


def _bench_row(spec, fl, stage, seconds, floor_name, floor):
    return {
        "spec": spec,
        "n": fl["n"],
        "stage": stage,
        "seconds": round(seconds, 6),
        "floor": floor_name,
        "floor_seconds": None if floor is None else round(floor, 7),
        "ratio": _ratio_of(seconds, floor),
    }


def _write_bench(stem, rows, jobs, splits, compare=False):
    """STEM.csv (one row per spec and stage) and STEM.md (the same, and the provenance)."""
    import pandas as pd

    from sskernels.experiment.records import atomic_write_text
    from sskernels.provenance import summary_header

    df = pd.DataFrame(
        rows,
        columns=[
            "spec",
            "n",
            "stage",
            "seconds",
            "floor",
            "floor_seconds",
            "ratio",
            "committed_seconds",
            "vs_committed",
        ],
    )
    df["ratio"] = pd.to_numeric(df["ratio"], errors="coerce").round(2)
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(stem.with_suffix(".csv"), df.to_csv(index=False))
    lines = [
        f"# Benchmark: {stem.name}",
        "",
        summary_header(),
        "",
        f"Fresh runs (no resume), `--jobs {jobs}`"
        + ("" if splits is None else f", first {splits} splits")
        + "; a method's seconds are its mean per split (fit + predict, selection "
        "included), the graph's the whole label-independent stage; `ratio` is seconds "
        "÷ the floor measured in the same run on a matrix of the data set's size "
        "(`sskernels.experiment.floors`: one dense solve; one brute-force k-NN pass "
        "plus one dense eigh; `-`: above 5,000 points, not measured)"
        + (
            "; `committed`: the mean seconds of the committed records of the same splits, "
            "`÷ committed`: fresh ÷ committed (`--compare`)"
            if compare
            else ""
        )
        + ".",
        "",
        "| spec | n | stage | seconds | floor | floor seconds | ratio |"
        + (" committed | ÷ committed |" if compare else ""),
        "|---|---|---|---|---|---|---|" + ("---|---|" if compare else ""),
    ]
    for r in rows:
        fs = "-" if r["floor_seconds"] is None else f"{r['floor_seconds']:.5f}"
        line = (
            f"| {r['spec']} | {r['n'] or '-'} | {r['stage']} | {r['seconds']:.4f} | "
            f"{r['floor']} | {fs} | {_times(r['ratio'])} |"
        )
        if compare:
            c, v = r.get("committed_seconds"), r.get("vs_committed")
            line += f" {'-' if c is None else f'{c:.4f}'} | {'-' if v is None else f'{v:.2f}'} |"
        lines.append(line)
    atomic_write_text(stem.with_suffix(".md"), "\n".join(lines) + "\n")


@contextmanager
def _interrupt_message():
    """Ctrl-C during a run: say that the finished splits are kept, exit 130 (no traceback)."""
    try:
        yield
    except KeyboardInterrupt:
        err.print("interrupted; the finished splits are recorded: rerun the same command to resume")
        raise typer.Exit(130) from None


def main():
    """The console script: a user's error (a spec, data or parameter error) is one line and
    exit 2; any other exception is an internal error: its traceback, one line, exit 1;
    ``--debug`` shows the traceback of either."""
    import traceback

    from sskernels.errors import InternalError
    from sskernels.faults import environment_fault

    try:
        app()
    except UserError as exc:
        if _DEBUG[0]:
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
            if _DEBUG[0]:
                traceback.print_exc()
            print(f"error: {_one_line(str(fault))}", file=sys.stderr)
            sys.exit(fault.exit_code)
        if isinstance(exc, InternalError) and exc.detail:
            print(exc.detail.rstrip(), file=sys.stderr)  # where it was raised (a worker)
            if _DEBUG[0]:
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


if __name__ == "__main__":
    main()
