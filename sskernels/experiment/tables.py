"""Summary tables in the one schema every table of the project shares.

Columns: ``table, dataset, setting, method, metric, mean, std, n_splits,
paper_mean, paper_std, delta, seconds`` — one row per cell; ``mean``/``std``
over splits (std with ddof=1, as MATLAB's ``std``), ``seconds`` the mean fit +
predict time per split, paper columns empty where the paper has no value,
``delta = mean - paper_mean``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import numpy as np
import pandas as pd

from sskernels.experiment.records import atomic_write_text

SCHEMA = ["table", "dataset", "setting", "method", "metric", "mean", "std", "n_splits",
          "paper_mean", "paper_std", "delta", "seconds"]


def paper_table_names():
    files = resources.files("sskernels") / "paper_tables"
    return sorted(p.name[:-4] for p in files.iterdir() if p.name.endswith(".csv"))


@lru_cache(maxsize=None)
def paper_table(name):
    """A transcribed paper table (long format: method, dataset, mean, std, ...)."""
    path = resources.files("sskernels") / "paper_tables" / f"{name}.csv"
    with path.open() as fh:
        return pd.read_csv(fh, comment="#", dtype={"method": str, "dataset": str})


def summarize(records, spec):
    """Schema rows of one spec's records."""
    if records.empty:
        return pd.DataFrame(columns=SCHEMA)
    rows = []
    for (_, method, metric), g in records.groupby(["setting", "method", "metric"], sort=False):
        first = g.iloc[0]
        pm = ps = np.nan
        if spec.paper.table:
            pt = paper_table(spec.paper.table)
            hit = pt[(pt["method"] == first["paper"]) & (pt["dataset"] == first["dataset"])]
            if len(hit):
                pm, ps = float(hit["mean"].iloc[0]), float(hit["std"].iloc[0])
        vals = g["value"].to_numpy(float)
        mean = float(vals.mean())
        rows.append({
            "table": spec.table or spec.name, "dataset": first["dataset"],
            "setting": first["setting"], "method": method, "metric": metric,
            "mean": round(mean, 2), "std": round(float(vals.std(ddof=1)) if vals.size > 1 else 0.0, 2),
            "n_splits": int(vals.size), "paper_mean": pm, "paper_std": ps,
            "delta": round(mean - pm, 2) if not np.isnan(pm) else np.nan,
            "seconds": round(float(g["seconds"].mean()), 4),
        })
    return pd.DataFrame(rows, columns=SCHEMA)


def _cell(r):
    ours = f"{r['mean']:.2f} ± {r['std']:.2f}"
    if pd.isna(r["paper_mean"]):
        return ours
    return f"{ours} ({r['paper_mean']:.2f} ± {r['paper_std']:.2f}, Δ {r['delta']:+.2f})"


def to_markdown(df, title=None):
    """Methods as rows, data sets as columns: ``ours ± std (paper ± std, Δ)``, then times."""
    lines = [f"# {title}", ""] if title else []
    for (setting, metric), g in df.groupby(["setting", "metric"], sort=False):
        datasets = list(dict.fromkeys(g["dataset"]))
        methods = list(dict.fromkeys(g["method"]))
        cells = {(r["method"], r["dataset"]): r for _, r in g.iterrows()}
        n = int(g["n_splits"].max())
        where = ("the unseen (held-out) points" if metric.startswith("inductive")
                 else "the unlabeled points")
        lines += [f"{metric} (%) on {where}, {setting}, mean ± std over {n} splits; "
                  "in brackets the paper's value and our difference", ""]
        lines += ["| method | " + " | ".join(datasets) + " |",
                  "|---|" + "---|" * len(datasets)]
        for m in methods:
            lines.append(f"| {m} | " + " | ".join(
                _cell(cells[(m, d)]) if (m, d) in cells else "" for d in datasets) + " |")
        lines += ["", "seconds per split (fit + predict, mean)", ""]
        lines += ["| method | " + " | ".join(datasets) + " |",
                  "|---|" + "---|" * len(datasets)]
        for m in methods:
            lines.append(f"| {m} | " + " | ".join(
                f"{cells[(m, d)]['seconds']:.4f}" if (m, d) in cells else "" for d in datasets)
                + " |")
        lines.append("")
    return "\n".join(lines)


def write_table(df, stem, title=None):
    """Write ``stem.csv`` (schema) and ``stem.md`` atomically."""
    df = df[SCHEMA]
    atomic_write_text(f"{stem}.csv", df.to_csv(index=False, float_format="%.4g"))
    atomic_write_text(f"{stem}.md", to_markdown(df, title) + "\n")
