"""Paper against ours, each distinct paper cell once, for every reproduced table.

Reads every summary CSV in the shared schema under ``results/`` (``*/*.csv`` with the columns
of :data:`sskernels.experiment.tables.SCHEMA`; the ``*_splits``, ``*_time`` and ``*_bound``
files are not summaries) and the reachability bounds beside them (``*_bound.csv``), and
writes ``results/fidelity.md`` and ``results/fidelity.png``.

**Cells.**  A paper cell is one printed value (:func:`sskernels.experiment.tables.paper_cell`:
paper table, data set, paper row, labeled-set size, metric).  A cell the paper prints in two
tables (Wang et al.'s Table 1 label-aware column and Table 3's baseline columns are Table 2's
label-aware cells; the paper table's ``same_cell`` column) is one cell; where several of our
rows stand for it, one is *counted*: the row marked ``protocol: paper`` (the paper's stated
protocol), else an oracle row (the papers that select on the test points), else our row; the
other rows of the cell in other tables are listed as *repeats*, with whether they hold the
same value (the same record).  Rows run under a documented alternative reading
(``reading`` column: a spec's ``readings:``, ``make readings``) never count as the cell's row.

**Verdicts** of a counted cell with a ±, exactly one each, in this order (one rounding rule,
:func:`sskernels.experiment.tables.within_spread`: ours rounded to the paper's printed
decimals; "se" is ``sqrt(ours_se^2 + paper_se^2)``, our standard error over splits and the
paper's own, :func:`sskernels.experiment.tables.paper_se`):

* *matched*: ``|ours - paper| <=`` the paper's ±, read as the paper table's ``spread`` says;
  the headline says how many of them rest on test-label selection (an oracle row) and flags
  those whose row predicts one class on most splits (its notes' "constant prediction");
* *unmatchable at the printed precision*: the paper's ± is below one unit of its means' last
  printed decimal (:data:`UNMATCHABLE_BELOW`, 0.01): ours, rounded to that decimal, would
  have to equal the paper's value, whatever the ±;
* *beyond our reading*: a bound on that row's grid is worse than the paper's value by more
  than two combined standard errors (:func:`sskernels.experiment.tables.beyond_reading`): a
  reachability bound file (``sskernels bound``: each split's best grid candidate on the test
  labels), or, for accuracy and error, the counted row itself when it is an oracle row (it
  selects on the test labels: it is the bound of its own grid); each names its evidence;
* *ours better*: ours better than the paper's value (higher accuracy or alignment, lower
  error) by more than two combined se — the paper's row is weaker than ours;
* *near miss*: within two combined se of the paper's value;
* *open*: the rest (ours worse by more than two combined se, and no bound says why);
* cells where the paper prints no ± are counted apart (*no ±*).

Apart from these: a cell not matched by its counted row is *matched under a reading* when that
row under a documented reading (the same label in the reading's run) is within the paper's ±,
and every cell shows how many readings were tried on it.

    python scripts/fidelity_figure.py [RESULTS_DIR] [--out STEM]
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from sskernels.experiment.tables import PAPER_DECIMALS, within_spread
from sskernels.report.verdicts import BOUND_KEY, UNMATCHABLE_BELOW, VERDICT_TEXT, VERDICTS, verdict

REQUIRED = {
    "table",
    "dataset",
    "setting",
    "method",
    "metric",
    "mean",
    "std",
    "paper_mean",
    "paper_std",
    "paper_spread",
    "paper_cell",
    "paper_n",
    "protocol",
    "reading",
}
MARKERS = "osD^v<>pP*Xhd"
#: how many of the largest misses (in units of the paper's ±) fidelity.md lists
LARGEST = 15
#: the ± a miss is measured in where the paper prints ± 0: half the last digit of its means
RESOLUTION = 0.5 * 10.0**-PAPER_DECIMALS
CONSTANT = re.compile(r"constant prediction[^;]*?x(\d+)/(\d+)")


def load_rows(results: Path) -> pd.DataFrame:
    """Every summary row with a published value (not a time), with its source file's stem."""
    frames = []
    for path in sorted(results.glob("*/*.csv")):
        if path.stem.endswith(("_splits", "_time", "_bound")):
            continue
        df = pd.read_csv(path, dtype={"protocol": str, "reading": str, "paper_cell": str})
        if not {"paper_mean", "metric", "mean"} <= set(df.columns):
            continue
        df = df[df["paper_mean"].notna() & (df["metric"] != "seconds")].copy()
        if df.empty:
            continue
        missing = REQUIRED - set(df.columns)
        if missing:
            raise ValueError(
                f"{path}: no column(s) {', '.join(sorted(missing))}; regenerate it "
                f"(`sskernels table` or `make tables`)"
            )
        df["source"] = f"{path.parent.name}/{path.stem}"
        frames.append(df)
    if not frames:
        raise ValueError(f"{results}: no summary CSV with paper values in the shared schema")
    out = pd.concat(frames, ignore_index=True)
    for col in ("protocol", "reading", "paper_cell"):
        out[col] = out[col].fillna("").astype(str)
    if (out["paper_cell"] == "").any():
        bad = out[out["paper_cell"] == ""].iloc[0]
        raise ValueError(
            f"{bad['source']}: a row with a paper value but no paper_cell "
            f"({bad['method']}, {bad['dataset']}); regenerate it"
        )
    out["delta"] = out["mean"] - out["paper_mean"]
    out["matched"] = [
        within_spread(m, p, s) for m, p, s in zip(out["mean"], out["paper_mean"], out["paper_std"])
    ]
    out["oracle"] = out["method"].str.contains("oracle", regex=False)
    out["tier"] = np.where(out["protocol"] == "paper", 0, np.where(out["oracle"], 1, 2))
    return out


