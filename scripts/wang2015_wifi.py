"""Wang et al. (2015), Figs. 1 and 2: WiFi localization as regression.

Reads the spec ``configs/wang2015/wifi.yaml`` (data, preprocessing, target scaling, splits,
methods) and writes, under ``results/wang2015/``:

* ``figure1_wifi.png`` / ``figure1_wifi.csv`` — Fig. 1: for the test points of split 0 (the
  labeled pool's points not labeled), the true location (red circle) joined to the estimated
  one (blue dot) by the standard SVR, Gaussian fields (the harmonic function as regressor) and
  the label-aware kernel + SVR; every method with the spec's parameters and selection on
  the labeled points, exactly as the run (its mse is checked against the run's record when
  the records are there).
* ``figure2_wifi.png`` with ``figure2_wifi_time.csv`` and ``figure2_wifi_width.csv`` —
  Fig. 2(a): seconds of one fit (fixed parameters: no selection; the label-independent work,
  the graph or the Nystrom eigenvectors, included) against the number of unlabeled points,
  200 ... 2000 (split 0's 100 labeled points plus u points drawn, seeded, from the others;
  median of 3 repetitions, one BLAS thread); Fig. 2(b): the test error (mse and rmse, mean
  over the first 2 splits) against the width factor ``b / b0`` for the Gaussian fields and
  the label-aware SVR (C selected on the labeled points at each width), the SVR for
  reference.

* ``wifi_units.csv`` / ``wifi_units_splits.csv`` and the section "The paper's 'RMSE': on
  which scale?" appended to ``wifi.md`` (the table ``sskernels run --table`` writes first; the
  section is replaced, not repeated, on a rerun) — the paper prints 2.5e-3, 1.61e-3 and
  1.19e-3 as "the square root of the mean squared error" of targets "normalized to [0, 1]"
  without saying how. Every split's test errors are read under each candidate scaling:
  coordinates each scaled to [0, 1] (the run's) or both by the larger extent (144 m), one
  coordinate alone, Euclidean (root mean or mean) errors, metres, mean squared instead of
  root mean squared, and the slip ``||errors|| / n``; the fits are the run's (each split's mse
  checked against ``wifi_splits.csv``) plus a refit with both coordinates scaled by 144 m
  (the SVRs' epsilon = 0.05 then means 7.2 m in y too). A scaling puts ours "at the paper's
  size" when all three methods are within a factor sqrt(10) of the paper's numbers. The
  figures' captions carry the verdict.

Every fit uses the spec's parameters of its method (the label-aware kernel's 50 eigenvectors);
Fig. 2(a) fixes, as a choice (results/README.md), the widths the run selects most often
(Gaussian fields 100 b0, label-aware 20 b0) and C = 1. The coordinates are in metres: x in
[0, 144], y in [0, 36], on the 1.5-unit grid of the ICDM 2007 contest's 1.5 m x 1.5 m cells.

    python scripts/wang2015_wifi.py [--jobs N]     # N processes for the units' 20 fits
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from sskernels.experiment.records import atomic_write_text
from sskernels.experiment import load_data, prepare
from sskernels.experiment.plan import method_params
from sskernels.experiment.tasks import regression_metrics
from sskernels.learners.label_aware_regression import WIDE_B_SCALES
from sskernels.learners.registry import make_method
from sskernels.spec import load_spec

#: the repository (the script reads its spec and writes its results there)
ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "configs" / "wang2015" / "wifi.yaml"
OUT = ROOT / "results" / "wang2015"
#: Fig. 2(a): unlabeled sample sizes (Sec. 4.2: "from 200 to 2000"), repetitions, seed
SIZES = tuple(range(200, 2001, 200))
REPEATS = 3
SEED = 0
#: Fig. 2(a): fixed parameters over the spec's (the widths the run selects most often; C = 1)
TIMED = {"Gaussian fields": {"b_scale": 100.0}, "label-aware SVR": {"b_scale": 20.0, "C": 1.0}}
#: Fig. 2(b): splits averaged
WIDTH_SPLITS = 2
#: the paper's numbers (Sec. 4.2, printed as "the square root of the mean squared error")
PAPER_TABLE = ROOT / "sskernels" / "paper_tables" / "wang2015_wifi_regression.csv"
#: "at the paper's size": every method within this factor of the paper's number (half a decade)
MAGNITUDE = float(np.sqrt(10.0))
#: the section of wifi.md this script writes (everything from this line on is replaced)
UNITS_HEADING = "## The paper's \"RMSE\": on which scale? (scripts/wang2015_wifi.py)"
#: the two target scalings fitted: each coordinate to [0, 1] (the spec's, the run's fits) or
#: both coordinates divided by the larger extent (144 m), the other reading of Sec. 4.2
FITS = {"axis": "each coordinate to [0, 1] (the run's)", "joint": "both / 144 m (refit)"}
#: quantity -> (description, kind, short name): kind "root" (an rmse-like error, linear in the
#: errors), "square" (an mse-like one) or "slip" (the root of a sum of squares divided by n)
QUANTITIES = {
    "rmse": (
        "rmse, each coordinate on [0, 1] (the table's rmse)",
        "root",
        "rmse, each coordinate on [0, 1]",
    ),
    "rmse x": ("rmse of x alone, on [0, 1]", "root", "rmse of x"),
    "rmse y": ("rmse of y alone, on [0, 1]", "root", "rmse of y"),
    "rms euclid": (
        "root mean squared Euclidean error, each coordinate on [0, 1] (√2 × rmse)",
        "root",
        "root mean squared Euclidean error",
    ),
    "rmse joint": ("rmse, both coordinates / 144 m", "root", "rmse, both / 144 m"),
    "rmse m": ("rmse in metres", "root", "rmse in metres"),
    "rms euclid m": (
        "root mean squared Euclidean error in metres",
        "root",
        "root mean squared Euclidean error in metres",
    ),
    "mean euclid m": ("mean Euclidean error in metres", "root", "mean Euclidean error (m)"),
    "norm/n": (
        "‖errors‖ / n, each coordinate on [0, 1], n = the test points (a slip: "
        "the root of the summed squares over n, not √n)",
        "slip",
        "‖errors‖ / n at our n = 405",
    ),
    "mse": (
        "mse, each coordinate on [0, 1] (the table's mse)",
        "square",
        "the table's mse, each coordinate on [0, 1]",
    ),
    "mse x": ("mse of x alone, on [0, 1]", "square", "mse of x alone"),
    "mse y": ("mse of y alone, on [0, 1]", "square", "mse of y alone"),
    "sq euclid": (
        "mean squared Euclidean error, each coordinate on [0, 1] (the sum over x and y, 2 × mse)",
        "square",
        "mean squared Euclidean error",
    ),
    "mse joint": ("mse, both coordinates / 144 m", "square", "mse, both / 144 m"),
}
#: the quantities shown for the refit on jointly scaled targets (all are computed)
JOINT_SHOWN = ("rmse joint", "rmse m", "mean euclid m", "mse joint")


def partial(Y, labeled):
    Yp = np.full(Y.shape, np.nan)
    Yp[labeled] = Y[labeled]
    return Yp


def fit_split(spec, prep, si, factor):
    """Split ``si``: every method of the spec fitted, as the run fits it, to the targets
    ``prep.y * factor``; ``(test rows, true targets, {label: estimates})`` at the test rows."""
    with threadpool_limits(1):
        labeled = prep.settings[0][1][si]
        test = np.setdiff1d(prep.pool, labeled)
        Y = prep.y * factor
        est_of = {}
        for method in spec.methods:
            est = make_method(method.name, **method_params(spec, method))
            est.fit(prep.X, partial(Y, labeled))
            est_of[method.label] = np.asarray(est.transduction_).reshape(Y.shape)[test]
        return test, Y[test], est_of


def fit_splits(spec, prep, span, jobs=1):
    """Every split fitted on each target scaling of FITS: ``{(fit, split): (test, Y, est_of,
    metres per unit)}`` (``span``: the coordinates' extents in metres)."""
    from joblib import Parallel, delayed

    factor = {"axis": np.ones_like(span), "joint": span / span.max()}
    metres = {"axis": span, "joint": np.full_like(span, span.max())}
    tasks = [(fit, si) for fit in FITS for si in range(len(prep.settings[0][1]))]
    done = Parallel(n_jobs=jobs)(
        delayed(fit_split)(spec, prep, si, factor[fit]) for fit, si in tasks
    )
    return {(fit, si): (*res, metres[fit]) for (fit, si), res in zip(tasks, done)}


def figure1_data(fits):
    """Split 0, the run's fits: true and estimated targets of the test points (long format)."""
    test, Y, est_of, _ = fits[("axis", 0)]
    rows, mses = [], {}
    for label, F in est_of.items():
        mses[label] = float(np.mean((F - Y) ** 2))
        for i, t, e in zip(test, Y, F):
            rows.append(
                {
                    "method": label,
                    "split": 0,
                    "point": int(i),
                    "x_true": t[0],
                    "y_true": t[1],
                    "x_estimated": e[0],
                    "y_estimated": e[1],
                }
            )
    return pd.DataFrame(rows), mses


def check_against_records(spec, mses):
    """The mse of Fig. 1 is the run's split-0 record (when the records are there)."""
    for method in spec.methods:
        path = (
            Path(spec.output)
            / "records"
            / method.label.replace(" ", "_")
            / "100_labeled"
            / "split_000.json"
        )
        if not path.is_file():
            continue
        rec = json.loads(path.read_text())["metrics"]["mse"]
        if not np.isclose(rec, mses[method.label], rtol=1e-9):
            raise SystemExit(
                f"{method.label}: Fig. 1 mse {mses[method.label]:.6g} differs from "
                f"the run's record {rec:.6g} ({path})"
            )


def params_of(spec, label, **override):
    """``(method name, parameters)`` of the spec's method ``label``, some of them overridden."""
    method = next(m for m in spec.methods if m.label == label)
    return method.name, {**method_params(spec, method), **override}


def figure2a_data(spec, prep):
    """Seconds of one fit against the number of unlabeled points (median of REPEATS)."""
    from sskernels.kernels.spectra import clear_rbf_cache

    labeled = prep.settings[0][1][0]
    others = np.setdiff1d(np.arange(prep.y.shape[0]), labeled)
    rng = np.random.default_rng(SEED)
    order = rng.permutation(others)
    rows = []
    for u in SIZES:
        idx = np.concatenate([labeled, np.sort(order[:u])])
        X, Y = prep.X[idx], partial(prep.y[idx], np.arange(labeled.size))
        for label, fixed in TIMED.items():
            name, params = params_of(spec, label, **fixed)
            secs = []
            for _ in range(REPEATS):
                clear_rbf_cache()  # the eigenvectors are part of the cost
                est = make_method(name, **params)
                t0 = time.perf_counter()
                est.fit(X, Y)
                secs.append(time.perf_counter() - t0)
            rows.append(
                {
                    "method": label,
                    "n_unlabeled": u,
                    "n": idx.size,
                    "seconds": float(np.median(secs)),
                    "repeats": REPEATS,
                }
            )
    return pd.DataFrame(rows)


def figure2b_data(spec, prep):
    """Test mse and rmse against the width factor, per split (the first WIDTH_SPLITS)."""
    rows = []
    for si, labeled in enumerate(prep.settings[0][1][:WIDTH_SPLITS]):
        test = np.setdiff1d(prep.pool, labeled)
        Yp = partial(prep.y, labeled)
        for s in WIDE_B_SCALES:
            for label in ("Gaussian fields", "label-aware SVR", "SVR"):
                name, params = params_of(spec, label, b_scale=s)
                est = make_method(name, **params).fit(prep.X, Yp)  # C (SVRs) selected
                m = regression_metrics(est.transduction_, prep.y, test)
                C = getattr(est, "best_params_", {}).get("C")
                rows.append({"method": label, "b_scale": s, "split": si, **m, "C": C})
    return pd.DataFrame(rows)


def check_against_splits(fits, path=OUT / "wifi_splits.csv"):
    """Each split's mse of the run's fits is the table's (``wifi_splits.csv``, when there)."""
    if not path.is_file():
        return
    table = pd.read_csv(path)
    table = table[table["metric"] == "mse"].set_index(["method", "split"])["value"]
    for (fit, si), (_, Y, est_of, _) in fits.items():
        for label, F in est_of.items():
            if fit == "axis" and (label, si) in table.index:
                mse = float(np.mean((F - Y) ** 2))
                if not np.isclose(mse, table[(label, si)], rtol=1e-9):
                    raise SystemExit(
                        f"{label}, split {si}: mse {mse:.6g} differs from the "
                        f"table's {table[(label, si)]:.6g} ({path})"
                    )


def error_quantities(Em, span):
    """Every reading of "the error" (QUANTITIES) of one split's test errors ``Em`` (n, 2), in
    metres; ``span``: the coordinates' extents in metres (144, 36)."""
    Em, span = np.asarray(Em, dtype=float), np.asarray(span, dtype=float)
    A = Em / span  # each coordinate on [0, 1]
    J = Em / span.max()  # both coordinates divided by the larger extent
    q = {
        "mse": np.mean(A**2),
        "mse x": np.mean(A[:, 0] ** 2),
        "mse y": np.mean(A[:, 1] ** 2),
        "sq euclid": np.mean(np.sum(A**2, axis=1)),
        "mse joint": np.mean(J**2),
    }
    q.update(
        {
            "rmse": np.sqrt(q["mse"]),
            "rmse x": np.sqrt(q["mse x"]),
            "rmse y": np.sqrt(q["mse y"]),
            "rms euclid": np.sqrt(q["sq euclid"]),
            "rmse joint": np.sqrt(q["mse joint"]),
            "rmse m": np.sqrt(np.mean(Em**2)),
            "rms euclid m": np.sqrt(np.mean(np.sum(Em**2, axis=1))),
            "mean euclid m": np.mean(np.linalg.norm(Em, axis=1)),
            "norm/n": np.linalg.norm(A) / len(A),
        }
    )
    return {k: float(q[k]) for k in QUANTITIES}


def paper_numbers(spec, path=PAPER_TABLE):
    """``{label: the paper's number}`` for the spec's methods (the paper table's rows)."""
    t = pd.read_csv(path, comment="#")
    t = t[t["dataset"] == spec.paper.dataset].set_index("method")["mean"]
    return {m.label: float(t[m.paper]) for m in spec.methods}


def units_data(fits, span):
    """Per split, method, fit and quantity: the value (long format)."""
    rows = []
    for (fit, si), (_, Y, est_of, metres) in fits.items():
        for label, F in est_of.items():
            for quantity, value in error_quantities((F - Y) * metres, span).items():
                rows.append(
                    {"fit": fit, "quantity": quantity, "method": label, "split": si, "value": value}
                )
    return pd.DataFrame(rows)


def units_summary(units, paper):
    """Mean and std over the splits, the paper's number, ours / paper and whether every
    method is within MAGNITUDE of the paper on that row (``at_paper_size``)."""
    g = units.groupby(["fit", "quantity", "method"], sort=False)["value"]
    s = g.agg(["mean", "std", "count"]).reset_index().rename(columns={"count": "n_splits"})
    s["kind"] = s["quantity"].map(lambda q: QUANTITIES[q][1])
    s["paper"] = s["method"].map(paper)
    s["ours_over_paper"] = s["mean"] / s["paper"]
    within = s["ours_over_paper"].between(1 / MAGNITUDE, MAGNITUDE)
    s["at_paper_size"] = within.groupby([s["fit"], s["quantity"]]).transform("all")
    return s


def _rows(summary):
    """One row per (fit, quantity) shown, in FITS x QUANTITIES order."""
    out = []
    for fit in FITS:
        for q in QUANTITIES:
            if fit == "joint" and q not in JOINT_SHOWN:
                continue
            d = summary[(summary["fit"] == fit) & (summary["quantity"] == q)]
            if len(d):
                out.append((fit, q, d.set_index("method")))
    return out


def verdict(summary):
    """``(sentence, caption)``: what the sizes say about the paper's scale (long and short)."""
    rows = _rows(summary)
    hit = [(f, q, d) for f, q, d in rows if bool(d["at_paper_size"].iloc[0])]
    kinds = {QUANTITIES[q][1] for _, q, _ in hit}
    roots = [d["ours_over_paper"] for _, q, d in rows if QUANTITIES[q][1] == "root"]
    low = min(float(r.min()) for r in roots) if roots else np.nan

    def named(f, q, d):
        r = d["ours_over_paper"]
        return (
            f"{QUANTITIES[q][2]}{'' if f == 'axis' else ', refit'} "
            f"({r.min():.2g}–{r.max():.2g}× the paper's)"
        )

    if not hit:
        return (
            f"paper's RMSE scale: cannot be known; none of the {len(rows)} readings tried "
            f"puts all three of ours within ×{MAGNITUDE:.2g} of the paper's numbers.",
            "paper's 'RMSE' scale: unknown (no reading tried matches its size; wifi.md)",
        )
    if kinds <= {"square", "slip"}:
        squares = [named(*h) for h in hit if QUANTITIES[h[1]][1] == "square"]
        slips = [named(*h) for h in hit if QUANTITIES[h[1]][1] == "slip"]
        sentence = (
            "paper's RMSE scale: cannot be known exactly; by their size its numbers are "
            "mean *squared* errors of coordinates scaled to [0, 1], not root mean "
            f"squared ones. Within ×{MAGNITUDE:.2g} of the paper for all three "
            "methods: " + "; ".join(squares)
        )
        if slips:
            sentence += (
                "; and the slip " + "; ".join(slips) + ", which shrinks as 1/√n "
                "(the paper's n is not stated)"
            )
        sentence += (
            f". Every root mean squared reading is {low:.3g}× the paper's or more "
            "(in metres, thousands of times)."
        )
        sq = summary[(summary["fit"] == "axis") & (summary["quantity"] == "mse")]
        rm = summary[(summary["fit"] == "axis") & (summary["quantity"] == "rmse")]
        m = summary[(summary["fit"] == "axis") & (summary["quantity"] == "rmse m")]
        caption = (
            f"The paper's 'RMSE' ({_num(min(summary['paper']))}–"
            f"{_num(max(summary['paper']))}) is the size of an mse on [0, 1] (ours "
            f"{_num(sq['mean'].min())}–{_num(sq['mean'].max())}), not of an rmse (ours "
            f"{_num(rm['mean'].min())}–{_num(rm['mean'].max())}, i.e. "
            f"{m['mean'].min():.1f}–{m['mean'].max():.1f} m); its exact scale cannot "
            "be known (results/wang2015/wifi.md, last section)."
        )
        return sentence, caption
    names = "; ".join(named(*h) for h in hit)
    return (
        f"paper's RMSE scale: a root mean squared reading matches its size: {names}.",
        f"The paper's 'RMSE' scale: matched by {names} (results/wang2015/wifi.md).",
    )


def _num(v):
    return f"{v:.3g}"


def units_section(summary, paper, n_test, span, grid):
    """The markdown section appended to wifi.md (``span``: the coordinates' extents, ``grid``:
    the step of the grid the locations lie on, in metres)."""
    labels = list(paper)
    rat = " / ".join(f"{paper[lab] / paper[labels[0]]:.2f}" for lab in labels[1:])
    lines = [
        UNITS_HEADING,
        "",
        "The paper (Sec. 4.2): \"We normalize the labels y_i's such that they scale in the "
        "range [0,1]\" and \"We use the square root of the mean squared error\"; it prints "
        + ", ".join(f"{lab} {_num(v)}" for lab, v in paper.items())
        + ", and says neither "
        "how the two coordinates were scaled nor how the two errors were combined. The data: "
        f"x in [0, {span[0]:g}], y in [0, {span[1]:g}] on a grid of step {grid:g}, the ICDM "
        "2007 contest's 247 cells of 1.5 m × 1.5 m, so the coordinates are metres "
        f"(corridors over {span[0]:g} m × {span[1]:g} m, Fig. 1).",
        "",
        f"Each row reads our test errors ({int(summary['n_splits'].max())} splits, "
        f"{n_test} test points each; mean over the splits) one way; \"ours / paper\" per "
        f"method; \"paper's size\" when all three are within ×{MAGNITUDE:.2g} "
        "(half a decade). \"run\": the run's fits (targets each on [0, 1], the table's; every "
        "split's mse checked against `wifi_splits.csv`); \"refit\": the same methods, "
        f"parameters and selection on both coordinates divided by {span.max():g} m (the SVRs' "
        f"epsilon = 0.05 is then {0.05 * span.max():g} m in y too). \"each over "
        f"{labels[0]}\": ours of the other methods over ours of {labels[0]}, as the paper's "
        "gains are.",
        "",
        "| fit | quantity | " + " | ".join(labels) + " | ours / paper (each method) | "
        f"each over {labels[0]} (paper: {rat}) | paper's size |",
        "|---|---|" + "---|" * len(labels) + "---|---|---|",
    ]
    for fit, q, d in _rows(summary):
        metres = q.endswith(" m")
        vals = [
            (f"{d.loc[lab, 'mean']:.2f}" if metres else _num(d.loc[lab, "mean"])) for lab in labels
        ]
        ratio = " / ".join(f"{d.loc[lab, 'ours_over_paper']:.3g}" for lab in labels)
        rel = " / ".join(
            f"{d.loc[lab, 'mean'] / d.loc[labels[0], 'mean']:.2f}" for lab in labels[1:]
        )
        size = "yes" if bool(d["at_paper_size"].iloc[0]) else "no"
        lines.append(
            f"| {'run' if fit == 'axis' else 'refit'} | {QUANTITIES[q][0]} | "
            + " | ".join(vals)
            + f" | {ratio} | {rel} | {size} |"
        )
    sentence, _ = verdict(summary)
    best = min(paper.values())
    mse = summary[(summary["fit"] == "axis") & (summary["quantity"] == "mse")]
    rmse_m = summary[(summary["fit"] == "axis") & (summary["quantity"] == "rmse m")]
    lines += [
        "",
        f"**{sentence}**",
        "",
        "What the sizes cannot tell: which mean squared error (each coordinate or both "
        "scaled, x alone). Ours differ from the paper's by its unstated protocol too "
        "(number of labeled points, split, features, eigenvectors): on the table's mse "
        f"by a factor {mse['ours_over_paper'].min():.2g}–"
        f"{mse['ours_over_paper'].max():.2g}. Read as an rmse, the paper's "
        f"{_num(best)} would be {best * span[0]:.2f} m in x and {best * span[1]:.2f} m in "
        f"y ({best * span.max():.2f} m if both are divided by {span.max():g} m), "
        f"{best * span[0] / grid:.2g} of the {grid:g} m grid step; read as an mse, its "
        f"root {np.sqrt(best):.2g} is {np.sqrt(best) * span[0]:.1f} m in x and "
        f"{np.sqrt(best) * span[1]:.1f} m in y ({np.sqrt(best) * span.max():.1f} m "
        f"jointly), the size of our rmse in metres ({rmse_m['mean'].min():.1f}–"
        f"{rmse_m['mean'].max():.1f} m). Per split: `wifi_units_splits.csv`; summary: "
        "`wifi_units.csv`.",
        "",
    ]
    return "\n".join(lines)


def write_units_section(path, section):
    """Append ``section`` to the markdown table at ``path``, replacing an earlier one."""
    if not path.is_file():
        print(f"{path} not there (run `sskernels run ... --table` first): section not written")
        return
    text = path.read_text()
    cut = text.find(UNITS_HEADING)
    if cut >= 0:
        text = text[:cut]
    atomic_write_text(path, text.rstrip("\n") + "\n\n" + section)


def _caption(fig, text, height):
    """``text`` wrapped under the panels (``height``: the figure's height in inches)."""
    import textwrap

    lines = textwrap.wrap(text, width=int(fig.get_figwidth() * 15))
    fig.tight_layout(rect=(0, (0.2 + 0.16 * len(lines)) / height, 1, 1))
    fig.text(
        0.5, 0.1 / height, "\n".join(lines), ha="center", va="bottom", fontsize=7.5, color="0.25"
    )


def plot(fig1, fig2a, fig2b, paper, caption):
    """Figs. 1 and 2; ``paper``: the paper's number per method (printed beside ours);
    ``caption``: the verdict on the paper's scale (:func:`verdict`), under each figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(fig1["method"]))
    fig, axes = plt.subplots(1, len(labels), figsize=(5.2 * len(labels), 3.0), sharey=True)
    for ax, label, tag in zip(axes, labels, "abc"):
        d = fig1[fig1["method"] == label]
        for _, r in d.iterrows():
            ax.plot([r.x_true, r.x_estimated], [r.y_true, r.y_estimated], color="0.6", lw=0.5)
        ax.plot(d.x_true, d.y_true, "o", mfc="none", mec="red", ms=4, label="true")
        ax.plot(d.x_estimated, d.y_estimated, ".", color="blue", ms=3, label="estimated")
        mse = float(
            np.mean(
                (d[["x_estimated", "y_estimated"]].to_numpy() - d[["x_true", "y_true"]].to_numpy())
                ** 2
            )
        )
        ax.set_title(
            f"({tag}) {label}: mse {mse:.2e}, rmse {np.sqrt(mse):.3f} (paper: {paper[label]:.3g})",
            fontsize=9,
        )
        ax.set_xlabel("x (scaled to [0, 1])")
    axes[0].set_ylabel("y (scaled to [0, 1])")
    axes[0].legend(loc="lower left", fontsize=7)
    fig.suptitle(
        "Wang et al. 2015, Fig. 1 (ours): WiFi localization, split 0, "
        f"{int(fig1['point'].nunique())} test points, 100 labeled",
        fontsize=10,
    )
    _caption(fig, caption, 3.0)
    fig.savefig(OUT / "figure1_wifi.png", dpi=130)
    plt.close(fig)

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.3))
    for label, d in fig2a.groupby("method", sort=False):
        a.plot(d.n_unlabeled, d.seconds, "o-", label=label)
    a.set_yscale("log")
    a.set_xlabel("number of unlabeled points")
    a.set_ylabel("seconds per fit (median of 3)")
    a.set_title("(a) time versus sample size", fontsize=10)
    a.legend(fontsize=8)
    mean = fig2b.groupby(["method", "b_scale"], sort=False)["mse"].mean().reset_index()
    for label, d in mean.groupby("method", sort=False):
        (line,) = b.plot(
            d.b_scale,
            d.mse,
            "o-" if label != "SVR" else "s--",
            label=label,
            color=None if label != "SVR" else "0.5",
        )
        b.axhline(paper[label], color=line.get_color(), ls=":", lw=1)
    b.plot([], [], ":", color="0.3", lw=1, label="paper's number (printed as rmse)")
    b.set_xscale("log")
    b.set_yscale("log")
    b.set_xlabel("kernel width factor b / b0 (b0 = 1 / mean squared distance)")
    b.set_ylabel(f"test mse (mean of {fig2b['split'].nunique()} splits)")
    b.set_title("(b) error versus kernel width", fontsize=10)
    b.legend(fontsize=8)
    fig.suptitle(
        "Wang et al. 2015, Fig. 2 (ours): WiFi localization, 100 labeled points", fontsize=10
    )
    _caption(fig, caption, 4.3)
    fig.savefig(OUT / "figure2_wifi.png", dpi=130)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="processes for the units' fits (the timings of Fig. 2(a) stay serial)",
    )
    args = ap.parse_args(argv)
    spec = load_spec(SPEC)
    OUT.mkdir(parents=True, exist_ok=True)
    with threadpool_limits(1):
        prep = prepare(spec)
        raw = np.asarray(load_data(spec).y, dtype=float)
        span = np.ptp(raw, axis=0)  # metres (144, 36)
        grid = float(min(np.diff(np.unique(c)).min() for c in raw.T))  # 1.5 m
        t0 = time.perf_counter()
        fits = fit_splits(spec, prep, span, args.jobs)
        check_against_splits(fits)
        fig1, mses = figure1_data(fits)
        check_against_records(spec, mses)
        t1 = time.perf_counter()
        fig2a = figure2a_data(spec, prep)
        t2 = time.perf_counter()
        fig2b = figure2b_data(spec, prep)
        t3 = time.perf_counter()
    paper = paper_numbers(spec)
    units = units_data(fits, span)
    summary = units_summary(units, paper)
    n_test = int(np.setdiff1d(prep.pool, prep.settings[0][1][0]).size)
    for df, name in (
        (fig1, "figure1_wifi"),
        (fig2a, "figure2_wifi_time"),
        (fig2b, "figure2_wifi_width"),
        (units, "wifi_units_splits"),
        (summary, "wifi_units"),
    ):
        atomic_write_text(OUT / f"{name}.csv", df.to_csv(index=False, float_format="%.6g"))
    write_units_section(OUT / "wifi.md", units_section(summary, paper, n_test, span, grid))
    sentence, caption = verdict(summary)
    plot(fig1, fig2a, fig2b, paper, caption)
    print("Fig. 1 (split 0) mse: " + ", ".join(f"{k} {v:.4g}" for k, v in mses.items()))
    print(fig2a.pivot(index="n_unlabeled", columns="method", values="seconds").round(3).to_string())
    print(
        fig2b.groupby(["method", "b_scale"], sort=False)[["mse", "rmse"]]
        .mean()
        .unstack(0)
        .to_string(float_format=lambda v: f"{v:.4g}")
    )
    print(
        summary.pivot_table(
            index=["fit", "quantity"], columns="method", values="mean", sort=False
        ).to_string(float_format=lambda v: f"{v:.4g}")
    )
    print(sentence)
    print(
        f"fits (Fig. 1 and the units, {args.jobs} job(s)) {t1 - t0:.0f} s, Fig. 2(a) "
        f"{t2 - t1:.0f} s, Fig. 2(b) {t3 - t2:.0f} s"
    )
    print(
        f"{time.perf_counter() - t0:.0f} s; wrote {OUT}/figure1_wifi.png, figure2_wifi.png, "
        "wifi_units.csv, wifi_units_splits.csv, their CSVs and the units section of wifi.md"
    )


if __name__ == "__main__":
    main()
