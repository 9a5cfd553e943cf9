"""Regression checks of the committed tables.

Each committed paper table has an entry here: its specs are re-run on their
first few splits and every (data set, method, metric) mean is compared with
the expected value recorded in ``tests/regression/<table>.csv``, within
:data:`TOLERANCE` percentage points.  A drift fails with a readable diff.

``python -m sskernels.experiment.regression --update`` re-records the
expected values after an intended change (commit them with that change).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
EXPECTED_DIR = ROOT / "tests" / "regression"

#: how far (percentage points) a mean over the first splits may move
TOLERANCE = 0.5
#: splits re-run per spec
N_SPLITS = 3

_LIU = ("heart", "ionosphere", "sonar", "wine")
SUITE = {
    "liu2009_t3": [f"configs/liu2009/{d}.yaml" for d in _LIU],
    "liu2009_t3_raw": [f"configs/liu2009/raw-features/{d}.yaml" for d in _LIU],
    # a binary and a multi-class cell of Mao & Tsang's Table 2
    "mao2010_t2": [f"configs/mao2010/{d}.yaml" for d in ("g50c", "coil_10")],
}


def compute(table, n_splits=N_SPLITS):
    """Means over the first ``n_splits`` splits of a suite entry, freshly computed."""
    from sskernels.experiment.runner import run_spec
    from sskernels.experiment.tables import summarize
    from sskernels.spec import load_spec

    frames = []
    with tempfile.TemporaryDirectory() as tmp:
        for rel in SUITE[table]:
            spec = load_spec(ROOT / rel)
            spec.output = str(Path(tmp) / spec.name)
            frames.append(summarize(run_spec(spec, progress=False, n_splits=n_splits), spec))
    df = pd.concat(frames, ignore_index=True)
    df = df[df["metric"] != "seconds"]  # times are measured by `make bench`, not compared here
    return df[["dataset", "method", "metric", "mean"]]


def expected_path(table):
    return EXPECTED_DIR / f"{table}.csv"


def diff(table, got):
    """Rows whose mean moved beyond the tolerance (or appeared/disappeared)."""
    exp = pd.read_csv(expected_path(table))
    m = exp.merge(got, on=["dataset", "method", "metric"], how="outer",
                  suffixes=("_expected", "_got"), indicator=True)
    m["change"] = m["mean_got"] - m["mean_expected"]
    bad = (m["_merge"] != "both") | (m["change"].abs() > TOLERANCE)
    return m.loc[bad, ["dataset", "method", "metric", "mean_expected", "mean_got", "change"]]


def update(tables=None):
    EXPECTED_DIR.mkdir(parents=True, exist_ok=True)
    for table in tables or SUITE:
        compute(table).to_csv(expected_path(table), index=False, float_format="%.4f")
        print(f"wrote {expected_path(table)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true", help="re-record the expected values")
    ap.add_argument("tables", nargs="*", help=f"suite entries (default: all of {list(SUITE)})")
    args = ap.parse_args()
    if args.update:
        update(args.tables)
    else:
        for t in args.tables or SUITE:
            d = diff(t, compute(t))
            print(f"{t}: " + ("ok" if d.empty else "\n" + d.to_string(index=False)))
