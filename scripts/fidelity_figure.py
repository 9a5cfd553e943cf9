"""Paper against ours, per cell, for every reproduced table (issue #12, item 5; first step).

Reads every summary CSV in the shared schema under ``results/`` (columns ``table, dataset,
method, metric, mean, std, paper_mean, paper_std``; the ``*_splits`` and ``*_time`` files are
skipped), keeps the cells with a published value (not ``seconds``), and writes

* ``results/fidelity.png``: one panel per (table file, metric), x = the paper's value, y =
  ours, error bars = the two stds, the diagonal, colour by method (legend per panel) and
  marker by data set;
* ``results/fidelity.md``: per (table file, metric), the cells with a paper value and how many
  are *matched* (the summary's ``matched`` column: ``|ours - paper| <= the paper's spread as
  printed``, a std or, where the paper table's ``spread`` says so, a standard error; the
  figure's error bar on ours is then our standard error), how many of the others a
  reachability bound (``sskernels bound``, files ``*_bound.csv`` beside the tables) shows to be
  *beyond reach* of the method's whole grid, the rest *open*, and the median ``ours - paper``.

    python scripts/fidelity_figure.py [RESULTS_DIR] [--out STEM]

The oracle rows (label "oracle") are the ones comparable with a paper that selected on the
test points (Wang et al.): where a table has them only they are counted; both kinds of row are
plotted, the oracle ones hollow.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SCHEMA = {"table", "dataset", "method", "metric", "mean", "std", "paper_mean", "paper_std"}
MARKERS = "osD^v<>pP*Xhd"


def cells(results: Path) -> pd.DataFrame:
    """Every cell with a published value, one row each, with its source file's stem."""
    frames = []
    for path in sorted(results.glob("*/*.csv")):
        if path.stem.endswith(("_splits", "_time")):
            continue
        df = pd.read_csv(path)
        if not SCHEMA <= set(df.columns):
            continue
        df = df[df["paper_mean"].notna() & (df["metric"] != "seconds")].copy()
        if df.empty:
            continue
        df["source"] = f"{path.parent.name}/{path.stem}"
        frames.append(df)
    if not frames:
        raise ValueError(f"{results}: no summary CSV with paper values in the shared schema")
    out = pd.concat(frames, ignore_index=True)
    out["delta"] = out["mean"] - out["paper_mean"]
    computed = out["delta"].abs() <= out["paper_std"].fillna(0.0)
    if "matched" in out.columns:      # the summary's own verdict where it has one
        given = out["matched"].map({True: True, False: False, "True": True, "False": False})
        out["matched"] = given.where(given.notna(), computed).astype(bool)
    else:
        out["matched"] = computed
    if "paper_spread" not in out.columns:
        out["paper_spread"] = "std"
    out["paper_spread"] = out["paper_spread"].fillna("std")
    if "se" not in out.columns:
        out["se"] = out["std"] / np.sqrt(out["n_splits"]) if "n_splits" in out else out["std"]
    out["beyond"] = _beyond_reach(results, out)
    out["oracle"] = out["method"].str.contains("oracle", regex=False)
    # the rows comparable with the paper: its protocol's (oracle) rows where a table has them
    has_oracle = out.groupby("source")["oracle"].transform("any")
    out["counted"] = ~has_oracle | out["oracle"]
    return out


BOUND_KEY = ["table", "dataset", "setting", "method"]


