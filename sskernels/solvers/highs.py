"""HiGHS linear and convex quadratic programs, in one row-bounded form.

Both solve

    min  c^T x (+ 1/2 x^T Q x)   s.t.  row_lower <= A x <= row_upper,
                                        col_lower <= x <= col_upper

with ``A`` any scipy sparse or dense matrix and ``np.inf`` for a missing bound.
The default tolerances of HiGHS (primal/dual feasibility 1e-7) are kept.
"""

from __future__ import annotations

import os

import highspy
import numpy as np
import scipy.sparse as sp

from sskernels.errors import SolveFailure


class SolverError(SolveFailure):
    """The solver did not reach an optimum (a :class:`~sskernels.errors.SolveFailure`)."""


def _inf(a):
    a = np.array(a, dtype=float)
    a[np.isposinf(a)] = highspy.kHighsInf
    a[np.isneginf(a)] = -highspy.kHighsInf
    return a


def _model(c, A, row_lower, row_upper, col_lower, col_upper):
    n = len(c)
    A = sp.csc_matrix(A) if A is not None else sp.csc_matrix((0, n))
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = A.shape[0]
    lp.col_cost_ = np.asarray(c, dtype=float)
    lp.col_lower_ = _inf(np.broadcast_to(col_lower, (n,)))
    lp.col_upper_ = _inf(np.broadcast_to(col_upper, (n,)))
    lp.row_lower_ = _inf(np.broadcast_to(row_lower, (A.shape[0],)))
    lp.row_upper_ = _inf(np.broadcast_to(row_upper, (A.shape[0],)))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    lp.a_matrix_.num_col_ = n
    lp.a_matrix_.num_row_ = A.shape[0]
    return lp


_BANNER_SHOWN = False


def _silence_banner():
    """HiGHS prints a licence banner to fd 1 on its first construction in a
    process; construct that first instance with fd 1 pointed at /dev/null so
    that the CLI's tables are not interleaved with it."""
    global _BANNER_SHOWN
    if _BANNER_SHOWN:
        return
    _BANNER_SHOWN = True
    try:
        fd = 1
        saved = os.dup(fd)
    except OSError:
        highspy.Highs()
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
        highspy.Highs()
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(devnull)


#: seconds after which a solve is abandoned (a SolverError), so that no run hangs
TIME_LIMIT = 120.0


def _solver(time_limit=None):
    _silence_banner()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit or TIME_LIMIT))
    return h


def _solve(h):
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS ended with status {h.modelStatusToString(status)}")
    return np.array(h.getSolution().col_value), float(h.getInfo().objective_function_value)


def solve_lp(c, A=None, row_lower=-np.inf, row_upper=np.inf, col_lower=0.0, col_upper=np.inf):
    """Solve a linear program with HiGHS.

    Solves ``min c^T x`` s.t. ``row_lower <= A x <= row_upper`` and
    ``col_lower <= x <= col_upper`` (``np.inf`` for a missing bound), with HiGHS's default
    tolerances and a time limit of :data:`TIME_LIMIT` seconds.

    Parameters
    ----------
    c : array-like of shape (n,)
        The cost vector.
    A : array-like or scipy sparse matrix of shape (m, n), default=None
        The constraint matrix; None for no row constraints.
    row_lower : float or array-like of shape (m,), default=-np.inf
        Lower bounds of ``A x`` (a scalar applies to every row).
    row_upper : float or array-like of shape (m,), default=np.inf
        Upper bounds of ``A x``.
    col_lower : float or array-like of shape (n,), default=0.0
        Lower bounds of ``x`` (by default ``x >= 0``).
    col_upper : float or array-like of shape (n,), default=np.inf
        Upper bounds of ``x``.

    Returns
    -------
    x : ndarray of shape (n,)
        The optimal point.
    objective : float
        The optimal value ``c^T x``.

    Raises
    ------
    SolverError
        If HiGHS does not end at an optimum (infeasible, unbounded, time limit reached).

    Examples
    --------
    >>> from sskernels.solvers import solve_lp
    >>> x, objective = solve_lp([-1.0, -1.0], A=[[1.0, 2.0], [3.0, 1.0]], row_upper=[4.0, 6.0])
    >>> x.round(6), round(objective, 6)
    (array([1.6, 1.2]), -2.8)
    """
    h = _solver()
    h.passModel(_model(c, A, row_lower, row_upper, col_lower, col_upper))
    return _solve(h)


def solve_qp(
    Q,
    c,
    A=None,
    row_lower=-np.inf,
    row_upper=np.inf,
    col_lower=0.0,
    col_upper=np.inf,
    time_limit=None,
    iteration_limit=None,
):
    """Solve a convex QP ``min 1/2 x^T Q x + c^T x`` with HiGHS.

    The constraints are those of :func:`solve_lp`: ``row_lower <= A x <= row_upper`` and
    ``col_lower <= x <= col_upper``.  ``Q`` must be symmetric positive semidefinite; only
    its lower triangle is passed.

    Parameters
    ----------
    Q : array-like or scipy sparse matrix of shape (n, n)
        The Hessian, symmetric positive semidefinite.
    c : array-like of shape (n,)
        The linear cost vector.
    A : array-like or scipy sparse matrix of shape (m, n), default=None
        The constraint matrix; None for no row constraints.
    row_lower : float or array-like of shape (m,), default=-np.inf
        Lower bounds of ``A x`` (a scalar applies to every row).
    row_upper : float or array-like of shape (m,), default=np.inf
        Upper bounds of ``A x``.
    col_lower : float or array-like of shape (n,), default=0.0
        Lower bounds of ``x`` (by default ``x >= 0``).
    col_upper : float or array-like of shape (n,), default=np.inf
        Upper bounds of ``x``.
    time_limit : float, default=None
        Seconds after which the solve is abandoned; None for :data:`TIME_LIMIT`.
    iteration_limit : int, default=None
        HiGHS's ``qp_iteration_limit`` (its active-set iterations); None for HiGHS's own.

    Returns
    -------
    x : ndarray of shape (n,)
        The optimal point.
    objective : float
        The optimal value ``1/2 x^T Q x + c^T x``.

    Raises
    ------
    SolverError
        If HiGHS does not end at an optimum (infeasible, unbounded, time limit reached).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.solvers import solve_qp
    >>> x, objective = solve_qp(np.eye(2), [-1.0, -1.0], A=[[1.0, 1.0]], row_upper=[1.0])
    >>> x.round(6), round(objective, 6)
    (array([0.5, 0.5]), -0.75)
    """
    lp = _model(c, A, row_lower, row_upper, col_lower, col_upper)
    model = highspy.HighsModel()
    model.lp_ = lp
    Ql = sp.tril(sp.csc_matrix(Q)).tocsc()
    hess = highspy.HighsHessian()
    hess.dim_ = len(c)
    hess.format_ = highspy.HessianFormat.kTriangular
    hess.start_ = Ql.indptr.astype(np.int32)
    hess.index_ = Ql.indices.astype(np.int32)
    hess.value_ = Ql.data.astype(float)
    model.hessian_ = hess
    h = _solver(time_limit)
    if iteration_limit is not None:
        h.setOptionValue("qp_iteration_limit", int(iteration_limit))
    h.passModel(model)
    return _solve(h)
