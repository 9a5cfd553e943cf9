"""Linear systems with a symmetric positive (semi)definite matrix, and their fallback.

``solve_psd(M, R)`` returns ``M^{-1} R`` and a :class:`SolveInfo`:

* ``"cholesky"`` — LAPACK's Cholesky solve (``scipy.linalg.solve(assume_a="pos")``),
  the documented first choice;
* **fallback** ``"lstsq"`` — when Cholesky fails (M singular or not numerically
  positive definite, e.g. a kernel block of rank below its size), the minimum-norm
  least-squares solution (``scipy.linalg.lstsq``); the :class:`SolveInfo` says why.
"""

from __future__ import annotations

from scipy.linalg import LinAlgError, lstsq, solve

from sskernels.solvers.report import SolveInfo

__all__ = ["solve_psd"]


def solve_psd(M, R):
    """``(M^{-1} R, SolveInfo)`` for symmetric positive (semi)definite ``M`` (module rule).

    Cholesky first; the minimum-norm least-squares solution when it fails.

    Parameters
    ----------
    M : ndarray of shape (n, n)
        The symmetric positive (semi)definite matrix.
    R : ndarray of shape (n,) or (n, k)
        The right-hand side(s).

    Returns
    -------
    X : ndarray of the shape of ``R``
        ``M^{-1} R`` (the least-squares solution when Cholesky fails).
    info : SolveInfo
        ``"cholesky"``, or ``"lstsq"`` with the reason in ``fallback``.
    """
    try:
        return solve(M, R, assume_a="pos", check_finite=False), SolveInfo("cholesky")
    except (LinAlgError, ValueError) as exc:
        reason = f"cholesky->lstsq ({type(exc).__name__}: {exc})"
    return lstsq(M, R, check_finite=False)[0], SolveInfo("lstsq", fallback=reason)
