"""The pieces of alignf's solver (sskernels.solvers.cone) against independent computations:
the Gram-form NNLS against scipy's Lawson-Hanson on the least-squares form, the pivoted
Cholesky split against an eigendecomposition."""

import numpy as np
import pytest
from scipy.optimize import nnls

from sskernels.solvers.cone import gram_nnls, psd_split


def _problem(seed, n_rows, m, duplicates=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n_rows, m))
    A[:, :duplicates] = A[:, m - duplicates :]  # exact duplicates: G singular
    b = rng.normal(size=n_rows)
    return A, b


def _objective(G, a, x):
    return 0.5 * x @ G @ x - a @ x


@pytest.mark.parametrize(
    "seed,n_rows,m,dup",
    [(0, 60, 20, 0), (1, 20, 60, 0), (2, 50, 40, 5), (3, 200, 150, 0), (4, 30, 30, 10)],
)
def test_gram_nnls_reaches_lawson_hansons_optimum(seed, n_rows, m, dup):
    """Same problem, two forms: scipy's NNLS on ||A x - b|| and ours on G = A^T A,
    a = A^T b.  The optimum is unique in A x (strictly convex there): equal objective and
    fitted values; x itself is unique when A has full column rank."""
    A, b = _problem(seed, n_rows, m, dup)
    G, a = A.T @ A, A.T @ b
    ref, _ = nnls(A, b)
    x = gram_nnls(G, a, 1e-12 * np.linalg.eigvalsh(G).max())
    assert x.min() >= 0
    assert _objective(G, a, x) == pytest.approx(_objective(G, a, ref), rel=1e-10, abs=1e-12)
    np.testing.assert_allclose(A @ x, A @ ref, rtol=1e-8, atol=1e-10)
    if n_rows >= m and dup == 0:
        np.testing.assert_allclose(x, ref, rtol=1e-8, atol=1e-10)
    # KKT: the gradient vanishes on the support and points outward elsewhere
    w = a - G @ x
    scale = np.abs(a).max()
    assert np.abs(w[x > 0]).max(initial=0) <= 1e-9 * scale
    assert w[x == 0].max(initial=-1) <= 1e-9 * scale


def test_gram_nnls_bars_dependent_columns_and_stops_at_its_limit():
    A, b = _problem(7, 40, 12, duplicates=3)
    G, a = A.T @ A, A.T @ b
    x = gram_nnls(G, a, 1e-12 * np.linalg.eigvalsh(G).max())
    # of two equal columns at most one is admitted (their Schur complement is 0)
    assert np.all((x[:3] == 0) | (x[-3:] == 0))
    with pytest.raises(RuntimeError, match="iteration limit"):
        gram_nnls(G, a, 0.0, maxiter=1)


@pytest.mark.parametrize("seed,m,rank", [(0, 30, 30), (1, 40, 12), (2, 80, 79), (3, 5, 1)])
def test_psd_split_against_an_eigendecomposition(seed, m, rank):
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(rank, m)) * np.logspace(0, -3, rank)[:, None]
    G = F.T @ F
    s = psd_split(G)
    lam, Q = np.linalg.eigh(G)
    assert s.rank == rank == int(np.sum(lam > 1e-12 * lam.max()))
    assert s.lam_max == pytest.approx(lam.max(), rel=1e-6)
    np.testing.assert_allclose(s.R.T @ s.R, G, atol=1e-10 * lam.max())
    # Qn: an orthonormal basis of the null space (the eigenvectors of the zero eigenvalues)
    assert s.Qn.shape == (m, m - rank)
    np.testing.assert_allclose(s.Qn.T @ s.Qn, np.eye(m - rank), atol=1e-10)
    np.testing.assert_allclose(G @ s.Qn, 0.0, atol=1e-9 * lam.max())
    Z = Q[:, : m - rank]
    np.testing.assert_allclose(s.Qn @ s.Qn.T, Z @ Z.T, atol=1e-8)
    # the projector and its columns; rhs solves R^T r = a for a in the range
    x = rng.normal(size=m)
    np.testing.assert_allclose(s.project(x), x - Z @ (Z.T @ x), atol=1e-8)
    S = rng.random(m) < 0.3
    np.testing.assert_allclose(s.columns(S) @ x[S], s.project(np.where(S, x, 0.0)), atol=1e-12)
    a = G @ x
    np.testing.assert_allclose(s.R.T @ s.rhs(a), a, atol=1e-8 * np.abs(a).max())


@pytest.mark.parametrize("seed", range(6))
def test_alignf_reaches_the_optimum_with_near_duplicate_and_vanishing_base_vectors(seed):
    """Near-duplicate columns (differences of 1e-7) and columns ~1e-5 on the labeled points make
    G numerically singular with a continuous tail of eigenvalues, as on Wang et al.'s Text.
    NNLS on an eigenvalue-truncated factor of G ignored the dropped eigenvalues' quadratic term
    and returned weights of up to 1e7 whose alignment, once normalized with the exact G, fell
    short of the optimum by up to 2.4 % (seeds 0-3 here; on Text up to 5 %).  alignf must reach
    the value of an independent solver: HiGHS's QP on Cortes et al.'s form."""
    from sskernels.kernels.alignment import alignment_terms
    from sskernels.solvers.cone import alignf
    from sskernels.solvers.highs import solve_qp

    rng = np.random.default_rng(seed)
    l, m = 20, 60
    U = rng.normal(size=(l, m))
    U[:, 10:20] = U[:, 20:30] + 1e-7 * rng.normal(size=(l, 10))
    U[:, :5] *= 1e-5
    U -= U.mean(axis=0)
    G, a = alignment_terms(U, np.eye(2)[np.arange(l) % 2])
    sol, _ = alignf(G, a)
    v, _ = solve_qp(G / G.diagonal().max(), -a / np.abs(a).max())
    v = np.maximum(v, 0.0)
    ref = float(a @ v) / np.sqrt(float(v @ G @ v))
    assert sol.mu.min() >= 0 and sol.mu @ G @ sol.mu == pytest.approx(1.0, rel=1e-8)
    assert sol.value == pytest.approx(ref, rel=1e-7)
    assert np.linalg.norm(sol.mu) < 10 * np.linalg.norm(v / np.sqrt(v @ G @ v))
