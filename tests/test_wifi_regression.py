"""WiFi localization as a regression task (Wang et al. 2015, Sec. 4.2; issue #11).

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
from sskernels.learners.label_aware_regression import (LabelAwareSVR,
                                                       regression_alignment_terms,
                                                       regression_label_aware_vectors)
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
    K = np.exp(-b * sq_dists(X, X[lab]))                       # K_nl
    Yc = Y[lab] - Y[lab].mean(axis=0)
    U = np.diag(1 / K.sum(axis=1)) @ K @ Yc                      # D_n^-1 K_nl Y_c
    np.testing.assert_allclose(regression_label_aware_vectors(sq_dists(X, X[lab]), Y[lab], b),
                               U, atol=1e-12)
    est = LabelAwareSVR(b_scale=5.0, eigen_solver="exact", C=1.0).fit(X, Yp)
    learner = est.learner_
    assert learner.n_label_aware_ == 2
    # the first two base vectors: U centered by its mean over the labeled points, unit norm there
    Uc = U - U[lab].mean(axis=0)
    np.testing.assert_allclose(learner.basis_[:, :2], Uc / np.linalg.norm(Uc[lab], axis=0),
                               atol=1e-10)
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
    est = LabelAwareSVR(b_scale=1.0, C=10.0, epsilon=0.05).fit(X, Yp)
    K = est.learner_.kernel_                                     # (n, n), unscaled
    K = K / np.mean(np.diag(K))                                  # unit mean diagonal
    for j in range(2):
        ref = SVR(kernel="precomputed", C=10.0, epsilon=0.05).fit(K[np.ix_(lab, lab)],
                                                                  Y[lab, j])
        np.testing.assert_allclose(est.transduction_[:, j], ref.predict(K[:, lab]), atol=1e-8)
    # new points: the learned kernel's extension K(x, X_L), through the same SVRs
    X_new = X[:7] + 0.01
    K_new = est.learner_.kernel(X_new, None)[:, lab] / est.kernel_scale_
    want = np.column_stack([m.predict(K_new) for m in est.svrs_])
    np.testing.assert_allclose(est.predict(X_new), want, atol=1e-10)
    # a 1-d target gives 1-d predictions and the same first column
    one = LabelAwareSVR(b_scale=1.0, C=10.0).fit(X, Yp[:, 0])
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


@pytest.mark.parametrize("est", [HarmonicRegressor(), SVRBaseline(), LabelAwareSVR()],
                         ids=lambda e: type(e).__name__)
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
    for est in (HarmonicRegressor(), SVRBaseline(), LabelAwareSVR()):
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
    return subprocess.run([sys.executable, "-m", "sskernels", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)


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
    recs = {(r["method"], r["split"]): r for r in
            (json.loads(p.read_text()) for p in (tmp_path / "out").rglob("split_*.json"))}
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
        pred = np.column_stack([SVR(gamma=1.0 / msd, C=10.0, epsilon=0.05)
                                .fit(X[lab], Y[lab, j]).predict(X[test]) for j in range(2)])
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
            np.mean((F[test] - Y[test]) ** 2), rel=1e-7)
        for m in ("SVR", "GF", "LA"):      # mse = rmse^2, per split, exactly as recorded
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
    "error_metric_on_wifi": ("dataset: wifi\nmethods: [svr]\nmetrics: [rmse, error]\n",
                             "metrics[1]"),
    "rmse_on_wine": ("dataset: sklearn-wine\nmethods: [harmonic]\nmetrics: [rmse]\n",
                     "metrics[0]"),
    "class_first_on_wifi": ("dataset: wifi\nmethods: [svr]\nsplits: {protocol: class-first}\n",
                            "splits.protocol"),
    "holdout_on_wifi": ("dataset: wifi\nmethods: [svr]\nsplits: {holdout: 0.2}\n",
                        "splits.holdout"),
    "oracle_on_wifi": ("dataset: wifi\nmethods: [{name: svr, label: svr oracle, "
                       "select: oracle}]\n", "methods[0].select"),
    "target_scale_on_wine": ("dataset: sklearn-wine\nmethods: [harmonic]\n"
                             "target_scale: minmax\n", "target_scale"),
    "target_scale_bogus": ("dataset: wifi\nmethods: [svr]\ntarget_scale: zscore\n",
                           "target_scale"),
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
    cases["too_many_labeled"] = ("dataset: wifi\npreprocess: rss-floor\nmethods: [svr]\n"
                                 "splits: {n_labeled: 505}\n", "splits.n_labeled")
    for name, (text, field_) in cases.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(text + f"output: {tmp_path / name}\n")
        res = _cli(["run", path, "--no-progress"], tmp_path, timeout=120)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2, (name, res.stderr)
        assert len(lines) == 1 and str(path) in lines[0] and f"field '{field_}'" in lines[0], \
            (name, res.stderr)
