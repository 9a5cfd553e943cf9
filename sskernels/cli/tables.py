"""``sskernels table`` and ``sskernels archive`` (the tables and archives of recorded runs),
and the summary tables' helpers the other commands share: the terminal view
(:func:`_show`), a table's stem (:func:`_stem`) and its per-split values
(:func:`_write_splits`)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from sskernels.cli.console import out
from sskernels.cli.specs import _READING_HELP, _WITH_HELP, _specs
from sskernels.errors import UserError


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
