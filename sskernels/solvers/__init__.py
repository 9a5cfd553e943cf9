"""Thin wrappers over numerical solvers (HiGHS for LP/QP)."""

from sskernels.solvers.highs import SolverError, solve_lp, solve_qp

__all__ = ["SolverError", "solve_lp", "solve_qp"]