def _beyond_reach(results: Path, out: pd.DataFrame) -> pd.Series:
    """Per cell: a bound file (``*_bound.csv``, :mod:`sskernels.experiment.bound`) says the
    paper's value is beyond reach of the method's grid (accuracy cells; error cells are their
    complement, the same verdict)."""
    verdicts = []
    for path in sorted(results.glob("*/*_bound.csv")):
        b = pd.read_csv(path)
        if {"verdict", *BOUND_KEY} <= set(b.columns):
            verdicts.append(b[BOUND_KEY + ["verdict"]])
    if not verdicts or not set(BOUND_KEY) <= set(out.columns):
        return pd.Series(False, index=out.index)
    v = pd.concat(verdicts, ignore_index=True).drop_duplicates(BOUND_KEY, keep="last")
    keyed = out[BOUND_KEY].astype(str).merge(v.astype(str), on=BOUND_KEY, how="left")
    hit = (keyed["verdict"] == "beyond reach").to_numpy()
    ok = out["metric"].isin(["accuracy", "error"]).to_numpy()
    return pd.Series(hit & ok & ~out["matched"].to_numpy(bool), index=out.index)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per (source, metric), over the counted rows: cells, matched, beyond reach (by a bound),
    open, median delta."""
    g = df[df["counted"]].groupby(["source", "metric"], sort=True)
    s = pd.DataFrame({"cells": g.size(), "matched": g["matched"].sum(),
                      "beyond": g["beyond"].sum(), "spread": g["paper_spread"].agg(
                          lambda x: "/".join(sorted(set(x)))),
                      "median_delta": g["delta"].median()}).reset_index()
    s["open"] = s["cells"] - s["matched"] - s["beyond"]
    return s


def write_markdown(summ: pd.DataFrame, path: Path):
    lines = ["# Paper against ours, per table", "",
             "Generated by `scripts/fidelity_figure.py` from the summary CSVs under `results/`. "
             "Matched: |ours − paper| ≤ the paper's printed spread, read per table as the "
             "paper-table CSV's `spread` column says (std, or standard error: results/README.md, "
             "\"How each paper's ± reads\"). Beyond reach: not matched, and a reachability bound "
             "(`sskernels bound`: each split's best grid candidate chosen on the test labels) "
             "stays below the paper's value by more than two of its standard errors. Open: the "
             "rest. Where a table has rows with the paper's oracle selection (Wang et al.), only "
             "those are counted; the figure shows both. Figure: `fidelity.png`.", "",
             "| table | metric | paper's ± read as | cells with a paper value | matched | "
             "beyond reach (bound) | open | median ours − paper |",
             "|---|---|---|---|---|---|---|---|"]
    for r in summ.itertuples():
        lines.append(f"| {r.source} | {r.metric} | {r.spread} | {r.cells} | {int(r.matched)} | "
                     f"{int(r.beyond)} | {int(r.open)} | {r.median_delta:+.3g} |")
    tot, hit = int(summ["cells"].sum()), int(summ["matched"].sum())
    lines += ["", f"In all: {hit} of {tot} cells matched, {int(summ['beyond'].sum())} beyond "
              f"reach by a bound, {int(summ['open'].sum())} open."]
    path.write_text("\n".join(lines) + "\n")


def plot(df: pd.DataFrame, path: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(df.groupby(["source", "metric"], sort=True))
    ncol = 4
    nrow = math.ceil(len(panels) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5 * ncol, 4.6 * nrow), squeeze=False)
    for ax, ((source, metric), d) in zip(axes.ravel(), panels):
        methods = sorted(d["method"].str.replace(r" \(oracle.*\)$", "", regex=True).unique())
        colour = {m: plt.cm.tab10(i % 10) for i, m in enumerate(methods)}
        marker = {s: MARKERS[i % len(MARKERS)] for i, s in enumerate(sorted(d["dataset"].unique()))}
        for r in d.itertuples():
            base = r.method.split(" (oracle")[0]
            oracle = "oracle" in r.method
            c = colour[base]
            ours = r.se if r.paper_spread == "se" else r.std   # like with like
            ax.errorbar(r.paper_mean, r.mean, xerr=np.nan_to_num(r.paper_std),
                        yerr=np.nan_to_num(ours), fmt=marker[r.dataset], ms=5, lw=0.6,
                        color=c, mfc="none" if oracle else c, alpha=0.8)
        lo = float(np.nanmin([d["paper_mean"].min(), d["mean"].min()]))
        hi = float(np.nanmax([d["paper_mean"].max(), d["mean"].max()]))
        pad = 0.05 * (hi - lo or 1.0)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], "k--", lw=0.7)
        c = d[d["counted"]]
        n, m, b = len(c), int(c["matched"].sum()), int(c["beyond"].sum())
        what = " (oracle rows)" if d["oracle"].any() else ""
        ax.set_title(f"{source} — {metric}\n{m} of {n} matched, {b} beyond reach, "
                     f"{n - m - b} open{what}", fontsize=9)
        ax.set_xlabel("paper", fontsize=8)
        ax.set_ylabel("ours", fontsize=8)
        ax.tick_params(labelsize=7)
        handles = [plt.Line2D([], [], color=colour[k], marker="o", ls="", ms=5) for k in methods]
        ax.legend(handles, [k[:45] for k in methods], fontsize=5.5, loc="best", frameon=False)
    for ax in axes.ravel()[len(panels):]:
        ax.axis("off")
    fig.suptitle("Paper (x) against ours (y), per cell; hollow: oracle rows; marker: data set",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default="results")
    ap.add_argument("--out", default=None, help="output stem (default RESULTS/fidelity)")
    args = ap.parse_args(argv)
    results = Path(args.results)
    out = Path(args.out) if args.out else results / "fidelity"
    try:
        df = cells(results)
    except ValueError as exc:                # one line, exit 2 (no traceback)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    summ = summary(df)
    write_markdown(summ, out.with_suffix(".md"))
    plot(df, out.with_suffix(".png"))
    print(f"wrote {out.with_suffix('.md')} and {out.with_suffix('.png')}: "
          f"{int(summ['matched'].sum())} of {int(summ['cells'].sum())} cells matched, "
          f"{int(summ['beyond'].sum())} beyond reach",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