def cells(rows: pd.DataFrame, bounds: pd.DataFrame | None = None):
    """``(cells, repeats)``: one row per distinct paper cell (its counted row, verdict,
    readings) and the repeat rows (the cell's rows in other tables)."""
    primary = rows[rows["reading"] == ""]
    readings = rows[rows["reading"] != ""]
    out, repeats = [], []
    for cell, g in primary.groupby("paper_cell", sort=False):
        g = g.sort_values(["tier", "source"], kind="stable")
        row = g.iloc[0]
        # each other table's own row for the cell (its best tier) is a repeat; the other rows
        # of a table are our alternatives to its row, not repeats
        for _, r in g[g["source"] != row["source"]].groupby("source", sort=True).head(1).iterrows():
            repeats.append(
                {
                    "paper_cell": cell,
                    "counted": f"{row['source']}: {row['method']}",
                    "repeat": f"{r['source']}: {r['method']}",
                    "same_value": bool(np.isclose(r["mean"], row["mean"])),
                }
            )
        # the counted row itself under each reading (the same label in the reading's run)
        rd = readings[(readings["paper_cell"] == cell) & (readings["method"] == row["method"])]
        d = row.to_dict()
        d["paper_table"] = cell.split("|")[0]
        d["no_spread"] = bool(pd.isna(row["paper_std"]))
        d["verdict"], d["bound_reading"] = _verdict(row, bounds)
        d["beyond"] = d["verdict"] == "beyond"
        d["one_class"] = _one_class(row.get("notes"))
        d["readings_tried"] = int(rd["reading"].nunique())
        hits = rd[rd["matched"]]
        d["reading_match"] = (
            "" if d["matched"] or hits.empty else ", ".join(sorted(set(hits["reading"])))
        )
        # in units of the paper's ± (a ± printed as 0: half the last digit of its mean)
        d["units"] = (
            abs(row["delta"]) / (row["paper_std"] or RESOLUTION) if not d["no_spread"] else np.nan
        )
        out.append(d)
    return pd.DataFrame(out), pd.DataFrame(
        repeats, columns=["paper_cell", "counted", "repeat", "same_value"]
    )


def _verdict(row, bounds):
    """``(verdict, evidence)`` of a counted row: :func:`sskernels.report.verdicts.verdict`
    (the rules stated above, one implementation for this page and ``sskernels report``), an
    oracle row's own-grid evidence completed with the reading it is conditional on."""
    v, evidence = verdict(row.to_dict(), bounds)
    if v == "beyond" and evidence.startswith("the row's own"):
        evidence = "; ".join(x for x in (evidence, _context(row, bounds)) if x)
    return v, evidence


def _context(row, bounds):
    """The reading a verdict on ``row`` is conditional on (data file, preprocessing, graph,
    splits), from any bound of the same table, data set and setting; "" without one."""
    if bounds is None or "reading" not in bounds:
        return ""
    hit = bounds[
        (bounds["table"] == row["table"])
        & (bounds["dataset"] == row["dataset"])
        & (bounds["setting"] == row["setting"])
    ]
    readings = [r for r in hit["reading"] if isinstance(r, str) and r]
    return readings[0] if readings else ""


