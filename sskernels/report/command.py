"""The ``sskernels report`` command (registered by :mod:`sskernels.cli`)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer


def report(
    paths: Optional[List[Path]] = typer.Argument(
        None,
        help="Combined tables (STEM.csv, e.g. results/liu2009/table3.csv) or folders "
        "searched for them and for run folders (summary.csv beside records/). "
        "Default: the current folder, where `sskernels run` writes its runs "
        "(./results/.../runs/NAME) and --table its tables.",
    ),
    out: Path = typer.Option(Path("report.html"), "--out", "-o", help="The HTML file written."),
    highlight: Optional[List[str]] = typer.Option(
        None,
        "--highlight",
        metavar="LABEL",
        help="Show this method's rows as yours (repeatable); the rows of a --with or "
        "estimator: method are found in the records.",
    ),
    title: str = typer.Option("sskernels report", help="The page's title."),
    plots: bool = typer.Option(True, help="Draw the per-split distributions (matplotlib)."),
):
    """Write one self-contained HTML report (works offline) from recorded runs: paper and
    ours side by side with verdicts, your rows highlighted, a leaderboard per suite (average
    rank, paired wins / ties / losses), per-split distributions and provenance."""
    from sskernels.errors import UserError
    from sskernels.report import write_report

    try:
        path = write_report(
            paths or [Path(".")], out, highlight=highlight or (), title=title, plots=plots
        )
    except (FileNotFoundError, ValueError) as exc:
        raise UserError(str(exc)) from None
    typer.echo(f"wrote {path}")
