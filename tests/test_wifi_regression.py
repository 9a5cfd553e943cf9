"""WiFi localization as a regression task (Wang et al. 2015, Sec. 4.2).

The regressors against their definitions (label-aware vectors ``D^-1 K_nl Y_c``, the alignf
terms of the target ``Y_c Y_c^T``, an SVR on the learned kernel = scikit-learn's SVR on the
same precomputed kernel, the harmonic solution), the runner on a small WiFi spec through the
CLI (rmse and mse against a direct computation, ``mse = rmse^2`` per split) and the spec
errors of bad combinations (one line naming the file and the field, exit code 2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.svm import SVR

from sskernels.errors import SpecError
from sskernels.learners.label_aware_regression import (
    LabelAwareSVR,
    regression_alignment_terms,
    regression_label_aware_vectors,
)
from sskernels.learners.propagation import HarmonicRegressor
from sskernels.learners.supervised import SVRBaseline
from sskernels.spec import parse_spec

REPO = Path(__file__).resolve().parents[1]


def toy(n=160, n_labeled=40, seed=0):
    """Points on a noisy 2-D manifold with two smooth targets; NaN rows = unlabeled."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 3, size=(n, 2))
    X = np.column_stack([t, np.sin(t[:, :1]) + 0.05 * rng.normal(size=(n, 1))])
    Y = np.column_stack([t[:, 0] / 3, (t[:, 1] / 3) ** 2])
    lab = np.sort(rng.choice(n, n_labeled, replace=False))
    Yp = np.full(Y.shape, np.nan)
    Yp[lab] = Y[lab]
    return X, Y, Yp, lab


def sq_dists(A, B):
    from scipy.spatial.distance import cdist

    return cdist(A, B, "sqeuclidean")


def b_of(X, scale):
    n = len(X)
    return scale / (sq_dists(X, X).sum() / (n * (n - 1)))


# ---------------------------------------------------------------------------- definitions


def test_regression_label_aware_vectors_are_their_definition():
    X, Y, Yp, lab = toy()
    b = b_of(X, 5.0)
    K = np.exp(-b * sq_dists(X, X[lab]))  # K_nl
    Yc = Y[lab] - Y[lab].mean(axis=0)
    U = np.diag(1 / K.sum(axis=1)) @ K @ Yc  # D_n^-1 K_nl Y_c
    np.testing.assert_allclose(
        regression_label_aware_vectors(sq_dists(X, X[lab]), Y[lab], b), U, atol=1e-12
    )
    est = LabelAwareSVR(b_scale=5.0, eigen_solver="exact", C=1.0, random_state=0).fit(X, Yp)
    learner = est.learner_
    assert learner.n_label_aware_ == 2
    # the first two base vectors: U centered by its mean over the labeled points, unit norm there
    Uc = U - U[lab].mean(axis=0)
    np.testing.assert_allclose(
        learner.basis_[:, :2], Uc / np.linalg.norm(Uc[lab], axis=0), atol=1e-10
    )
    np.testing.assert_allclose(np.linalg.norm(learner.basis_[lab], axis=0)[:2], 1.0)
    # alignf's terms are <K_s, K_t>_F and <K_t, Y_c Y_c^T>_F of the centered labeled blocks
    Phi = learner.basis_[lab]
    G, a = regression_alignment_terms(Phi, Yc)
    T = Yc @ Yc.T
    for s_, t_ in [(0, 0), (0, 1), (1, 5), (3, 7)]:
        Ks, Kt = np.outer(Phi[:, s_], Phi[:, s_]), np.outer(Phi[:, t_], Phi[:, t_])
        assert G[s_, t_] == pytest.approx(np.sum(Ks * Kt), rel=1e-10)
        assert a[t_] == pytest.approx(np.sum(Kt * T), rel=1e-10, abs=1e-14)
    # the learned kernel is sum_t mu_t phi_t phi_t^T (eq. (6)), PSD, with mu >= 0
    assert np.all(learner.mu_ >= 0)
    K_learned = (learner.basis_ * learner.mu_) @ learner.basis_.T
    np.testing.assert_allclose(learner.kernel_, K_learned, atol=1e-12)
    assert 0 < learner.alignment_ <= 1


