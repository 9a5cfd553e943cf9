"""Matrix-free conjugate gradients for symmetric positive definite systems, and its fallback.

``cg_solve(matvec, B, rtol, maxiter)`` solves ``A X = B`` column by column with
scipy's :func:`scipy.sparse.linalg.cg`, ``A`` given only by ``v -> A v``
(``matvec``; the linear Laplacian RLS of Sindhwani et al., eq. (11.18), never
forms its ``d x d`` matrix).  It returns ``(X, SolveInfo)``:

* ``"cg"`` — every column reached ``||b - A x|| <= rtol ||b||`` (scipy's
  stopping rule with ``atol = 0``), the documented rule;
* **fallback** (still ``solver="cg"``) — a column stopped at the iteration cap
  ``maxiter`` (``None``: scipy's ``10 * dim``) before reaching ``rtol``.  The
  last iterate is returned (what the package always did; it used to say so in
  a ``RuntimeWarning`` only) and the :class:`SolveInfo`'s ``fallback`` names the
  columns, the cap and their relative residuals, so the fit report carries it;
* an **error** (:class:`~sskernels.solvers.SolverError`) — scipy reports a
  breakdown or illegal input (``info < 0``).

``stats``: ``iterations`` (per column, counted by the callback),
``relative_residual`` (per column, ``||b - A x|| / ||b||`` recomputed after the
solve with one extra ``matvec``; 0 for a zero column), ``rtol``, ``maxiter``.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import LinearOperator, cg

from sskernels.solvers.highs import SolverError
from sskernels.solvers.report import SolveInfo

__all__ = ["cg_solve"]


def cg_solve(matvec, B, rtol=1e-10, maxiter=None):
    """``(X, SolveInfo)`` with ``A X = B`` by conjugate gradients (module docstring).

    ``matvec(v)`` returns ``A v`` for a (dim,) vector; ``A`` must be symmetric
    positive definite.  ``B`` is (dim,) or (dim, k); ``X`` has its shape.
    """
    B = np.asarray(B, dtype=float)
    vector = B.ndim == 1
    B2 = B[:, None] if vector else B
    dim = B2.shape[0]
    cap = 10 * dim if maxiter is None else int(maxiter)
    op = LinearOperator((dim, dim), matvec=matvec, dtype=float)
    X = np.zeros_like(B2)
    iters, resid, stalled = [], [], []
    for j in range(B2.shape[1]):
        count = [0]

        def tick(_xk, count=count):
            count[0] += 1

        b = B2[:, j]
        sol, info = cg(op, b, rtol=rtol, atol=0.0, maxiter=maxiter, callback=tick)
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
        fallback = (f"cg not converged in {cap} iterations (column(s) {stalled}, relative "
                    f"residual up to {worst:.1e} > rtol {rtol:g}): the last iterate is used")
    info = SolveInfo("cg", fallback=fallback,
                     stats={"iterations": iters, "relative_residual": resid, "rtol": rtol,
                            "maxiter": cap})
    return (X[:, 0] if vector else X), info
