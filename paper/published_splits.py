"""Write the published per-split files ``results/<stem>_splits.csv`` from existing records.

``sskernels run --table``, ``sskernels table`` and ``sskernels figure`` write these
files themselves; this script rebuilds them from the per-split JSON records of a
finished ``make tables`` (e.g. in another clone) without running or re-keying
anything, with the same writer (:func:`sskernels.experiment.tables.write_splits`).
The tables and their specs are :data:`paper.regression.PUBLISHED`.

    python -m paper.published_splits                 # records of this clone
    python -m paper.published_splits --from /tmp/baseline   # records of another clone
"""

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from paper.regression import PUBLISHED, ROOT
from sskernels.experiment.tables import split_rows, write_splits
from sskernels.spec import load_spec


def records_of(spec, root):
    """The records of a spec found under ``root / spec.output`` as a long frame, in the
    runner's order (labeled-set size, method order, split)."""
    order = {m.label: i for i, m in enumerate(spec.methods)}
    out = root / spec.output / "records"
    rows, seen = [], set()
    for path in sorted(out.glob("*/*/split_*.json")):
        r = json.loads(path.read_text())
        if r["method"] not in order or r["split"] >= spec.splits.n_splits:
            continue
        seen.add((r["method"], r["setting"], r["split"]))
        for metric, value in r["metrics"].items():
            rows.append(
                {
                    "table": r["table"],
                    "dataset": r["dataset"],
                    "setting": r["setting"],
                    "method": r["method"],
                    "split": r["split"],
                    "metric": metric,
                    "value": value,
                    "n_labeled": r["n_labeled"],
                    "order": order[r["method"]],
                }
            )
    df = pd.DataFrame(rows)
    if df.empty:
        raise SystemExit(f"{spec.path}: no records under {out}")
    # complete: every method in every setting, with the same splits 0..n-1 (random protocol:
    # n = spec.splits.n_splits; official: however many official splits the data set has)
    per_cell = {}
    for method, setting, split in seen:
        per_cell.setdefault((method, setting), set()).add(split)
    settings = {setting for _, setting in per_cell}
    n = (
        spec.splits.n_splits
        if spec.splits.protocol != "official"
        else max(len(v) for v in per_cell.values())
    )
    for method in order:
        for setting in settings:
            if per_cell.get((method, setting)) != set(range(n)):
                raise SystemExit(
                    f"{spec.path}: records of {method!r}, {setting!r} under {out} "
                    f"are not splits 0..{n - 1}"
                )
    return df.sort_values(["n_labeled", "order", "split"], kind="stable").reset_index(drop=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--from",
        dest="root",
        type=Path,
        default=ROOT,
        help="the clone whose configs/ and records to read (default: this one)",
    )
    ap.add_argument(
        "--to",
        type=Path,
        default=ROOT / "results",
        help="the results folder to write into (default: this clone's)",
    )
    ap.add_argument("stems", nargs="*", help=f"tables (default: all of {list(PUBLISHED)})")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    for stem in args.stems or PUBLISHED:
        specs, metrics = PUBLISHED[stem]
        frames = []
        for rel in specs:
            rel, _, reading = rel.partition("@")  # "SPEC@READING": a documented reading
            spec = load_spec(root / rel, reading=reading or None)
            frames.append(split_rows(records_of(spec, root), spec))
        path = write_splits(pd.concat(frames, ignore_index=True), str(args.to / stem), metrics)
        print(f"wrote {path} ({sum(map(len, frames))} rows before the metric filter)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
