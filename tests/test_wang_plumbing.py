"""Experiment plumbing of Wang et al. 2015 (#11): the alignment and error metrics, the oracle
selection protocol (``select: oracle``), paper tables with a metric column, the specs."""

from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from sskernels.errors import SpecError
from sskernels.experiment.oracle import oracle_fit
from sskernels.learners.selection import flatten
from sskernels.experiment.runner import run_spec
from sskernels.experiment.tasks import unlabeled_alignment
from sskernels.experiment.splits import random_split
from sskernels.experiment.tables import _paper_value, summarize, to_markdown
from sskernels.learners.label_aware import LabelAwareKernel
from sskernels.learners.selection import SelectOnLabeled
from sskernels.spec import load_spec, method_key, parse_spec

ROOT = Path(__file__).resolve().parents[1]


def two_blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + 1.5 * y[:, None]
    return X, y


def write_csv(path, X, y):
    lines = ["a,b,c,class"] + [
        ",".join(repr(float(v)) for v in r) + f",{lab}" for r, lab in zip(X, y)
    ]
    path.write_text("\n".join(lines) + "\n")


def spec_of(tmp_path, methods, metrics=None, **extra):
    X, y = two_blobs()
    write_csv(tmp_path / "blobs.csv", X, y)
    raw = {
        "dataset": {"file": "blobs.csv", "label": "class"},
        "splits": {"n_splits": 2, "n_labeled": 10, "seed": 1},
        "methods": methods,
        "output": str(tmp_path / "out"),
        **extra,
    }
    if metrics is not None:
        raw["metrics"] = metrics
    return parse_spec(raw, tmp_path / "spec.yaml"), X, y


# -- the alignment metric ---------------------------------------------------------------


def centered_alignment_by_hand(K, y_pm):
    """<HKH, HTH>_F / (||HKH|| ||HTH||), H = I - 11^T/u, T = y y^T: written out."""
    u = K.shape[0]
    H = np.eye(u) - np.ones((u, u)) / u
    Kc, Tc = H @ K @ H, H @ np.outer(y_pm, y_pm) @ H
    return np.sum(Kc * Tc) / np.sqrt(np.sum(Kc * Kc) * np.sum(Tc * Tc))


def test_unlabeled_alignment_on_a_tiny_case():
    y = np.array([0, 1, 1, 0, 1, 0])
    unl = np.array([False, True, True, True, True, False])
    rng = np.random.default_rng(3)
    F = rng.normal(size=(6, 2))
    K = F @ F.T
    got = unlabeled_alignment(K, unl, y, 2)
    idx = np.flatnonzero(unl)
    want = centered_alignment_by_hand(K[np.ix_(idx, idx)], 2.0 * y[idx] - 1)
    assert got == pytest.approx(want, abs=1e-12)
    # the ideal kernel of the unlabeled labels is perfectly aligned with itself
    yy = np.outer(2.0 * y - 1, 2.0 * y - 1)
    assert unlabeled_alignment(yy, unl, y, 2) == pytest.approx(1.0)


def test_recorded_alignment_and_error_equal_an_independent_computation(tmp_path):
    spec, X, y = spec_of(
        tmp_path,
        [{"name": "label-aware", "params": {"b_scale": 1.0}}],
        metrics=["error", "alignment"],
    )
    rec = run_spec(spec, progress=False)
    for i in range(2):
        lab = random_split(y, 10, 1, i)
        yp = np.full(y.size, -1)
        yp[lab] = y[lab]
        est = LabelAwareKernel(b_scale=1.0, random_state=0).fit(X, yp)
        unl = yp == -1
        idx = np.flatnonzero(unl)
        K = est.kernel_[np.ix_(idx, idx)]
        got = rec[rec["split"] == i].set_index("metric")["value"]
        assert got["alignment"] == pytest.approx(
            centered_alignment_by_hand(K, 2.0 * y[idx] - 1), abs=1e-10
        )
        acc = 100 * np.mean(est.transduction_[unl] == y[unl])
        assert got["accuracy"] == pytest.approx(acc)
        assert got["error"] == pytest.approx(100 - acc)