def _one_class(notes):
    """Whether a row's notes say it predicted one class on more than half its splits."""
    if not isinstance(notes, str):
        return False
    hits = [(int(k), int(n)) for k, n in CONSTANT.findall(notes)]
    return bool(hits) and sum(k for k, _ in hits) > hits[0][1] / 2


def load_bounds(results: Path) -> pd.DataFrame | None:
    frames = [pd.read_csv(p) for p in sorted(results.glob("*/*_bound.csv"))]
    frames = [f for f in frames if set(BOUND_KEY + ["bound", "bound_se"]) <= set(f.columns)]
    if not frames:
        return None
    return pd.concat(frames, ignore_index=True).drop_duplicates(BOUND_KEY, keep="last")


def summary(c: pd.DataFrame, repeats: pd.DataFrame) -> pd.DataFrame:
    """Per (paper table, metric): distinct cells, repeats, matched / beyond our reading /
    open (cells with a ±), no ±, matched under a reading, readings tried, median delta."""
    c = c.copy()
    c["repeats"] = c["paper_cell"].map(repeats.groupby("paper_cell").size()).fillna(0)
    c["has_spread"] = ~c["no_spread"]
    for v in VERDICTS:
        c[f"is_{v}"] = c["verdict"] == v
    c["matched_oracle"] = c["is_matched"] & c["oracle"]
    c["matched_one_class"] = c["is_matched"] & c["one_class"]
    c["under_reading"] = c["reading_match"] != ""
    c["tried"] = c["readings_tried"] > 0
    g = c.groupby(["paper_table", "metric"], sort=True)
    cols = {
        "cells": g.size(),
        "repeats": g["repeats"].sum().astype(int),
        "with_spread": g["has_spread"].sum(),
    }
    cols.update({v: g[f"is_{v}"].sum() for v in VERDICTS})
    cols.update(
        {
            "matched_oracle": g["matched_oracle"].sum(),
            "matched_one_class": g["matched_one_class"].sum(),
            "no_spread": g["no_spread"].sum(),
            "under_reading": g["under_reading"].sum(),
            "tried": g["tried"].sum(),
            "readings": g["readings_tried"].sum(),
            "median_delta": g["delta"].median(),
        }
    )
    return pd.DataFrame(cols).reset_index()