def test_svr_on_the_learned_kernel_is_sklearn_svr_on_the_same_precomputed_kernel():
    X, Y, Yp, lab = toy(seed=1)
    est = LabelAwareSVR(b_scale=1.0, C=10.0, epsilon=0.05, random_state=0).fit(X, Yp)
    K = est.learner_.kernel_  # (n, n), unscaled
    K = K / np.mean(np.diag(K))  # unit mean diagonal
    for j in range(2):
        ref = SVR(kernel="precomputed", C=10.0, epsilon=0.05).fit(K[np.ix_(lab, lab)], Y[lab, j])
        np.testing.assert_allclose(est.transduction_[:, j], ref.predict(K[:, lab]), atol=1e-8)
    # new points: the learned kernel's extension K(x, X_L), through the same SVRs
    X_new = X[:7] + 0.01
    K_new = est.learner_.kernel(X_new, None)[:, lab] / est.kernel_scale_
    want = np.column_stack([m.predict(K_new) for m in est.svrs_])
    np.testing.assert_allclose(est.predict(X_new), want, atol=1e-10)
    # a 1-d target gives 1-d predictions and the same first column
    one = LabelAwareSVR(b_scale=1.0, C=10.0, random_state=0).fit(X, Yp[:, 0])
    assert one.transduction_.shape == (len(X),) and one.predict(X_new).shape == (7,)


def test_harmonic_regressor_is_eq_5_with_the_unnormalized_laplacian():
    X, Y, Yp, lab = toy(seed=2)
    est = HarmonicRegressor(b_scale=5.0).fit(X, Yp)
    W = np.exp(-b_of(X, 5.0) * sq_dists(X, X))
    np.fill_diagonal(W, 0.0)
    L = np.diag(W.sum(axis=1)) - W
    unl = np.setdiff1d(np.arange(len(X)), lab)
    f_U = -np.linalg.solve(L[np.ix_(unl, unl)], L[np.ix_(unl, lab)] @ Y[lab])
    np.testing.assert_allclose(est.transduction_[unl], f_U, atol=1e-10)
    np.testing.assert_allclose(est.transduction_[lab], Y[lab])


@pytest.mark.parametrize(
    "est",
    [HarmonicRegressor(), SVRBaseline(), LabelAwareSVR(random_state=0)],
    ids=lambda e: type(e).__name__,
)
def test_fast_fold_predictors_equal_the_generic_rule(est):
    from sskernels.learners.selection import generic_regression_fold_predictor

    X, Y, Yp, lab = toy(n=90, n_labeled=25, seed=3)
    keys = ("b_scale",) if isinstance(est, HarmonicRegressor) else ("b_scale", "C")
    fast = est._fold_predictor(X, lab, Y[lab], keys)
    slow = generic_regression_fold_predictor(est, X, lab, Y[lab])
    train, test = np.arange(5, 25), np.arange(5)
    for cand in ({"b_scale": 1.0, "C": 1.0}, {"b_scale": 20.0, "C": 100.0}):
        cand = {k: cand[k] for k in keys}
        np.testing.assert_allclose(fast(cand, train, test), slow(cand, train, test), atol=1e-8)


def test_regressors_refuse_bad_targets():
    X, Y, Yp, lab = toy(n=40, n_labeled=10)
    for est in (HarmonicRegressor(), SVRBaseline(), LabelAwareSVR(random_state=0)):
        with pytest.raises(ValueError, match="at least 2 labeled points"):
            y = np.full(40, np.nan)
            y[0] = 1.0
            type(est)().fit(X, y)
        with pytest.raises(ValueError, match="partly NaN"):
            bad = Yp.copy()
            bad[lab[0], 1] = np.nan
            type(est)().fit(X, bad)
        with pytest.raises(ValueError, match="infinity"):
            bad = Yp.copy()
            bad[lab[0], 0] = np.inf
            type(est)().fit(X, bad)
        with pytest.raises(ValueError):
            type(est)().fit(X, Yp[:30])


# ---------------------------------------------------------------------------- the runner


def _cli(args, cwd, timeout=240):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "sskernels", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


TINY = """\
name: wifi_tiny
dataset: wifi
preprocess: rss-floor
target_scale: minmax
splits: {{protocol: random, n_labeled: 40, n_splits: 2, seed: 3}}
metrics: [rmse, mse]
methods:
  - {{name: svr, label: SVR, params: {{b_scale: 1.0, C: 10.0}}}}
  - {{name: harmonic-regression, label: GF, params: {{b_scale: 50.0}}}}
  - {{name: label-aware-svr, label: LA, params: {{b_scale: 20.0, C: 1.0}}}}
output: {output}
"""


