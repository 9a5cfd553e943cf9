"""``sskernels figure``: error rate (or accuracy) against the number of labeled points,
from the records."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from sskernels.cli.console import out
from sskernels.cli.specs import _WITH_HELP, _specs
from sskernels.cli.tables import _write_splits
from sskernels.errors import UserError


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
