"""Sensitivity of kernel self-consistent labeling to r and epsilon (not used for any choice).

Sec. 6 fixes epsilon = 1 and tries r in {1, 10, 20, 100}.  Where our curves miss the
paper's claims, this sweep shows whether another reading of the scale would reach
them: r from 1 to 10^4 and epsilon in {1, 0.1, 0.01}, on the binary sets at 10/10
labeled points (the first 10 of the figures' 30 trials, the same seeded splits), with
the fraction of unlabeled points whose epsilon-tube is active (delta != 0): with
none active the unlabeled points do not shape the solution.  The result is a
sensitivity table only: nothing is selected from it (the test labels decide nothing).
Writes ``results/kscl/sweep.{md,csv}``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from sskernels.data import load_dataset
from sskernels.experiment.splits import make_splits
from sskernels.learners.self_consistent import SelfConsistentLabeling, clear_cache

#: (data set, preprocessing, Table 1's sigma^2_SVM)
SETS = [
    ("baseball-hockey", "none", 4e4),
    ("religion-atheism", "none", 1.69e5),
    ("pc-mac", "none", 1e5),
    ("odd-even", "l2", 0.5),
]
RS = (1, 10, 20, 100, 1000, 10000)
EPS = (1.0, 0.1, 0.01)


def main(out="results/kscl", n_trials=10):
    rows = []
    with threadpool_limits(1):
        for name, how, s2 in SETS:
            ds = load_dataset(name, how)
            X = np.asarray(ds.X, dtype=float)
            enc = np.unique(ds.y, return_inverse=True)[1]
            splits = make_splits(enc, "per-class", n_trials, per_class=[10, 10], seed=0)
            for r in RS:
                clear_cache()
                for eps in EPS:
                    accs, active = [], []
                    for lab in splits:
                        yp = np.full(enc.size, -1)
                        yp[lab] = enc[lab]
                        est = SelfConsistentLabeling(sigma2=s2 / r, epsilon=eps).fit(X, yp)
                        unl = yp == -1
                        accs.append(100 * np.mean(est.transduction_[unl] == enc[unl]))
                        active.append(100 * np.mean(est.dual_coef_[0][lab.size :] != 0))
                    rows.append(
                        {
                            "dataset": name,
                            "r": r,
                            "sigma2": s2 / r,
                            "epsilon": eps,
                            "accuracy": np.mean(accs),
                            "std": np.std(accs, ddof=1),
                            "active tube (% unlabeled)": np.mean(active),
                        }
                    )
                    print(
                        f"{name} r={r:g} eps={eps:g}: {np.mean(accs):.1f} % "
                        f"(tube active at {np.mean(active):.1f} %)",
                        flush=True,
                    )
    df = pd.DataFrame(rows)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "sweep.csv", index=False, float_format="%.4g")
    table = df.pivot_table(
        index=["dataset", "epsilon"], columns="r", values="accuracy", sort=False
    ).round(1)
    lines = [
        "# Kernel self-consistent labeling: sensitivity to r and epsilon (10/10 labeled)",
        "",
        "Written by `scripts/kscl_sweep.py`: mean accuracy (%) over the first "
        f"{n_trials} trials of the figures' 10/10 splits; sigma^2 = sigma^2_SVM (Table 1) / r."
        " A sensitivity table, used for no choice.",
        "",
        _markdown(table),
        "",
        "Fraction of unlabeled points whose epsilon-tube is active (delta != 0), in %:",
        "",
        _markdown(
            df.pivot_table(
                index=["dataset", "epsilon"],
                columns="r",
                values="active tube (% unlabeled)",
                sort=False,
            ).round(1)
        ),
    ]
    (out / "sweep.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'sweep.md'}")


def _markdown(table):
    """A pivot table (index: data set, epsilon; columns: r) as a Markdown table."""
    head = ["data set", "epsilon"] + [f"r = {c:g}" for c in table.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (ds, eps), row in table.iterrows():
        lines.append("| " + " | ".join([ds, f"{eps:g}"] + [f"{v:.1f}" for v in row]) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main(*sys.argv[1:2])