def write_markdown(c, repeats, summ, path: Path):
    tot = summ[
        [
            "cells",
            "repeats",
            "with_spread",
            *VERDICTS,
            "matched_oracle",
            "matched_one_class",
            "no_spread",
            "under_reading",
            "tried",
            "readings",
        ]
    ].sum()
    lines = [
        "# Paper against ours: each distinct paper cell once",
        "",
        "Generated by `scripts/fidelity_figure.py` (`make figure-fidelity`) from the summary "
        "CSVs and reachability bounds under `results/`. A paper cell is one printed value; a "
        "cell the paper prints again in another table is one cell, its other rows listed "
        "below as repeats. Per cell one row of ours counts: the one that follows the paper's "
        "stated protocol (`protocol: paper` in its spec), else an oracle row (the papers that "
        "select on the test points), else our row. Every cell with a ± is in exactly one "
        "class, decided in this order; *se* is the combined standard error, ours over splits "
        "and the paper's own (its ± where it reads as a standard error, else ± / √ its "
        "splits). **Matched**: |ours − paper| ≤ the paper's ±, read as the paper table's "
        "`spread` says (ours rounded to the paper's two decimals first). **Unmatchable at the "
        f"printed precision**: the paper's ± is below {UNMATCHABLE_BELOW:g}, one unit of its "
        "means' last printed decimal, so a match would need ours to round to the paper's "
        "value whatever the ±. **Beyond our reading**: a bound on the row's grid is worse "
        "than the paper by more than 2 se — a reachability bound (`sskernels bound`: each "
        "split's best grid candidate on the test labels) or, for accuracy and error, the "
        "counted row itself when it is an oracle row (it selects on the test labels: the "
        "bound of its own grid); a verdict on our reading (data, graph, preprocessing, splits "
        "held as listed below), not on the paper. **Ours better**: ours better than the "
        "paper by more than 2 se (the paper's row is the weaker). **Near miss**: within 2 se. "
        "**Open**: the rest (ours worse by more than 2 se, no bound says why). **No ±**: the "
        "paper prints none (not counted as matched or missed). **Matched under a reading** "
        "(counted apart, never in *matched*): a cell "
        "not matched whose row under a documented alternative reading (`readings:` in the "
        "specs, `make readings`) is within the paper's ±; *readings tried*: the cells with at "
        "least one reading run, and the readings run on them in all. Figure: "
        "`fidelity.png`.",
        "",
        "| paper table | metric | distinct cells | repeats | matched (by test-label selection) "
        "| unmatchable at the printed precision | beyond our reading | ours better by > 2 se "
        "| near miss (within 2 se) | open | no ± | matched under a reading | cells with "
        "readings (readings run) | median ours − paper |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in summ.itertuples():
        lines.append(
            f"| {r.paper_table} | {r.metric} | {r.cells} | {r.repeats} | "
            f"{int(r.matched)} of {int(r.with_spread)} ({int(r.matched_oracle)}) | "
            f"{int(r.unmatchable)} | {int(r.beyond)} | {int(r.better)} | "
            f"{int(r.near)} | {int(r.open)} | {int(r.no_spread)} | "
            f"{int(r.under_reading)} | {int(r.tried)} ({int(r.readings)}) | "
            f"{r.median_delta:+.3g} |"
        )
    lines += [
        "",
        f"**In all: {int(tot['cells'])} distinct paper cells ({int(tot['repeats'])} "
        f"repeats besides); of the {int(tot['with_spread'])} with a ±, "
        f"{int(tot['matched'])} matched ({int(tot['matched_oracle'])} of them by "
        f"test-label selection, the papers' oracle protocol; "
        f"{int(tot['matched_one_class'])} by a row that predicts one class on most "
        f"splits), {int(tot['unmatchable'])} unmatchable at the printed precision, "
        f"{int(tot['beyond'])} beyond our reading, {int(tot['better'])} where ours is "
        f"better by more than 2 se, {int(tot['near'])} near misses (within 2 se), "
        f"{int(tot['open'])} open; {int(tot['no_spread'])} without a ±. Under a "
        f"documented alternative reading, {int(tot['under_reading'])} more matched "
        f"({int(tot['tried'])} cells tried, {int(tot['readings'])} reading runs).**",
    ]
    lines += _cell_list(
        c[c["verdict"].eq("matched") & c["one_class"]],
        "Matched by a row that predicts one class on most splits (flagged)",
        "ours",
        "notes",
        "notes",
    )
    lines += _cell_list(
        c[c["beyond"]],
        "Beyond our reading, and the evidence (the bound and "
        "the reading each verdict is conditional on)",
        "ours",
        "evidence",
        "bound_reading",
    )
    lines += _cell_list(
        c[c["verdict"] == "better"],
        "Ours better than the paper by more than two combined se",
        "ours",
        "Δ",
        "delta",
    )
    lines += _cell_list(
        c[c["reading_match"] != ""],
        "Matched under a documented alternative reading (not in *matched*)",
        "ours (primary)",
        "readings that match",
        "reading_match",
    )
    miss = c[~c["matched"] & c["units"].notna()].sort_values("units", ascending=False)
    lines += [
        "",
        f"## The {LARGEST} largest misses, in units of the paper's ±",
        "",
        "A ± printed as 0 would count as 0.005. Each is explained in results/README.md "
        "(\"The largest misses\").",
        "",
        "| # | cell | paper | ours | Δ | Δ / ± | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(miss.head(LARGEST).itertuples(), 1):
        verdict = VERDICT_TEXT[r.verdict] + (
            f"; matched under reading {r.reading_match}" if r.reading_match else ""
        )
        lines.append(
            f"| {i} | {_cell_text(r)} | {_paper_text(r)} | {r.mean:.2f} | "
            f"{r.delta:+.2f} | {r.units:.1f} | {verdict} |"
        )
    if len(repeats):
        lines += [
            "",
            "## Repeats (a cell the paper prints in more than one table: counted once)",
            "",
            "| paper cell | counted row | repeat row | same value |",
            "|---|---|---|---|",
        ]
        for r in repeats.itertuples():
            lines.append(
                f"| {r.paper_cell} | {r.counted} | {r.repeat} | {'yes' if r.same_value else 'no'} |"
            )
    path.write_text("\n".join(lines) + "\n")


def _cell_list(rows, title, ours, last, column):
    """A Markdown section listing ``rows`` (cells): cell, paper, ours, and ``column``."""
    if not len(rows):
        return []
    lines = ["", f"## {title}", "", f"| cell | paper | {ours} | {last} |", "|---|---|---|---|"]
    for r in rows.itertuples():
        v = getattr(r, column)
        v = f"{v:+.2f}" if isinstance(v, float) else str(v).replace("|", "/")
        lines.append(f"| {_cell_text(r)} | {_paper_text(r)} | {r.mean:.2f} | {v} |")
    return lines


def _cell_text(r):
    return f"{r.source}: {r.method}, {r.dataset} ({r.setting}), {r.metric}"


def _paper_text(r):
    if pd.isna(r.paper_std):
        return f"{r.paper_mean:g}"
    return f"{r.paper_mean:.2f} ± {r.paper_std:.3g}" + (" se" if r.paper_spread == "se" else "")


COLOURS = {
    "matched": "tab:green",
    "unmatchable": "tab:purple",
    "beyond": "tab:red",
    "better": "tab:blue",
    "near": "tab:olive",
    "open": "0.45",
}
SHORT = {
    "unmatchable": "unmatchable",
    "beyond": "beyond",
    "better": "ours better",
    "near": "near",
    "open": "open",
}


def plot(c: pd.DataFrame, rows: pd.DataFrame, path: Path):
    """One panel per (paper table, metric): x = paper, y = ours; filled: the counted row of
    each cell (green matched, red beyond our reading, grey open); small crosses: the rows
    under documented readings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(c.groupby(["paper_table", "metric"], sort=True))
    ncol = 3
    nrow = max(1, math.ceil(len(panels) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.4 * ncol, 4.8 * nrow), squeeze=False)
    reading_rows = rows[rows["reading"] != ""]
    for ax, ((table, metric), d) in zip(axes.ravel(), panels):
        colour = d["verdict"].map(COLOURS).fillna("0.45").tolist()
        yerr = np.where(d["paper_spread"] == "se", d.get("se", d["std"]), d["std"])
        ax.errorbar(
            d["paper_mean"],
            d["mean"],
            xerr=np.nan_to_num(d["paper_std"]),
            yerr=np.nan_to_num(yerr.astype(float)),
            fmt="none",
            ecolor="0.75",
            lw=0.6,
        )
        ax.scatter(d["paper_mean"], d["mean"], c=colour, s=18, zorder=3)
        rd = reading_rows.merge(d[["paper_cell", "method"]], on=["paper_cell", "method"])
        if len(rd):
            ax.scatter(
                rd["paper_mean"],
                rd["mean"],
                marker="x",
                s=14,
                c="tab:blue",
                lw=0.7,
                zorder=2,
                label="under a reading",
            )
            ax.legend(fontsize=6, loc="best", frameon=False)
        lo = float(np.nanmin([d["paper_mean"].min(), d["mean"].min()]))
        hi = float(np.nanmax([d["paper_mean"].max(), d["mean"].max()]))
        pad = 0.05 * (hi - lo or 1.0)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], "k--", lw=0.7)
        n = int((~d["no_spread"]).sum())
        counts = d["verdict"].value_counts()
        u = int((d["reading_match"] != "").sum())
        k = int(d["no_spread"].sum())
        parts = [f"{int(counts.get(v, 0))} {SHORT[v]}" for v in VERDICTS[1:] if counts.get(v, 0)]
        ax.set_title(
            f"{table} — {metric}\n{int(counts.get('matched', 0))} of {n} matched; "
            + ", ".join(parts)
            + f"; +{u} under a reading"
            + (f"; {k} without a ±" if k else ""),
            fontsize=8,
        )
        ax.set_xlabel("paper", fontsize=8)
        ax.set_ylabel("ours (the cell's counted row)", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(panels) :]:
        ax.axis("off")
    fig.suptitle(
        "Paper (x) against ours (y), each distinct paper cell once; green matched, "
        "purple unmatchable at the printed precision, red beyond our reading, blue "
        "ours better by > 2 se, olive near miss, grey open; blue x: documented "
        "readings",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.97))
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
        rows = load_rows(results)
        c, repeats = cells(rows, load_bounds(results))
    except ValueError as exc:  # one line, exit 2 (no traceback)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    summ = summary(c, repeats)
    write_markdown(c, repeats, summ, out.with_suffix(".md"))
    plot(c, rows, out.with_suffix(".png"))
    print(
        f"wrote {out.with_suffix('.md')} and {out.with_suffix('.png')}: "
        f"{int(summ['matched'].sum())} of {int(summ['with_spread'].sum())} distinct cells "
        f"matched, "
        + ", ".join(f"{int(summ[v].sum())} {VERDICT_TEXT[v]}" for v in VERDICTS[1:])
        + f"; {int(summ['under_reading'].sum())} more under a reading",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