def test_metrics_are_opt_in_and_only_for_kernel_learners(tmp_path):
    methods = ["harmonic", {"name": "label-aware", "params": {"b_scale": 1.0}}]
    plain_spec, _, _ = spec_of(tmp_path, methods)
    rec = run_spec(plain_spec, progress=False)
    assert set(rec["metric"]) == {"accuracy"}  # no metrics: as before
    assert plain_spec.metrics == []
    (tmp_path / "b").mkdir()
    spec, _, _ = spec_of(tmp_path / "b", methods, metrics=["alignment"])
    rec = run_spec(spec, progress=False)
    got = rec.groupby("method")["metric"].apply(set).to_dict()
    assert got == {"harmonic": {"accuracy"}, "label-aware": {"accuracy", "alignment"}}
    # the record keys of a spec without metrics are the old ones; with metrics they differ
    m = plain_spec.methods[1]
    assert method_key(plain_spec, m) != method_key(spec, spec.methods[1])


def test_heart_keys_unchanged():
    """configs/liu2009/heart.yaml's method keys, computed before these features existed.

    The values are those of the same spec JSON since the keys are blake2b
    (:func:`sskernels.hashing.json_digest`); with sha1 they were 70dd227309a71db6 and
    ee87e54477d97919."""
    spec = load_spec(ROOT / "configs/liu2009/heart.yaml")
    keys = {m.label: method_key(spec, m) for m in spec.methods}
    assert keys["TSK"] == "21e38d3e12999f52"
    assert keys["TSK+SVM"] == "14a9817c46f74f78"


# -- the oracle -------------------------------------------------------------------------


class Stub(ClassifierMixin, BaseEstimator):
    """Predicts class 1 for the first ``p`` points, 0 for the rest."""

    def __init__(self, p=0):
        self.p = p

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.transduction_ = (np.arange(len(y)) < self.p).astype(int)
        return self


def test_oracle_keeps_the_candidate_with_the_best_test_accuracy_first_on_ties():
    y = np.array([1, 1, 1, 0, 0, 0, 1, 0])
    yp = np.full(y.size, -1)
    yp[[0, 3]] = y[[0, 3]]
    unl = yp == -1
    grid = [0, 5, 3, 7, 4, 8]
    est, info = oracle_fit(SelectOnLabeled(Stub(), {"p": grid}, random_state=0), None, yp, y)
    acc = [100 * np.mean((np.arange(8) < p).astype(int)[unl] == y[unl]) for p in grid]
    np.testing.assert_allclose(info["accuracy"], acc)
    assert info["best_index"] == int(np.argmax(acc))  # argmax: the first of the maxima
    assert acc.count(max(acc)) > 1  # p = 3 and p = 4 tie: 3 comes first
    assert est.p == 3 and info["params"][info["best_index"]] == {"p": 3}


def test_oracle_flattens_nested_grids():
    from sskernels.learners.registry import make_method

    est = make_method(
        "kernel-svm",
        kernel="label-aware",
        kernel_params={"b_scale": [1.0, 5.0]},
        C_grid=[1.0, 10.0],
    )
    base, grid = flatten(est)
    assert list(grid) == ["kernel_learner__b_scale", "C"]  # nested grid varies slowest
    assert isinstance(base.kernel_learner, LabelAwareKernel)
    assert not isinstance(base, SelectOnLabeled)
    assert isinstance(est, SelectOnLabeled)  # the spec's estimator is intact


def test_oracle_row_in_a_run_is_the_max_over_the_grid(tmp_path):
    grid = [0.2, 1.0, 5.0]
    methods = [
        {"name": "label-aware", "params": {"b_scale": grid}},
        {"name": "label-aware", "select": "oracle", "params": {"b_scale": grid}},
    ]
    spec, X, y = spec_of(tmp_path, methods)
    assert [m.label for m in spec.methods] == ["label-aware", "label-aware (oracle)"]
    rec = run_spec(spec, progress=False)
    for i in range(2):
        lab = random_split(y, 10, 1, i)
        yp = np.full(y.size, -1)
        yp[lab] = y[lab]
        unl = yp == -1
        accs = [
            100
            * np.mean(
                LabelAwareKernel(b_scale=b, random_state=0).fit(X, yp).transduction_[unl] == y[unl]
            )
            for b in sorted(grid, key=lambda v: (abs(np.log(v)), -v))
        ]
        got = rec[(rec["split"] == i) & (rec["method"] == "label-aware (oracle)")]
        assert got["value"].iloc[0] == pytest.approx(max(accs))
    import json

    path = next((Path(spec.output) / "records").glob("label-aware_oracle_/*/split_000.json"))
    r = json.loads(path.read_text())
    assert r["selection"] == "oracle" and r["selected"]["b_scale"] in grid
    assert r["metrics"]["accuracy"] == pytest.approx(max(r["oracle"]["accuracy"]))