@pytest.mark.datasets("wifi")
def test_runner_on_a_tiny_wifi_spec_via_the_cli(data_mirror, tmp_path):
    from sskernels.data import load_dataset

    spec = tmp_path / "wifi_tiny.yaml"
    spec.write_text(TINY.format(output=tmp_path / "out"))
    res = _cli(["run", spec, "--no-progress", "--table", tmp_path / "table"], tmp_path)
    assert res.returncode == 0, res.stderr
    recs = {
        (r["method"], r["split"]): r
        for r in (json.loads(p.read_text()) for p in (tmp_path / "out").rglob("split_*.json"))
    }
    assert len(recs) == 6
    # the direct computation: targets to [0, 1], split i = 40 of the 505 'src' rows drawn with
    # the seed (3, i), test = the other 465; SVR per coordinate; the harmonic solution
    ds = load_dataset("wifi")
    X = np.where(ds.X == 0, -100.0, ds.X)
    Y = (ds.y - ds.y.min(0)) / (ds.y.max(0) - ds.y.min(0))
    n = len(X)
    msd = sq_dists(X, X).sum() / (n * (n - 1))
    for i in range(2):
        lab = np.sort(np.random.default_rng([3, i]).choice(505, 40, replace=False))
        test = np.setdiff1d(np.arange(505), lab)
        pred = np.column_stack(
            [
                SVR(gamma=1.0 / msd, C=10.0, epsilon=0.05).fit(X[lab], Y[lab, j]).predict(X[test])
                for j in range(2)
            ]
        )
        mse = np.mean((pred - Y[test]) ** 2)
        r = recs[("SVR", i)]
        assert r["n_labeled"] == 40 and r["n_test"] == 465 and r["n_unlabeled"] == n - 40
        assert r["metrics"]["mse"] == pytest.approx(mse, rel=1e-9)
        assert r["metrics"]["rmse"] == pytest.approx(np.sqrt(mse), rel=1e-9)
        W = np.exp(-(50.0 / msd) * sq_dists(X, X))
        np.fill_diagonal(W, 0.0)
        unl = np.setdiff1d(np.arange(n), lab)
        L = np.diag(W.sum(axis=1)) - W
        f_U = np.linalg.solve(L[np.ix_(unl, unl)], W[np.ix_(unl, lab)] @ Y[lab])
        F = np.zeros_like(Y)
        F[unl], F[lab] = f_U, Y[lab]
        assert recs[("GF", i)]["metrics"]["mse"] == pytest.approx(
            np.mean((F[test] - Y[test]) ** 2), rel=1e-7
        )
        for m in ("SVR", "GF", "LA"):  # mse = rmse^2, per split, exactly as recorded
            got = recs[(m, i)]["metrics"]
            assert got["mse"] == pytest.approx(got["rmse"] ** 2, rel=1e-12)
    # the table: the shared schema, rmse and mse rows, per-split file with mse = rmse^2
    import pandas as pd

    from sskernels.experiment.tables import SCHEMA

    table = pd.read_csv(tmp_path / "table.csv")
    assert list(table.columns) == SCHEMA
    assert set(table["metric"]) == {"rmse", "mse"} and set(table["n_splits"]) == {2}
    splits = pd.read_csv(tmp_path / "table_splits.csv")
    wide = splits.pivot_table(index=["method", "split"], columns="metric", values="value")
    np.testing.assert_allclose(wide["mse"], wide["rmse"] ** 2, rtol=1e-12)


# ---------------------------------------------------------------------------- bad specs

