"""``sskernels bound``: the reachability bound of each method's parameter grid (a
diagnosis, never a result)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from sskernels.cli.console import err, out
from sskernels.cli.errors import _interrupt_message
from sskernels.cli.specs import _only_methods, _specs
from sskernels.errors import UserError


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
