"""The runner: several labeled-set sizes, a held-out inductive part, kernel machines."""

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import minmax_scale
from sklearn.svm import SVC

from sskernels.experiment.runner import run_spec
from sskernels.experiment.splits import random_split
from sskernels.experiment.tables import summarize
from sskernels.learners import HarmonicFunction, TransductiveSpectralKernel
from sskernels.learners.kernel_machines import KernelSVM
from sskernels.spec import parse_spec


def wine():
    X, y = load_wine(return_X_y=True)
    return minmax_scale(X), y


def test_settings_and_holdout_match_a_direct_computation(tmp_path):
    raw = {
        "dataset": "sklearn-wine",
        "preprocess": "minmax",
        "graph": {"k": 6},
        "splits": {"n_splits": 2, "n_labeled": [10, 30], "seed": 3, "holdout": 0.2},
        "methods": ["harmonic"],
        "output": str(tmp_path / "out"),
    }
    spec = parse_spec(raw, tmp_path / "spec.yaml")
    rec = run_spec(spec, progress=False)
    summary = summarize(rec, spec)
    assert list(summary["setting"].unique()) == ["10 labeled", "30 labeled"]
    assert set(summary["metric"]) == {"accuracy", "inductive accuracy"}
    # independent: the same stratified holdout, split and harmonic fit by hand
    X, y = wine()
    seen, unseen = train_test_split(np.arange(y.size), test_size=0.2, random_state=3, stratify=y)
    seen, unseen = np.sort(seen), np.sort(unseen)
    for n_lab in (10, 30):
        ind = []
        for i in range(2):
            lab = random_split(y[seen], n_lab, 3, i)
            yp = np.full(seen.size, -1)
            yp[lab] = y[seen][lab]
            est = HarmonicFunction().fit(X[seen], yp)
            ind.append(100 * np.mean(est.predict(X[unseen]) == y[unseen]))
        got = rec[(rec["setting"] == f"{n_lab} labeled") & (rec["metric"] == "inductive accuracy")]
        np.testing.assert_allclose(got["value"].to_numpy(), ind, atol=1e-9)


def test_kernel_svm_equals_svc_on_the_learned_kernel():
    X, y = wine()
    lab = random_split(y, 20, 0, 0)
    yp = np.full(y.size, -1)
    yp[lab] = y[lab]
    est = KernelSVM(TransductiveSpectralKernel(n_components=10, beta=10.0), C=10.0)
    est.fit(X, yp)
    K = TransductiveSpectralKernel(n_components=10, beta=10.0).fit(X, yp).kernel_
    K = K / np.mean(np.diag(K))
    svc = SVC(kernel="precomputed", C=10.0).fit(K[np.ix_(lab, lab)], y[lab])
    np.testing.assert_array_equal(est.transduction_, svc.predict(K[:, lab]))
    # unseen points go through the out-of-sample extension of the kernel learner
    Xn = X[:5] + 0.01
    Kx = est.learner_.kernel(Xn, None)[:, lab] / est.kernel_scale_
    np.testing.assert_array_equal(est.predict(Xn), svc.predict(Kx))


def test_kernel_svm_rejects_unknown_kernel_params():
    from sskernels.learners.registry import make_method

    with pytest.raises(ValueError, match="kernel_params.bogus is not a parameter of tsk"):
        make_method("kernel-svm", kernel="tsk", kernel_params={"bogus": 1})


def test_user_csv_file_in_a_spec(tmp_path):
    X, y = wine()
    lines = ["a,b,c,class"] + [f"{r[0]},{r[1]},{r[2]},{lab}" for r, lab in zip(X, y)]
    (tmp_path / "mine.csv").write_text("\n".join(lines) + "\n")
    raw = {
        "dataset": {"file": "mine.csv", "label": "class"},
        "graph": {"k": 6},
        "splits": {"n_splits": 1, "n_labeled": 20},
        "methods": ["harmonic"],
        "output": str(tmp_path / "out"),
    }
    spec = parse_spec(raw, tmp_path / "spec.yaml")  # the file is relative to the spec
    rec = run_spec(spec, progress=False)
    lab = random_split(y, 20, 0, 0)
    yp = np.full(y.size, -1)
    yp[lab] = y[lab]
    est = HarmonicFunction().fit(X[:, :3], yp)
    unl = yp == -1
    assert rec["value"].iloc[0] == pytest.approx(100 * np.mean(est.transduction_[unl] == y[unl]))


