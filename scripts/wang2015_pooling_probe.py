"""Why pooling seven widths loses on some sets (Wang et al. Table 3; results/README.md): per
split, the weight each width gets, the labeled-block and unlabeled alignment, and the oracle SVM
error, for one width and seven widths pooled.

    python scripts/wang2015_pooling_probe.py [DATASET] [--splits N] [--weighting W]

``--weighting local-rademacher`` (default): one width (theta = 0.1 n), seven widths (theta =
0.1 n) and seven widths with theta = 0 (trace normalization, outside the paper's grid), the
oracle over MKL C x SVM C.  ``--weighting alignf``: one width and seven widths, the oracle over
SVM C.  Oracle = the best test error (the paper's selection; it reads the test labels: a probe,
not a result to believe).  Splits: 50 labeled points per class, seeds 0..N-1 (not the runner's
splits).  About 1 min per split on usps38.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from sskernels.data import load_dataset
from sskernels.errors import UserError
from sskernels.kernels.alignment import centered_alignment, ideal_kernel
from sskernels.learners.label_aware import B_SCALES, MKL_CS, LabelAwareKernel

SVM_CS = (0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0)
VARIANTS = {
    "local-rademacher": (
        ("one width, theta = 0.1 n", {"theta": 0.1}),
        ("7 widths, theta = 0.1 n", {"b_scales": B_SCALES, "theta": 0.1}),
        ("7 widths, theta = 0", {"b_scales": B_SCALES, "theta": 0}),
    ),
    "alignf": (("one width", {}), ("7 widths", {"b_scales": B_SCALES})),
}


def width_shares(m):
    """The share of the kernel's weight (``mu_m`` times the base vector's mean square) per width."""
    w = m.mu_ * (m.basis_**2).mean(axis=0)
    per = np.add.reduceat(w, np.arange(0, w.size, w.size // len(m.b_)))
    return per / per.sum()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", default="usps38")
    ap.add_argument("--splits", type=int, default=2)
    ap.add_argument("--weighting", choices=sorted(VARIANTS), default="local-rademacher")
    args = ap.parse_args(argv)
    try:
        ds = load_dataset(args.dataset)
    except UserError as exc:  # one line, exit 2 (no traceback)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    X, y = ds.X, ds.y
    classes = np.unique(y)
    if classes.size != 2:
        print(
            f"error: {args.dataset}: a binary data set is needed (has {classes.size} classes)",
            file=sys.stderr,
        )
        return 2
    ye = np.searchsorted(classes, y)
    mkl_Cs = MKL_CS if args.weighting == "local-rademacher" else (None,)
    print(
        "| split | variant | weight per width (b0/50 ... 10 b0) | labeled alignment "
        "| unlabeled alignment | oracle error (%) |"
    )
    print("|---|---|---|---|---|---|")
    for seed in range(args.splits):
        rng = np.random.default_rng(seed)
        lab = np.concatenate(
            [rng.choice(np.flatnonzero(ye == c), 50, replace=False) for c in range(2)]
        )
        yp = np.full(len(y), -1)
        yp[lab] = ye[lab]
        U, L = yp < 0, yp >= 0
        T = ideal_kernel(ye[U], 2, "simplex")
        for name, kw in VARIANTS[args.weighting]:
            best = (np.inf,)
            for mkl_C in mkl_Cs:
                extra = {} if mkl_C is None else {"mkl_C": mkl_C}
                m = LabelAwareKernel(weighting=args.weighting, random_state=0, **kw, **extra).fit(
                    X, yp
                )
                K = m.kernel_
                for C in SVM_CS:
                    svm = SVC(kernel="precomputed", C=C).fit(K[np.ix_(L, L)], ye[L])
                    err = 100 * np.mean(svm.predict(K[np.ix_(U, L)]) != ye[U])
                    if err < best[0]:
                        best = (
                            err,
                            m.alignment_,
                            centered_alignment(K[np.ix_(U, U)], T),
                            width_shares(m),
                        )
            err, a_l, a_u, shares = best
            print(
                f"| {seed} | {name} | {np.array2string(shares, precision=2)} | {a_l:.3f} "
                f"| {a_u:.3f} | {err:.2f} |"
            )
    return 0


if __name__ == "__main__":
    with threadpool_limits(1):
        raise SystemExit(main())