# -- spec errors: one line naming the file and the field -----------------------------------


@pytest.mark.parametrize(
    "change, field",
    [
        ({"metrics": ["bogus"]}, "metrics[0]"),
        ({"metrics": 3}, "metrics"),
        ({"methods": [{"name": "label-aware", "select": "best"}]}, "methods[0].select"),
        (
            {"methods": [{"name": "label-aware", "select": "oracle", "label": "mine"}]},
            "methods[0].label",
        ),
        ({"methods": [{"name": "harmonic", "select": "oracle"}]}, "methods[0].select"),
    ],
)
def test_spec_errors_are_one_line(change, field):
    raw = {"dataset": "sklearn-wine", "methods": ["harmonic"], **change}
    with pytest.raises(SpecError) as exc:
        parse_spec(raw, "s.yaml")
    msg = str(exc.value)
    assert "\n" not in msg and f"field '{field}'" in msg and msg.startswith("s.yaml")


# -- paper tables with a metric column ----------------------------------------------------


def test_paper_values_error_alignment_and_the_accuracy_complement():
    t = "wang2015_table2_single_kernel"
    assert _paper_value(t, "BCI", "alignf_label_aware", None, "error") == (32.99, 3.10)
    assert _paper_value(t, "BCI", "alignf_label_aware", None, "alignment") == (0.14, 0.04)
    mean, std = _paper_value(t, "BCI", "alignf_label_aware", None, "accuracy")
    assert mean == pytest.approx(100 - 32.99) and std == 3.10
    # a table of accuracies (no metric column): as before, error by complement, no alignment
    liu = "liu2009_table3_uci_transductive_accuracy"
    assert _paper_value(liu, "heart", "TSK", None, "accuracy") == (64.06, 4.42)
    assert _paper_value(liu, "heart", "TSK", None) == (64.06, 4.42)
    assert _paper_value(liu, "heart", "TSK", None, "error")[0] == pytest.approx(100 - 64.06)
    assert np.isnan(_paper_value(liu, "heart", "TSK", None, "alignment")[0])


def test_wang_specs_load_and_summarize_alignment_beside_the_paper(tmp_path):
    import pandas as pd

    spec = load_spec(ROOT / "configs/wang2015/t2_bci.yaml")
    assert spec.metrics == ["error", "alignment"] and spec.splits.n_splits == 30
    assert spec.splits.per_class == [[50, 50]]
    oracle = [m for m in spec.methods if m.select == "oracle"]
    assert len(oracle) == 4 and all("oracle" in m.label for m in oracle)
    # Sec. 4.3.2's rows (p Laplacian eigenvectors, p over the stated grid) are the paper's
    paper = [m for m in spec.methods if m.protocol == "paper"]
    assert [m.paper for m in paper] == ["alignf_baseline", "alignf_label_aware"]
    for m in paper:
        kp = m.params["kernel_params"]
        assert kp["basis"] == "normalized-laplacian"
        assert kp["n_components"] == [0.01, 0.05, 0.1, 0.15, 0.2]
        assert kp["n_landmarks"] >= max(kp["n_components"])
    rec = pd.DataFrame(
        [
            {
                "table": "wang2015-t2",
                "dataset": "BCI",
                "setting": "50/50 labeled",
                "method": "alignf label-aware",
                "paper": "alignf_label_aware",
                "split": s,
                "seconds": 1.0,
                "n_labeled": 100,
                "metric": "alignment",
                "value": v,
                "order": 0,
                "report": None,
            }
            for s, v in enumerate([0.1, 0.2])
        ]
    )
    spec.paper.time_table = None
    row = summarize(rec, spec).iloc[0]
    assert (row["mean"], row["paper_mean"], row["delta"]) == (0.15, 0.14, 0.01)
    md = to_markdown(summarize(rec, spec), header="")
    assert "centered alignment (in [0, 1])" in md and "0.150 ± 0.071, se 0.050 (0.140 ± 0.040" in md


