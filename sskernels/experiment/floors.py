"""What the machine at hand can do at a data set's size: the floors ``sskernels bench`` divides by.

``sskernels bench`` measures every stage of a table against the cost of the elementary
operation it cannot beat, taken in the same run (machines are noisy: ratios, not seconds):

``solve``
    one dense ``n x n`` linear solve (``numpy.linalg.solve``, LU, one right-hand side) of a
    symmetric positive definite matrix: what a graph learner's closed form (harmonic function,
    LapRLS) costs when done densely.  Per-split learners are quoted in these units.
``knn``
    one brute-force k-nearest-neighbour pass over the data (scikit-learn
    ``NearestNeighbors(algorithm="brute")``, ``k + 1`` neighbours of every point).
``eigh``
    the full symmetric eigendecomposition of an ``n x n`` matrix (``scipy.linalg.eigh``,
    ``driver="evd"``), the dense spectrum; above :data:`DENSE_MAX_N` points it is not
    measured (None), nor is the dense solve.

Each is the minimum of ``repeats`` timings (``time.perf_counter``) with one BLAS/OpenMP
thread, as ``sskernels run`` computes.  The matrices are seeded random ones of the data
set's size (the cost of these operations does not depend on the values).
"""

from __future__ import annotations

import time

import numpy as np

#: above this many points the dense floors (solve, eigh) are not measured
DENSE_MAX_N = 5000


def _best(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def floors(X, k=6, repeats=3):
    """The floors of the data's size, in seconds: ``{"n", "solve", "knn", "eigh"}``.

    The floors are measured for the points ``X`` (dense or sparse) and a k-NN graph of
    ``k`` neighbours; ``solve`` and ``eigh`` are None above :data:`DENSE_MAX_N` points.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points.
    k : int, default=6
        The graph's neighbours (the search asks for ``k + 1``, at most ``n_samples``).
    repeats : int, default=3
        Timings per floor (the minimum is kept).

    Returns
    -------
    dict
        ``n`` (int, the number of points) and the floors ``solve``, ``knn``, ``eigh``
        (float seconds, or None when not measured).
    """
    import scipy.linalg
    from sklearn.neighbors import NearestNeighbors
    from threadpoolctl import threadpool_limits

    n = X.shape[0]
    out = {"n": int(n), "solve": None, "knn": None, "eigh": None}
    with threadpool_limits(1):
        nn = NearestNeighbors(n_neighbors=min(int(k) + 1, n), algorithm="brute").fit(X)
        out["knn"] = _best(lambda: nn.kneighbors(X), repeats)
        if n <= DENSE_MAX_N:
            rng = np.random.default_rng(0)
            G = rng.standard_normal((n, n))
            A = G @ G.T / n + np.eye(n)
            b = rng.standard_normal(n)
            out["solve"] = _best(lambda: np.linalg.solve(A, b), repeats)
            out["eigh"] = _best(lambda: scipy.linalg.eigh(A, driver="evd"), repeats)
    return out


def ratio(seconds, floor):
    """``seconds / floor``, None when the floor was not measured or is 0.

    Parameters
    ----------
    seconds : float or None
        A measured time (None: not measured, the ratio is None).
    floor : float or None
        A floor of :func:`floors`.

    Returns
    -------
    float or None
        The ratio.
    """
    if floor is None or not floor > 0 or seconds is None:
        return None
    return float(seconds) / float(floor)
