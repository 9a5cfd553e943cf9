"""``sskernels bench``: wall seconds of fresh runs, each stage also as a multiple of its
floor measured in the same run, and optionally against the committed records."""

from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from sskernels.cli.console import err, out
from sskernels.cli.specs import _only_methods, _specs


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