@pytest.mark.parametrize("c", [2, 3])
@pytest.mark.parametrize("m", [4, 40])  # m <= u and m > u (the two norm formulas)
def test_factored_alignment_equals_the_dense_definition(c, m):
    from sskernels.kernels.alignment import factored_centered_alignment

    rng = np.random.default_rng(c * 100 + m)
    u = 25
    P = rng.normal(size=(u, m)) + rng.normal(size=m)  # uncentered columns
    mu = np.abs(rng.normal(size=m))
    mu[::3] = 0.0  # zeros are skipped
    y = rng.integers(0, c, size=u)
    K = (P * mu) @ P.T
    want = unlabeled_alignment(K, np.ones(u, dtype=bool), y, c)
    got = factored_centered_alignment(P, mu, y, c)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-14)
    # a kernel of the labels themselves: aligned 1; one class only: 0, as the dense form
    Yc = (y[:, None] == np.arange(c)).astype(float)
    assert factored_centered_alignment(Yc, np.ones(c), y, c) == pytest.approx(
        unlabeled_alignment(Yc @ Yc.T, np.ones(u, dtype=bool), y, c), rel=1e-12
    )
    assert factored_centered_alignment(P, mu, np.zeros(u, dtype=int), 1) == 0.0


def test_alignment_metric_of_an_embedding_kernel_svm_uses_the_factors_and_matches(monkeypatch):
    """extra_metrics on a kernel SVM over label-aware kernels (the Wang tables' rows, plain and
    inside the selection wrapper): the factored value, equal to the dense n x n computation."""
    from sskernels.experiment import tasks
    from sskernels.learners.kernel_machines import KernelSVM

    X, y = two_blobs(80, seed=4)
    labeled = random_split(y, 12, seed=2, index=0)
    y_part = np.full(y.size, -1)
    y_part[labeled] = y[labeled]
    unl = y_part == -1
    for est in (
        KernelSVM(kernel_learner=LabelAwareKernel(n_components=6, n_landmarks=20, random_state=0)),
        SelectOnLabeled(
            KernelSVM(
                kernel_learner=LabelAwareKernel(n_components=6, n_landmarks=20, random_state=0)
            ),
            param_grid={"C": [1.0, 10.0]},
            random_state=0,
        ),
    ):
        est.fit(X, y_part)
        assert tasks.kernel_factors(est) is not None
        got = tasks.extra_metrics(("alignment",), est, {}, unl, y, 2)["alignment"]
        want = unlabeled_alignment(est.kernel_, unl, y, 2)
        assert got == pytest.approx(want, rel=1e-10)
        assert 0.0 <= got <= 1.0
    # a kernel with no factors goes the dense way
    monkeypatch.setattr(tasks, "kernel_factors", lambda est: None)
    assert tasks.extra_metrics(("alignment",), est, {}, unl, y, 2)["alignment"] == want


def test_a_fresh_run_and_a_resumed_one_write_the_same_summary(tmp_path):
    """A fresh record used to keep its insertion order (metrics error then alignment, the
    selection C then the kernel's) while a resumed run reads sorted keys from disk: the same
    table came out with its rows and its 'selected' text in another order."""
    from sskernels.experiment.tables import summarize

    spec, _, _ = spec_of(
        tmp_path,
        [
            {
                "name": "kernel-svm",
                "params": {
                    "kernel": "label-aware",
                    "kernel_params": {"n_components": 5, "n_landmarks": 20},
                    "C_grid": [1.0, 10.0],
                },
            }
        ],
        metrics=["error", "alignment"],
    )
    fresh = summarize(run_spec(spec, progress=False), spec)
    resumed = summarize(run_spec(spec, progress=False), spec)
    assert fresh.to_csv(index=False) == resumed.to_csv(index=False)
    assert list(fresh["metric"]) == list(resumed["metric"])
