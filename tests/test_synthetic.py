"""Synthetic toy data (sskernels.data.synthetic) and the Sindhwani et al. figure script."""

import importlib.util
import inspect
from pathlib import Path

import numpy as np
import pytest

from sskernels.data.synthetic import (
    SYNTHETIC,
    blob_centers,
    curve,
    gaussian_blobs,
    load_synthetic,
    two_circles,
    two_moons,
)

SHAPES = {
    "two-moons": (200, 2),
    "two-circles": (200, 2),
    "gaussian-blobs": (300, 3),
    "curve": (200, 2),
    "two-spirals": (194, 2),
}


def _script():
    path = Path(__file__).resolve().parents[1] / "scripts" / "sindhwani_figures.py"
    spec = importlib.util.spec_from_file_location("sindhwani_figures", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", sorted(SYNTHETIC))
def test_shape_classes_and_reproducible(name):
    X, y = load_synthetic(name)
    n, k = SHAPES[name]
    assert X.shape == (n, 2) and X.dtype == np.float64
    assert y.shape == (n,) and y.dtype == np.int64
    assert set(np.unique(y)) == set(range(k))
    X2, y2 = load_synthetic(name)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    if "seed" in inspect.signature(SYNTHETIC[name]).parameters:  # two-spirals has no randomness
        X3, _ = SYNTHETIC[name](seed=1)
        assert not np.allclose(X, X3)


def test_generator_arguments():
    X, y = two_moons(n=50, noise=0.0)
    assert X.shape == (50, 2) and np.bincount(y).tolist() == [25, 25]
    X, y = two_circles(n=100, noise=0.0, factor=0.3)
    r = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(r[y == 0], 1.0)
    np.testing.assert_allclose(r[y == 1], 0.3)
    X, y = gaussian_blobs(n=400, centers=4, std=0.5, seed=3)
    assert np.bincount(y).tolist() == [100] * 4
    C = blob_centers(4)
    for c in range(4):
        np.testing.assert_allclose(X[y == c].mean(axis=0), C[c], atol=0.2)
    X, y = curve(n=80, seed=2)
    assert X.shape == (80, 2) and set(np.unique(y)) == {0, 1}


def test_blobs_well_separated():
    X, y = gaussian_blobs()
    C = blob_centers(3)
    nearest = np.argmin(((X[:, None, :] - C[None]) ** 2).sum(-1), axis=1)
    assert np.all(nearest == y)


def test_unknown_name():
    with pytest.raises(KeyError, match="two-moons"):
        load_synthetic("three-moons")


def test_lapsvm_moons_one_label_per_class():
    mod = _script()
    res = mod.lapsvm_moons_experiment(grid_steps=None)
    assert res["labeled"].size == 2 and set(res["y"][res["labeled"]]) == {0, 1}
    runs = res["runs"]
    assert [r["gamma_I"] for r in runs] == sorted(r["gamma_I"] for r in runs)
    assert runs[-1]["accuracy"] >= 0.95
    assert runs[0]["accuracy"] < runs[-1]["accuracy"]  # gamma_I = 0: supervised SVM


def test_regularized_clustering_moons_ari():
    mod = _script()
    res = mod.clustering_moons_experiment(gamma_As=(1e-6,), grid_steps=None)
    assert res["runs"][0]["ari"] >= 0.95


def test_deformed_kernel_circles():
    mod = _script()
    res = mod.deformed_kernel_experiment(grid_steps=20)
    assert res["acc_deformed"] >= 0.95 and res["acc_lapsvm"] >= 0.95
    assert res["acc_base"] < 0.8
    assert res["laprls_gap"] < 1e-6  # eq. (11.16): RLS with K~ is LapRLS
    assert res["Kt_grid"].shape == (400, 2) and res["F_deformed"].shape == (20, 20)


def test_atomic_save(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mod = _script()
    fig = plt.figure()
    target = tmp_path / "sub" / "x.png"
    mod._save(fig, target)
    plt.close(fig)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in target.parent.iterdir()] == ["x.png"]
