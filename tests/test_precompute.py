"""The label-independent work is one public step, done once per data set.

After ``precompute`` (the runner's warm-up), fitting a method on a split computes no
graph, spectrum or deformation basis: the seconds of a split do not depend on which
worker ran it, nor on ``--jobs``.
"""

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.preprocessing import minmax_scale

from sskernels.kernels import deformed, spectra
from sskernels.learners.registry import make_method
from sskernels.memo import shared_items

GRAPH = dict(n_neighbors=6, weights="hein-maier", sigma=None, metric="euclidean")


@pytest.fixture
def wine_split():
    X = minmax_scale(load_wine().data)
    y = load_wine().target
    yp = np.full(y.size, -1)
    lab = np.random.default_rng(0).choice(y.size, 20, replace=False)
    yp[lab] = y[lab]
    return X, yp


def _forbid(monkeypatch, module, name):
    def boom(*a, **k):
        raise AssertionError(f"{module.__name__}.{name} called after precompute")

    monkeypatch.setattr(module, name, boom)


def test_lapsvm_bases_for_every_width_are_precomputed(wine_split, monkeypatch):
    X, yp = wine_split
    deformed.clear_cache()
    est = make_method("lapsvm", **GRAPH)  # selects width scale, gamma_A, gamma_I
    est.precompute(X)
    assert (
        len(shared_items()['sskernels.kernels.deformed']) == 5
    )  # one basis per width factor of the grid
    _forbid(monkeypatch, deformed, "deformation_basis")
    est.fit(X, yp)  # the fold fits only read the bases
    assert est.best_params_["kernel_width_scale"] in (0.25, 0.5, 1.0, 2.0, 4.0)


def test_dsk_spectra_for_every_width_are_precomputed(wine_split, monkeypatch):
    X, yp = wine_split
    spectra.clear_rbf_cache()
    est = make_method("dsk", n_components=10, eta=2)
    est.precompute(X)
    assert len(shared_items()['sskernels.kernels.spectra']) == 5
    misses = spectra.rbf_cache_info()["misses"]
    est.fit(X, yp)
    assert spectra.rbf_cache_info()["misses"] == misses


def test_tsk_spectrum_is_precomputed(wine_split, monkeypatch):
    from sskernels.graph import laplacian
    import sskernels.graph.graphs as graph_module

    X, yp = wine_split
    est = make_method("tsk", n_components=10, **GRAPH)
    est.precompute(X)
    _forbid(monkeypatch, graph_module, "laplacian_spectrum")
    _forbid(monkeypatch, laplacian, "laplacian_spectrum")
    _forbid(monkeypatch, graph_module, "knn_graph")
    est.fit(X, yp)