def test_error_curves_plot_one_minus_the_mean_accuracy(tmp_path):
    from sskernels.experiment.figures import error_curves, write_figure

    raw = {
        "dataset": "sklearn-wine",
        "preprocess": "minmax",
        "graph": {"k": 6},
        "splits": {"n_splits": 2, "n_labeled": [10, 20], "holdout": 0.2},
        "methods": ["harmonic", "1nn"],
        "output": str(tmp_path / "out"),
    }
    spec = parse_spec(raw, tmp_path / "spec.yaml")
    rec = run_spec(spec, progress=False)
    fig = error_curves(rec, ["accuracy", "inductive accuracy"])
    ax = fig.axes[0]
    line = ax.get_lines()[0]  # harmonic, transductive
    sub = rec[(rec["method"] == "harmonic") & (rec["metric"] == "accuracy")]
    want = [100 - sub[sub["n_labeled"] == n]["value"].mean() for n in (10, 20)]
    np.testing.assert_allclose(np.asarray(line.get_xdata(), dtype=float), [10, 20])
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float), want)
    write_figure(fig, tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_sibling_specs_record_with_the_same_key_is_reused_not_recomputed(tmp_path, monkeypatch):
    """Two specs running one method on the same data and splits (Wang et al.'s Table 3
    repeats Table 2's rows): the second copies the first's records, relabeled, and says
    so; other parameters, another folder or --no-reuse compute."""
    import json

    from sskernels.experiment import runner

    def spec(name, methods, folder="runs"):
        raw = {
            "name": name,
            "dataset": "sklearn-wine",
            "preprocess": "minmax",
            "graph": {"k": 6},
            "splits": {"n_splits": 2, "n_labeled": 20, "seed": 1},
            "methods": methods,
            "output": str(tmp_path / folder / name),
        }
        return parse_spec(raw, tmp_path / f"{name}.yaml")

    first = spec("t2", [{"name": "harmonic", "label": "harmonic (Table 2)"}])
    run_spec(first, progress=False)
    calls = []
    real = runner.run_record
    monkeypatch.setattr(runner, "run_record", lambda t, prep: calls.append(t) or real(t, prep))
    second = spec(
        "t3",
        [
            {"name": "harmonic", "label": "harmonic (as in Table 2)"},
            {"name": "consistency", "label": "consistency"},
        ],
    )
    df = run_spec(second, progress=False)
    assert [t[0] for t in calls] == [1, 1]  # only the new method ran
    for si in range(2):
        src = json.loads(
            (
                tmp_path / "runs/t2/records/harmonic_Table_2_/20_labeled" / f"split_{si:03d}.json"
            ).read_text()
        )
        got = json.loads(
            (
                tmp_path
                / "runs/t3/records/harmonic_as_in_Table_2_/20_labeled"
                / f"split_{si:03d}.json"
            ).read_text()
        )
        assert got["reused_from"] == {"spec": "t2", "method": "harmonic (Table 2)"}
        assert got["method"] == "harmonic (as in Table 2)" and got["spec"] == "t3"
        assert got["metrics"] == src["metrics"] and got["key"] == src["key"]
    acc = df[(df.method == "harmonic (as in Table 2)") & (df.metric == "accuracy")]
    assert acc["value"].size == 2
    calls.clear()  # --no-reuse: computed again
    third = spec("t4", [{"name": "harmonic", "label": "harmonic"}])
    run_spec(third, progress=False, reuse=False)
    assert len(calls) == 2
    calls.clear()  # other parameters: another key
    run_spec(
        spec("t5", [{"name": "harmonic", "params": {"class_mass_normalization": True}}]),
        progress=False,
    )
    assert len(calls) == 2
    calls.clear()  # not a sibling folder: computed
    run_spec(
        spec("t2", [{"name": "harmonic", "label": "harmonic (Table 2)"}], "elsewhere"),
        progress=False,
    )
    assert len(calls) == 2


def test_bench_computes_every_row_even_when_a_sibling_spec_holds_its_key(tmp_path, monkeypatch):
    """``sskernels bench`` times fresh runs: its specs share one temporary folder, so record
    reuse would copy the second spec's rows from the first and time nothing."""
    import yaml
    from typer.testing import CliRunner

    from sskernels.cli import app
    from sskernels.experiment import runner

    paths = []
    for name in ("b1", "b2"):
        raw = {
            "name": name,
            "dataset": "sklearn-wine",
            "preprocess": "minmax",
            "graph": {"k": 6},
            "splits": {"n_splits": 2, "n_labeled": 20, "seed": 1},
            "methods": [{"name": "harmonic"}],
        }
        paths.append(tmp_path / f"{name}.yaml")
        paths[-1].write_text(yaml.safe_dump(raw))
    calls = []
    real = runner.run_record
    monkeypatch.setattr(runner, "run_record", lambda t, prep: calls.append(t) or real(t, prep))
    res = CliRunner().invoke(app, ["bench", *map(str, paths)])
    assert res.exit_code == 0, res.output
    assert len(calls) == 4  # 2 specs x 2 splits, none reused


def test_the_graph_enters_a_record_key_only_for_methods_that_use_it(tmp_path):
    """Editing a spec's graph makes the records of graph methods stale and leaves those of
    methods that never see it (Wang et al.'s label-aware rows: Tables 1 and 2 share them)."""
    from sskernels.spec import graph_matters, method_key

    def spec(graph):
        raw = {
            "dataset": "sklearn-wine",
            "graph": graph,
            "splits": {"n_splits": 1, "n_labeled": 20},
            "methods": [
                "harmonic",
                "svm",
                {"name": "kernel-svm", "label": "la", "params": {"kernel": "label-aware"}},
                {"name": "kernel-svm", "label": "osk", "params": {"kernel": "osk"}},
            ],
            "output": str(tmp_path / "out"),
        }
        return parse_spec(raw, tmp_path / "spec.yaml")

    a, b = spec({"k": 6}), spec({"k": 10, "weights": "heat"})
    uses = [graph_matters(a, m) for m in a.methods]
    assert uses == [True, False, False, True]
    for m_a, m_b, used in zip(a.methods, b.methods, uses):
        assert (method_key(a, m_a) != method_key(b, m_b)) == used


def test_every_graph_field_reaches_a_method_only_with_k():
    """``graph_matters`` probes the spec's graph by changing k alone.  That is sound only if no
    method takes another graph field (weights, sigma, metric) without k; otherwise editing
    that field would leave the method's records current (stale numbers).  Checked for every
    registered method and every kernel of kernel-svm / self-consistent."""
    from sskernels.learners.registry import get_method, make_method, method_names

    base = {"n_neighbors": 6, "weights": "hein-maier", "sigma": None, "metric": "euclidean"}
    other = {"n_neighbors": 7, "weights": "heat", "sigma": 2.0, "metric": "cosine"}

    def params(name, extra, **graph):
        est = make_method(name, **{**base, **graph}, **extra)
        return repr(sorted((k, repr(v)) for k, v in est.get_params(deep=True).items()))

    cases = [(n, {}) for n in method_names()]
    cases += [
        (wrapper, {"kernel": k})
        for wrapper in ("kernel-svm", "self-consistent")
        for k in method_names()
    ]
    checked = 0
    for name, extra in cases:
        if not get_method(name).uses_graph:
            continue
        try:
            ref = params(name, extra)
        except (TypeError, ValueError):
            continue  # not a valid kernel for this wrapper
        by_k = params(name, extra, n_neighbors=other["n_neighbors"]) != ref
        for field_ in ("weights", "sigma", "metric"):
            moved = params(name, extra, **{field_: other[field_]}) != ref
            assert by_k or not moved, (name, extra, field_)
        checked += 1
    assert checked > 10
