"""(Preconditioned) conjugate gradients for symmetric positive definite systems, and its fallback.

``cg_solve(matvec, B, rtol, maxiter, M=None)`` solves ``A X = B`` column by column with
scipy's :func:`scipy.sparse.linalg.cg`, ``A`` given only by ``v -> A v``
(``matvec``; the linear Laplacian RLS of Sindhwani et al., eq. (11.18), never
forms its ``d x d`` matrix) or as a sparse matrix / ``LinearOperator`` (the
propagation learners' ``L_UU`` and ``I - alpha S``).  ``M`` is an optional
preconditioner, an approximation of ``A^{-1}`` given as ``v -> M v``, a sparse
matrix or a ``LinearOperator`` (:func:`jacobi_preconditioner`,
:func:`amg_preconditioner`).  It returns ``(X, SolveInfo)``:

* ``"cg"`` — every column reached ``||b - A x|| <= rtol ||b||`` (scipy's
  stopping rule with ``atol = 0``), the documented rule;
* **fallback** (still ``solver="cg"``) — a column stopped at the iteration cap
  ``maxiter`` (``None``: scipy's ``10 * dim``) before reaching ``rtol``.  The
  last iterate is returned and the :class:`SolveInfo`'s ``fallback`` names the
  columns, the cap and their relative residuals, so the fit report carries it;
* an **error** (:class:`~sskernels.solvers.SolverError`) — scipy reports a
  breakdown or illegal input (``info < 0``).

``stats``: ``iterations`` (per column, counted by the callback),
``relative_residual`` (per column, ``||b - A x|| / ||b||`` recomputed after the
solve with one extra ``matvec``; 0 for a zero column), ``rtol``, ``maxiter``,
and ``preconditioner`` (its name, ``"none"`` without one).  The stopping rule is
on the true (unpreconditioned) residual whatever ``M`` is, so ``rtol`` means the
same with and without a preconditioner.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator, cg

from sskernels.solvers.highs import SolverError
from sskernels.solvers.report import SolveInfo

__all__ = ["cg_solve", "jacobi_preconditioner", "amg_preconditioner", "have_pyamg"]


def _operator(A, dim):
    """``A`` (a callable ``v -> A v``, a sparse or dense matrix, a LinearOperator) as a
    (dim, dim) LinearOperator, and its ``matvec``."""
    if callable(A) and not hasattr(A, "shape"):
        op = LinearOperator((dim, dim), matvec=A, dtype=float)
        return op, A
    op = aslinearoperator(A)
    if op.shape != (dim, dim):
        raise ValueError(f"operator of shape {op.shape} for a system of dimension {dim}")
    return op, op.matvec


def cg_solve(matvec, B, rtol=1e-10, maxiter=None, M=None, preconditioner=None, x0=None):
    """``(X, SolveInfo)`` with ``A X = B`` by conjugate gradients (module docstring).

    ``matvec(v)`` returns ``A v`` for a (dim,) vector, or ``matvec`` is ``A`` itself (a
    sparse matrix or LinearOperator); ``A`` must be symmetric positive definite.  ``B``
    is (dim,) or (dim, k); ``X`` has its shape.  ``M`` (optional) approximates ``A^{-1}``
    (symmetric positive definite; a callable ``v -> M v``, a matrix or a LinearOperator);
    ``preconditioner`` is its name for ``stats`` (default ``"none"`` / ``"custom"``).
    ``x0`` (optional, the shape of ``B``) is the starting point (default zero); a column
    that already satisfies the rule takes 0 iterations.

    Parameters
    ----------
    matvec : callable, sparse matrix or LinearOperator
        ``v -> A v`` for a (dim,) vector, or ``A`` itself; ``A`` symmetric positive
        definite.
    B : array-like of shape (dim,) or (dim, k)
        The right-hand side(s).
    rtol : float, default=1e-10
        The relative residual ``||b - A x|| / ||b||`` every column must reach.
    maxiter : int, default=None
        The iteration cap per column; None for scipy's ``10 * dim``.
    M : callable, sparse matrix or LinearOperator, default=None
        A symmetric positive definite approximation of ``A^{-1}``; None for no
        preconditioner.
    preconditioner : str, default=None
        The preconditioner's name for ``stats``; None for ``"none"`` (no ``M``) or
        ``"custom"``.
    x0 : array-like of the shape of ``B``, default=None
        The starting point; None for zero.

    Returns
    -------
    X : ndarray of the shape of ``B``
        The solution (the last iterate for a column stopped at the cap).
    info : SolveInfo
        ``"cg"``, with a ``fallback`` naming the columns stopped at the cap (if any) and
        the ``stats`` of the module docstring.

    Raises
    ------
    SolverError
        If scipy reports a breakdown or illegal input (``info < 0``).
    ValueError
        If ``A`` or ``M`` is not (dim, dim).
    """
    B = np.asarray(B, dtype=float)
    vector = B.ndim == 1
    B2 = B[:, None] if vector else B
    dim = B2.shape[0]
    cap = 10 * dim if maxiter is None else int(maxiter)
    op, matvec = _operator(matvec, dim)
    if M is not None:
        M, _ = _operator(M, dim)
    pname = preconditioner or ("none" if M is None else "custom")
    X = np.zeros_like(B2)
    if x0 is not None:
        x0 = np.asarray(x0, dtype=float).reshape(B2.shape)
    iters, resid, stalled = [], [], []
    for j in range(B2.shape[1]):
        count = [0]

        def tick(_xk, count=count):
            count[0] += 1

        b = B2[:, j]
        sol, info = cg(
            op,
            b,
            x0=None if x0 is None else x0[:, j],
            rtol=rtol,
            atol=0.0,
            maxiter=cap,
            M=M,
            callback=tick,
        )
        if info < 0:
            raise SolverError(f"cg broke down (scipy info={info}) on column {j}")
        nb = float(np.linalg.norm(b))
        r = float(np.linalg.norm(b - np.asarray(matvec(sol)).ravel()) / nb) if nb > 0 else 0.0
        if info > 0:
            stalled.append(j)
        X[:, j] = sol
        iters.append(count[0])
        resid.append(r)
    fallback = None
    if stalled:
        worst = max(resid[j] for j in stalled)
        fallback = (
            f"cg not converged in {cap} iterations (column(s) {stalled}, relative "
            f"residual up to {worst:.1e} > rtol {rtol:g}): the last iterate is used"
        )
    info = SolveInfo(
        "cg",
        fallback=fallback,
        stats={
            "iterations": iters,
            "relative_residual": resid,
            "rtol": rtol,
            "maxiter": cap,
            "preconditioner": pname,
        },
    )
    return (X[:, 0] if vector else X), info


def jacobi_preconditioner(A):
    """The Jacobi (diagonal) preconditioner ``diag(A)^{-1}`` of a sparse SPD matrix.

    It is a sparse diagonal matrix (a zero diagonal entry, impossible for SPD ``A``,
    gets 1).

    Parameters
    ----------
    A : sparse matrix or ndarray of shape (n, n)
        The symmetric positive definite matrix.

    Returns
    -------
    scipy.sparse.dia_matrix of shape (n, n)
        ``diag(A)^{-1}``.
    """
    d = np.asarray(sp.csr_matrix(A).diagonal(), dtype=float)
    return sp.diags(np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 1.0))


def have_pyamg():
    """Whether the optional :mod:`pyamg` is importable."""
    try:
        import pyamg  # noqa: F401
    except ImportError:
        return False
    return True


def amg_preconditioner(A):
    """One V-cycle of pyamg's smoothed aggregation (Vanek et al. 1996) on the sparse SPD ``A``.

    A LinearOperator (symmetric: pyamg's default symmetric Gauss-Seidel
    smoothing).  Needs the optional ``pyamg`` (ImportError otherwise).

    Parameters
    ----------
    A : sparse matrix or ndarray of shape (n, n)
        The symmetric positive definite matrix.

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (n, n)
        The preconditioner, an approximation of ``A^{-1}``.

    Raises
    ------
    ImportError
        If ``pyamg`` is not installed.
    """
    import pyamg

    ml = pyamg.smoothed_aggregation_solver(sp.csr_matrix(A), symmetry="symmetric")
    return ml.aspreconditioner(cycle="V")
