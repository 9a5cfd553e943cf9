"""Every number of a spec is checked against its range, and against the data, before any
work.

Each reproduction below once ended in a traceback, in scikit-learn's words or in a message that
did not name the spec's field; each must now end with exit code 2 and exactly one line on
stderr naming the spec file and the field.  The CLI's ``main`` runs in this process
(``sys.argv`` patched, stderr captured) on the bundled ``sklearn-wine`` (no network); the
checks that need the data must refuse the spec before any graph is built
(``warm_graphs`` is made to fail if it is reached).
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sskernels import cli
from sskernels.errors import SpecError
from sskernels.experiment import runner
from sskernels.spec import SIGMA_MAX, SIGMA_MIN, parse_spec

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test (exit 1, not 2) if a graph or a fit is reached."""

    def reached(*a, **k):
        raise AssertionError("a graph was built before the spec was refused")

    monkeypatch.setattr(runner, "warm_graphs", reached)


def run_cli(tmp_path, monkeypatch, capsys, text, name="spec"):
    """``sskernels run SPEC`` in this process: ``(spec path, exit code, stderr)``."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(text + f"output: {tmp_path / 'out'}\n")
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "argv", ["sskernels", "run", str(path), "--no-progress"])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    return path, exc.value.code, capsys.readouterr().err


def assert_one_line(path, code, err, *needles):
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert code == 2, err
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ") and str(path.name) in lines[0], lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# -- 1. sigma: bounded and finite ---------------------------------------------------------


def test_a_huge_sigma_is_refused_before_the_graph_overflows(tmp_path, monkeypatch, capsys, no_work):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\ngraph: {weights: heat, sigma: 1.0e+300}\n"
        "splits: {n_splits: 1}\nmethods: [harmonic]\n",
    )
    line = assert_one_line(path, code, err, "field 'graph.sigma'", "1e+300")
    assert f"{SIGMA_MAX:g}" in line and f"{SIGMA_MIN:g}" in line


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "1.0e-300"])
def test_sigma_out_of_range_or_not_finite(tmp_path, monkeypatch, capsys, value):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        f"dataset: sklearn-wine\ngraph: {{weights: heat, sigma: {value}}}\nmethods: [harmonic]\n",
    )
    assert_one_line(path, code, err, "field 'graph.sigma'")


def test_a_number_yaml_reads_as_text_says_how_to_write_it(tmp_path, monkeypatch, capsys):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\ngraph: {weights: heat, sigma: 1e300}\nmethods: [harmonic]\n",
    )
    assert_one_line(path, code, err, "field 'graph.sigma'", "1.0e+300")


@pytest.mark.parametrize(
    "splits, fld",
    [
        ({"holdout": float("nan")}, "splits.holdout"),
        ({"holdout": float("inf")}, "splits.holdout"),
        ({"n_labeled": 10**9}, "splits.n_labeled"),
        ({"n_labeled": [10, float("nan")]}, "splits.n_labeled"),
        ({"protocol": "per-class", "per_class": [10**9, 5, 5]}, "splits.per_class[0][0]"),
        ({"seed": -1}, "splits.seed"),
        ({"n_splits": 10**6}, "splits.n_splits"),
    ],
)
def test_every_split_number_is_bounded(splits, fld):
    raw = {"dataset": "sklearn-wine", "splits": splits, "methods": ["harmonic"]}
    with pytest.raises(SpecError) as exc:
        parse_spec(raw, "x.yaml")
    assert exc.value.field == fld


@pytest.mark.parametrize(
    "params, fld",
    [
        ({"alpha": float("nan")}, "methods[0].params.alpha"),
        ({"alpha": [0.5, float("inf")]}, "methods[0].params.alpha[1]"),
        ({"sigma": 1e300}, "methods[0].params.sigma"),
        ({"n_neighbors": 10**9}, "methods[0].params.n_neighbors"),
    ],
)
def test_a_method_number_is_finite_and_its_graph_keys_bounded(params, fld):
    raw = {"dataset": "sklearn-wine", "methods": [{"name": "consistency", "params": params}]}
    with pytest.raises(SpecError) as exc:
        parse_spec(raw, "x.yaml")
    assert exc.value.field == fld


# -- 2. holdout against the data ----------------------------------------------------------


def test_a_holdout_that_leaves_no_training_point(tmp_path, monkeypatch, capsys, no_work):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\nsplits: {holdout: 0.999999, n_splits: 1}\nmethods: [harmonic]\n",
    )
    assert_one_line(path, code, err, "field 'splits.holdout'", "178", "sklearn-wine", "0.999999")


@pytest.mark.parametrize("splits", ["{holdout: 0.001}", "{holdout: 0.5, n_labeled: 100}"])
def test_a_holdout_the_data_cannot_give(tmp_path, monkeypatch, capsys, no_work, splits):
    # 0.001: one held-out point for 3 classes; 0.5: 89 training points for 100 labeled
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        f"dataset: sklearn-wine\nsplits: {splits}\nmethods: [harmonic]\n",
    )
    assert_one_line(path, code, err, "field 'splits.holdout'")


# -- 3. sizes against the data, before any graph or fit -----------------------------------


def test_graph_k_not_below_n_names_graph_k(tmp_path, monkeypatch, capsys, no_work):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\ngraph: {k: 500}\nsplits: {n_splits: 1}\nmethods: [harmonic]\n",
    )
    assert_one_line(path, code, err, "field 'graph.k'", "178 points of sklearn-wine", "500")


def test_graph_k_counts_the_training_points_after_the_holdout(
    tmp_path, monkeypatch, capsys, no_work
):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\ngraph: {k: 150}\n"
        "splits: {holdout: 0.2, n_splits: 1}\nmethods: [harmonic]\n",
    )
    assert_one_line(path, code, err, "field 'graph.k'", "142 training points", "150")


def test_a_method_own_n_neighbors_is_named(tmp_path, monkeypatch, capsys, no_work):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\nsplits: {n_splits: 1}\nmethods: [harmonic, "
        "{name: tsk, params: {n_neighbors: 300}}]\n",
    )
    assert_one_line(path, code, err, "field 'methods[1].params.n_neighbors'")


def test_n_labeled_not_below_n_names_n_labeled(tmp_path, monkeypatch, capsys, no_work):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\nsplits: {n_labeled: 178, n_splits: 1}\nmethods: [harmonic]\n",
    )
    assert_one_line(path, code, err, "field 'splits.n_labeled'", "178 points")


def test_per_class_counts_beyond_a_class_name_the_setting(tmp_path, monkeypatch, capsys, no_work):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\nsplits: {protocol: per-class, "
        "per_class: [[5, 5, 5], [40, 40, 40]], holdout: 0.2, "
        "n_splits: 1}\nmethods: [harmonic]\n",
    )
    assert_one_line(path, code, err, "field 'splits.per_class[1]'")


# -- 4. a method parameter's type or range names the parameter -----------------------------


def test_a_grid_value_out_of_range_names_the_parameter(tmp_path, monkeypatch, capsys):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\nsplits: {n_splits: 1}\n"
        "methods: [{name: consistency, params: {alpha: [1, 2]}}]\n",
    )
    assert_one_line(path, code, err, "field 'methods[0].params.alpha'")


def test_a_list_for_a_number_that_is_no_grid_names_the_parameter(tmp_path, monkeypatch, capsys):
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        "dataset: sklearn-wine\nmethods: [{name: tsk, params: {sigma: [1, 2]}}]\n",
    )
    line = assert_one_line(path, code, err, "field 'methods[0].params.sigma'")
    assert "float()" not in line


def test_a_nested_grid_value_names_its_path():
    raw = {
        "dataset": "sklearn-wine",
        "methods": [
            {"name": "kernel-svm", "params": {"kernel": "tsk", "kernel_params": {"beta": [1, -2]}}}
        ],
    }
    with pytest.raises(SpecError) as exc:
        parse_spec(raw, "x.yaml")
    assert exc.value.field == "methods[0].params.kernel_params.beta"


def test_valid_grids_still_load():
    raw = {
        "dataset": "sklearn-wine",
        "methods": [
            {"name": "consistency", "params": {"alpha": [0.5, 0.99]}},
            {"name": "tsk", "params": {"beta": "auto", "n_components": 5}},
        ],
    }
    assert len(parse_spec(raw, "x.yaml").methods) == 2


# -- 5. holdout with precomputed input ----------------------------------------------------


@pytest.fixture
def gram_csv(tmp_path):
    """wine's (178, 178) affinity matrix as a data file, its class in the last column."""
    from scipy.spatial.distance import cdist
    from sklearn.datasets import load_wine
    from sklearn.preprocessing import minmax_scale

    X, y = load_wine(return_X_y=True)
    X = minmax_scale(X)
    W = np.exp(-(cdist(X, X) ** 2))
    np.fill_diagonal(W, 0.0)
    path = tmp_path / "gram.csv"
    header = ",".join([f"c{i}" for i in range(len(W))] + ["class"])
    np.savetxt(path, np.column_stack([W, y]), delimiter=",", header=header, comments="")
    return path


