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
            pm, ps = _paper_value(spec.paper.table, first["dataset"], first["paper"],
                                  first.get("n_labeled"))
        row = _row(spec, first, method, metric, g["value"].to_numpy(float), pm, ps)
        row["seconds"] = round(float(g["seconds"].mean()), 4)
        rows.append(row)
    if spec.paper.time_table:
        rows += _time_rows(records, spec)
    return pd.DataFrame(rows, columns=SCHEMA)


def _paper_value(table, dataset, method, n_labeled):
    pt = paper_table(table)
    hit = pt[(pt["method"] == method) & (pt["dataset"] == dataset)]
    if "n_labeled" in pt.columns and n_labeled is not None:
        hit = hit[hit["n_labeled"].astype(str) == str(int(n_labeled))]
    if not len(hit):
        return np.nan, np.nan
    return float(hit["mean"].iloc[0]), float(hit["std"].iloc[0])


def _time_rows(records, spec):
    """Metric "seconds": fit + predict time per split (selection included), beside the
    paper's time table, and one "graph (Lap)" row for the label-independent work."""
    from sskernels.experiment.records import read_graph_seconds

    rows = []
    one = records.drop_duplicates(["setting", "method", "split"])
    for (setting, method), g in one.groupby(["setting", "method"], sort=False):
        first = g.iloc[0]
        vals = g["seconds"].to_numpy(float)
        pm, ps = _paper_value(spec.paper.time_table, first["dataset"], first["paper"],
                              first.get("n_labeled"))
        rows.append(_row(spec, first, method, "seconds", vals, pm, ps, decimals=4))
    graph = read_graph_seconds(spec.output)
    if graph is not None and len(one):
        first = one.iloc[0]
        pm, ps = _paper_value(spec.paper.time_table, first["dataset"], "graph (Lap)",
                              first.get("n_labeled"))
        rows.append(_row(spec, first, "graph (Lap)", "seconds", np.array([graph]), pm, ps,
                         decimals=4))
    return rows


def _row(spec, first, method, metric, vals, pm, ps, decimals=2):
    mean = float(vals.mean())
    return {
        "table": spec.table or spec.name, "dataset": first["dataset"],
        "setting": first["setting"], "method": method, "metric": metric,
        "mean": round(mean, decimals),
        "std": round(float(vals.std(ddof=1)) if vals.size > 1 else 0.0, decimals),
        "n_splits": int(vals.size), "paper_mean": pm, "paper_std": ps,
        "delta": round(mean - pm, decimals) if not np.isnan(pm) else np.nan,
        "seconds": round(mean, 4) if metric == "seconds" else np.nan,
    }


def _cell(r):
    fmt = "{:.4f}" if r["metric"] == "seconds" else "{:.2f}"

    def pm(mean, std):
        return fmt.format(mean) + ("" if pd.isna(std) else " ± " + fmt.format(std))

    ours = pm(r["mean"], r["std"])
    if pd.isna(r["paper_mean"]):
        return ours
    return f"{ours} ({pm(r['paper_mean'], r['paper_std'])}, Δ {r['delta']:+.2f})"


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
        what = ("seconds per split (fit + predict, parameter selection included; "
                "graph (Lap): graphs and spectra, once per data set)" if metric == "seconds"
                else f"{metric} (%) on {where}")
        lines += [f"{what}, {setting}, mean ± std over {n} splits; "
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


def select_metrics(df, metrics):
    """Keep only the rows of the given metrics (all when ``metrics`` is empty)."""
    return df[df["metric"].isin(metrics)] if metrics else df


def write_table(df, stem, title=None):
    """Write ``stem.csv`` (schema) and ``stem.md`` atomically."""
    df = df[SCHEMA]
    atomic_write_text(f"{stem}.csv", df.to_csv(index=False, float_format="%.4g"))
    atomic_write_text(f"{stem}.md", to_markdown(df, title) + "\n")