BAD = {
    # a classifier on the regression data set
    "classifier_on_wifi": ("dataset: wifi\nmethods: [harmonic]\n", "methods[0].name"),
    # a regressor on a classification data set
    "regressor_on_wine": ("dataset: sklearn-wine\nmethods: [svr]\n", "methods[0].name"),
    # the classification metric on the regression data set, and the reverse
    "error_metric_on_wifi": (
        "dataset: wifi\nmethods: [svr]\nmetrics: [rmse, error]\n",
        "metrics[1]",
    ),
    "rmse_on_wine": ("dataset: sklearn-wine\nmethods: [harmonic]\nmetrics: [rmse]\n", "metrics[0]"),
    "class_first_on_wifi": (
        "dataset: wifi\nmethods: [svr]\nsplits: {protocol: class-first}\n",
        "splits.protocol",
    ),
    "holdout_on_wifi": (
        "dataset: wifi\nmethods: [svr]\nsplits: {holdout: 0.2}\n",
        "splits.holdout",
    ),
    "oracle_on_wifi": (
        "dataset: wifi\nmethods: [{name: svr, label: svr oracle, select: oracle}]\n",
        "methods[0].select",
    ),
    "target_scale_on_wine": (
        "dataset: sklearn-wine\nmethods: [harmonic]\ntarget_scale: minmax\n",
        "target_scale",
    ),
    "target_scale_bogus": ("dataset: wifi\nmethods: [svr]\ntarget_scale: zscore\n", "target_scale"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_regression_specs_name_the_file_and_the_field(name, tmp_path):
    text, field_ = BAD[name]
    path = tmp_path / f"{name}.yaml"
    with pytest.raises(SpecError) as exc:
        import yaml

        parse_spec(yaml.safe_load(text), path)
    msg = str(exc.value)
    assert "\n" not in msg and str(path) in msg and f"field '{field_}'" in msg


@pytest.mark.datasets("wifi")
def test_bad_specs_exit_2_with_one_line_through_the_cli(data_mirror, tmp_path):
    cases = {k: BAD[k] for k in ("classifier_on_wifi", "error_metric_on_wifi")}
    # found only when the data are loaded (the pool's size): still the file and the field
    cases["too_many_labeled"] = (
        "dataset: wifi\npreprocess: rss-floor\nmethods: [svr]\nsplits: {n_labeled: 505}\n",
        "splits.n_labeled",
    )
    for name, (text, field_) in cases.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(text + f"output: {tmp_path / name}\n")
        res = _cli(["run", path, "--no-progress"], tmp_path, timeout=120)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2, (name, res.stderr)
        assert len(lines) == 1 and str(path) in lines[0] and f"field '{field_}'" in lines[0], (
            name,
            res.stderr,
        )


# ------------------------------------------------- the paper's scale (scripts/wang2015_wifi.py)


def _wifi_script():
    import runpy
    from types import SimpleNamespace

    return SimpleNamespace(**runpy.run_path(str(REPO / "scripts" / "wang2015_wifi.py")))


SPAN = np.array([144.0, 36.0])  # the WiFi floor's extents in metres (x, y)


def test_error_quantities_are_their_definitions():
    w = _wifi_script()
    rng = np.random.default_rng(0)
    Em = rng.normal(size=(50, 2)) * [6.0, 2.0]  # errors in metres
    q = w.error_quantities(Em, SPAN)
    assert set(q) == set(w.QUANTITIES)
    A, J = Em / SPAN, Em / 144.0
    mse = np.mean(A**2)
    expect = {
        "mse": mse,
        "rmse": np.sqrt(mse),
        "mse x": np.mean(A[:, 0] ** 2),
        "mse y": np.mean(A[:, 1] ** 2),
        "rmse x": np.sqrt(np.mean(A[:, 0] ** 2)),
        "rmse y": np.sqrt(np.mean(A[:, 1] ** 2)),
        "sq euclid": 2 * mse,
        "rms euclid": np.sqrt(2 * mse),
        "mse joint": np.mean(J**2),
        "rmse joint": np.sqrt(np.mean(J**2)),
        "rmse m": np.sqrt(np.mean(Em**2)),
        "rms euclid m": np.sqrt(2 * np.mean(Em**2)),
        "mean euclid m": np.mean(np.hypot(Em[:, 0], Em[:, 1])),
        "norm/n": np.sqrt(np.sum(A**2)) / 50,
    }
    for k, v in expect.items():
        assert q[k] == pytest.approx(v, rel=1e-12), k
    assert q["rmse joint"] == pytest.approx(q["rmse m"] / 144.0, rel=1e-12)
    # every point 1.5 m off in x (one grid step): 1.5 m, 1.5 / 144 on [0, 1]
    one = w.error_quantities(np.tile([1.5, 0.0], (10, 1)), SPAN)
    assert one["mean euclid m"] == pytest.approx(1.5) and one["rmse y"] == 0.0
    assert one["rmse x"] == pytest.approx(1.5 / 144) == one["rmse joint"] * np.sqrt(2)


def _units(w, value):
    """Synthetic per-split values: ``value(fit, quantity, method)`` on two splits."""
    rows = [
        {"fit": f, "quantity": q, "method": m, "split": s, "value": value(f, q, m)}
        for f in w.FITS
        for q in w.QUANTITIES
        for m in PAPER_WIFI
        for s in (0, 1)
    ]
    import pandas as pd

    return pd.DataFrame(rows)


PAPER_WIFI = {"SVR": 2.5e-3, "Gaussian fields": 1.61e-3, "label-aware SVR": 1.19e-3}


def test_the_verdict_follows_the_sizes():
    w = _wifi_script()
    # only the mse rows within sqrt(10) of the paper (x 3 for one method is still within)
    mse_only = _units(
        w, lambda f, q, m: PAPER_WIFI[m] * (3.0 if m == "SVR" else 1.5) if q == "mse" else 1.0
    )
    s = w.units_summary(mse_only, PAPER_WIFI)
    hit = s[s["at_paper_size"]]
    assert set(hit["quantity"]) == {"mse"} and set(hit["fit"]) == {"axis", "joint"}
    sentence, caption = w.verdict(s)
    assert "mean *squared* errors" in sentence and "cannot be known exactly" in sentence
    assert "slip" not in sentence and "not of an rmse" in caption
    # one method 4x the paper: that row is not at the paper's size
    far = _units(
        w, lambda f, q, m: PAPER_WIFI[m] * (4.0 if m == "SVR" else 1.0) if q == "mse" else 1.0
    )
    assert not w.units_summary(far, PAPER_WIFI)["at_paper_size"].any()
    sentence, caption = w.verdict(w.units_summary(far, PAPER_WIFI))
    assert "none of the" in sentence and "unknown" in caption
    # a root mean squared reading at the paper's size is named as such
    root = _units(w, lambda f, q, m: PAPER_WIFI[m] if q in ("mse", "rmse x") else 1.0)
    sentence, _ = w.verdict(w.units_summary(root, PAPER_WIFI))
    assert "a root mean squared reading matches" in sentence and "rmse of x (" in sentence


def test_the_units_section_replaces_an_earlier_one(tmp_path):
    w = _wifi_script()
    md = tmp_path / "wifi.md"
    md.write_text("# table\n\n| a |\n")
    w.write_units_section(md, w.UNITS_HEADING + "\n\nfirst\n")
    w.write_units_section(md, w.UNITS_HEADING + "\n\nsecond\n")
    text = md.read_text()
    assert text.startswith("# table\n\n| a |\n\n") and text.count(w.UNITS_HEADING) == 1
    assert "second" in text and "first" not in text
    w.write_units_section(tmp_path / "absent.md", "x")  # no table: nothing written
    assert not (tmp_path / "absent.md").exists()


@pytest.mark.datasets("wifi")
def test_the_units_read_the_runs_fits(data_mirror, tmp_path):
    """Split 0's SVR, fitted as the script fits it, has the committed table's mse, and the
    check of the script fails on a different value."""
    from dataclasses import replace

    from sskernels.experiment.preparation import prepare

    w = _wifi_script()
    spec = w.load_spec(w.SPEC)
    spec = replace(spec, methods=[m for m in spec.methods if m.label == "SVR"])
    prep = prepare(spec, n_splits=1)
    fits = w.fit_splits(spec, prep, SPAN)
    assert set(fits) == {("axis", 0), ("joint", 0)}
    table = w.OUT / "wifi_splits.csv"
    if not table.is_file():
        pytest.skip(f"{table} not there")
    w.check_against_splits(fits, table)
    test, Y, est_of, metres = fits[("axis", 0)]
    assert test.size == 405 and np.array_equal(metres, SPAN)
    q = w.error_quantities((est_of["SVR"] - Y) * metres, SPAN)
    bad = tmp_path / "splits.csv"
    bad.write_text(
        "table,dataset,setting,method,metric,split,value\n"
        f"t,WiFi,100 labeled,SVR,mse,0,{q['mse'] * 1.01!r}\n"
    )
    with pytest.raises(SystemExit, match="differs from the table"):
        w.check_against_splits(fits, bad)
    # the joint refit's targets are the metres / 144: its errors back in metres
    test_j, Y_j, est_j, metres_j = fits[("joint", 0)]
    np.testing.assert_array_equal(test_j, test)
    np.testing.assert_allclose(Y_j * metres_j, Y * metres)


def test_the_units_section_has_a_row_per_reading_and_the_verdict():
    w = _wifi_script()
    units = _units(w, lambda f, q, m: PAPER_WIFI[m] * 2 if q in ("mse", "mse joint") else 1.0)
    s = w.units_summary(units, PAPER_WIFI)
    text = w.units_section(s, PAPER_WIFI, 405, SPAN, 1.5)
    rows = [
        ln for ln in text.splitlines() if ln.startswith("| run |") or ln.startswith("| refit |")
    ]
    assert len(rows) == len(w.QUANTITIES) + len(w.JOINT_SHOWN)
    assert sum(r.endswith("| yes |") for r in rows) == 3  # mse, mse joint; refit: mse joint
    assert text.startswith(w.UNITS_HEADING) and w.verdict(s)[0] in text
    assert "paper: 0.64 / 0.48" in text  # the paper's gains