@pytest.mark.parametrize(
    "params, fld",
    [
        ("{graph: precomputed}", "methods[0].params.graph"),
        ("{kernel: precomputed}", "methods[0].params.kernel"),
    ],
)
def test_holdout_with_precomputed_input_names_both_fields(
    tmp_path, monkeypatch, capsys, gram_csv, params, fld
):
    method = "harmonic" if "graph" in params else "self-consistent"
    path, code, err = run_cli(
        tmp_path,
        monkeypatch,
        capsys,
        f"dataset: {{file: {gram_csv.name}, label: class}}\n"
        "splits: {holdout: 0.2, n_splits: 1}\n"
        f"methods: [{{name: {method}, params: {params}}}]\n",
    )
    line = assert_one_line(path, code, err, "field 'splits.holdout'", fld, "do not combine")
    assert "shape" not in line and "square (n, n)" not in line


# -- one real process ---------------------------------------------------------------------


def test_the_installed_cli_says_it_in_one_line(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "dataset: sklearn-wine\nsplits: {holdout: 0.999999, n_splits: 1}\n"
        f"methods: [harmonic]\noutput: {tmp_path / 'out'}\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "sskernels", "run", str(spec), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "SSKERNELS_DATA_DIR": str(tmp_path / "cache")},
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr
    assert str(spec) in lines[0] and "field 'splits.holdout'" in lines[0]
