"""A summary as Markdown: methods as rows, data sets as columns, one table (and one of
times) per (setting, metric), with the notes as footnotes and the selected parameters.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from sskernels.experiment.tables.notes import split_notes
from sskernels.experiment.tables.schema import REGRESSION_METRICS


def _cell(r, marks=""):
    fmt = {"seconds": "{:.4f}", "alignment": "{:.3f}", "rmse": "{:.3g}", "mse": "{:.3g}"}.get(
        r["metric"], "{:.2f}"
    )

    def pm(mean, std, unit=""):
        return fmt.format(mean) + ("" if pd.isna(std) else " ± " + fmt.format(std) + unit)

    ours = pm(r["mean"], r["std"])
    if not pd.isna(r.get("se", np.nan)) and r.get("n_splits", 1) > 1:
        ours += ", se " + fmt.format(r["se"])
    if pd.isna(r["paper_mean"]):
        return ours + marks
    delta = f"{r['delta']:+.3g}" if r["metric"] in REGRESSION_METRICS else f"{r['delta']:+.2f}"
    unit = " se" if r.get("paper_spread") == "se" else ""
    hit = " ✓" if r.get("matched") is True or str(r.get("matched")) == "True" else ""
    return f"{ours} ({pm(r['paper_mean'], r['paper_std'], unit)}, Δ {delta}{hit}){marks}"


def _header():
    """The provenance line of a summary (empty until ``sskernels.provenance`` exists)."""
    try:
        from sskernels.provenance import summary_header
    except ImportError:
        return ""
    try:
        return summary_header() or ""
    except Exception:  # a summary is still worth writing without its provenance line
        return ""


def _footnote_text(entry):
    m = re.fullmatch(r"(.*) x(\d+)/(\d+)", entry)
    if not m:
        return entry
    return f"{m.group(1)} (in {m.group(2)} of {m.group(3)} splits)"


def to_markdown(df, title=None, header=None):
    """Methods as rows, data sets as columns: ``ours ± std, se s (paper ± std, Δ)``, then times.

    ``header`` (default :func:`sskernels.provenance.summary_header`) is written under the
    title; a cell with notes gets footnote marks ``[1]``, listed under its table with the
    number of splits each note fired in.

    Parameters
    ----------
    df : pandas.DataFrame
        Summary rows (:data:`SCHEMA`).
    title : str, default=None
        A ``# title`` heading; none when None or empty.
    header : str, default=None
        The provenance line; None: :func:`sskernels.provenance.summary_header`; empty:
        none.

    Returns
    -------
    str
        The Markdown, one table (and one of times) per (setting, metric).
    """
    header = _header() if header is None else header
    lines = [f"# {title}", ""] if title else []
    if header:
        lines += [f"Produced by {header}", ""]
    numbers = {}  # (setting, method, dataset, note) -> footnote number (whole document)
    if "notes" not in df.columns:
        df = df.assign(notes="")
    for (setting, metric), g in df.groupby(["setting", "metric"], sort=False):
        datasets = list(dict.fromkeys(g["dataset"]))
        methods = list(dict.fromkeys(g["method"]))
        cells = {(r["method"], r["dataset"]): r for _, r in g.iterrows()}
        n = int(g["n_splits"].max())
        where = (
            "the unseen (held-out) points"
            if metric.startswith("inductive")
            else "the unlabeled points"
        )
        what = (
            "seconds per split (fit + predict, parameter selection included; "
            "graph (Lap): graphs and spectra, once per data set)"
            if metric == "seconds"
            else "centered alignment (in [0, 1]) of the learned kernel with the ideal "
            f"kernel on {where}"
            if metric == "alignment"
            else f"{metric} of the targets on the test points (the labeled pool's points "
            "that are not labeled; mse = mean squared error over points and targets, "
            "rmse = its square root)"
            if metric in REGRESSION_METRICS
            else f"{metric} (%) on {where}"
        )
        lines += [
            f"{what}, {setting}, mean ± std over {n} splits (se = std / √n, the "
            "standard error of the mean); in brackets the paper's value (its ± a std, "
            "or a standard error where marked se) and our difference, ✓ where it is "
            "within the paper's ±",
            "",
        ]
        lines += ["| method | " + " | ".join(datasets) + " |", "|---|" + "---|" * len(datasets)]
        used = []
        for m in methods:
            row = []
            for d in datasets:
                if (m, d) not in cells:
                    row.append("")
                    continue
                marks = []
                for entry in split_notes(cells[(m, d)]["notes"]):
                    k = numbers.setdefault((setting, m, d, entry), len(numbers) + 1)
                    marks.append(f"[{k}]")
                    if (k, m, d, entry) not in used:
                        used.append((k, m, d, entry))
                row.append(_cell(cells[(m, d)], (" " + " ".join(marks)) if marks else ""))
            lines.append(f"| {m} | " + " | ".join(row) + " |")
        if used:
            what = (
                "fallbacks, degenerate fits and the graphs' neighbour searches"
                if any(e.startswith("k-NN ") for _, _, _, e in used)
                else "fallbacks and degenerate fits"
            )
            lines += ["", f"Notes ({what}):", ""]
            lines += [f"- [{k}] {m}, {d}: {_footnote_text(entry)}" for k, m, d, entry in used]
        chosen = [
            (m, d, cells[(m, d)].get("selected"))
            for m in methods
            for d in datasets
            if (m, d) in cells
            and isinstance(cells[(m, d)].get("selected"), str)
            and cells[(m, d)].get("selected")
        ]
        if chosen:
            lines += ["", "<details><summary>Parameters selected (value ×splits)</summary>", ""]
            lines += [f"- {m}, {d}: {sel.replace(' x', ' ×')}" for m, d, sel in chosen]
            lines += ["", "</details>"]
        lines += ["", "seconds per split (fit + predict, mean)", ""]
        lines += ["| method | " + " | ".join(datasets) + " |", "|---|" + "---|" * len(datasets)]
        for m in methods:
            lines.append(
                f"| {m} | "
                + " | ".join(
                    f"{cells[(m, d)]['seconds']:.4f}" if (m, d) in cells else "" for d in datasets
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)
