"""Shared test fixtures."""

from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_moons
from threadpoolctl import threadpool_limits

from sskernels.graph import clear_cache

SHARED_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


@pytest.fixture
def data_mirror(monkeypatch, tmp_path):
    """Read data from the shared mirror with a throw-away cache; skip when there is no mirror."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"no data mirror at {SHARED_DATASETS}")
    monkeypatch.setenv("SSKERNELS_DATA_MIRROR", str(SHARED_DATASETS))
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    return SHARED_DATASETS


@pytest.fixture(autouse=True)
def _one_blas_thread_and_fresh_graphs():
    """Every test: one BLAS thread (2-core machines, reproducible timings) and an empty
    graph cache, so no test sees another's memoized graphs."""
    clear_cache()
    with threadpool_limits(limits=1):
        yield
    clear_cache()


@pytest.fixture(scope="session")
def moons_small():
    """80 noisy two-moons points, 6 labels per class, and 25 unseen points:
    ``(X, y, y_partial, labeled, X_new)``."""
    X, y = make_moons(80, noise=0.12, random_state=3)
    Xnew, _ = make_moons(25, noise=0.12, random_state=4)
    rng = np.random.default_rng(0)
    labeled = np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), 6, replace=False)
                                      for c in (0, 1)]))
    yp = np.full(y.size, -1)
    yp[labeled] = y[labeled]
    return X, y, yp, labeled, Xnew
