"""The bounds and vocabularies of a spec: what a spec may ask for, shared by the spec's reader
(:mod:`sskernels.spec`) and its method entries (:mod:`sskernels.spec_params`), which both
import them from here (neither imports the other's internals).
"""

from __future__ import annotations

import math

#: bounds on what a spec can ask for (a run of 10^9 splits would never end, silently)
MAX_SPLITS = 10_000
MAX_NEIGHBORS = 10_000
#: a bound on a split's labeled points (and on each per-class count); the data set's own
#: size bounds it again once it is loaded (:func:`sskernels.experiment.preparation.prepare`)
MAX_LABELED = 10_000_000
#: the accepted range of a heat-weight width ``sigma`` (``graph.sigma``, or a method's
#: ``params.sigma``).  The weights are ``exp(-d^2 / (2 sigma^2))``: within these bounds
#: ``sigma^2`` stays a normal float (1e300 overflowed it) and the exponent is finite for any
#: distance below 1e146, while a width outside them is no longer a scale of any data set's
#: distances (every weight 1, i.e. ``weights: binary``, or every weight 0, an empty graph).
SIGMA_MIN, SIGMA_MAX = 1e-8, 1e8
#: the magnitudes a real-valued method parameter (a trade-off, a decay, a tolerance) may take
#: besides 0: every value of the configs lies within 1e-6 and 1e6
PARAM_MAGNITUDE = (1e-12, 1e12)
SIGMA_REASON = "outside it the heat weights exp(-d^2 / (2 sigma^2)) overflow, or are all 1 or all 0"
#: a method's RBF width ``kernel_width`` (a number) and the factor ``kernel_width_scale`` of a
#: width rule's width, wherever they appear in ``params``: the range of ``sigma``, for the same
#: reason (1e300 overflowed ``w^2`` in the fit)
WIDTH_REASON = "outside it the RBF kernel exp(-d^2 / (2 w^2)) overflows, or is all 1 or all 0"
#: the largest ``laplacian_degree`` (the power p of the regularizer L^p: p - 1 products of the
#: n x n Laplacian; 10**12 never ended)
MAX_LAPLACIAN_DEGREE = 100

#: ``select:`` of a method: ``labeled`` (the default, SelectOnLabeled), ``oracle`` (per split,
#: the best candidate on the test labels) or ``oracle-mean`` (one candidate for every split:
#: the best on average over the splits, a table-level oracle)
SELECTIONS = ("labeled", "oracle", "oracle-mean")
#: ``protocol:`` of a method: ``paper`` marks the row that follows the paper's stated protocol
#: for its paper cell (the fidelity report counts it; other rows of the cell are ours)
PROTOCOLS_OF_ROWS = ("paper",)
#: the fields of one method entry (``estimator`` and ``grid``: a user's estimator,
#: :mod:`sskernels.user_methods`; ``paper`` is the old name of ``paper_row``)
METHOD_FIELDS = (
    "name",
    "estimator",
    "label",
    "paper_row",
    "paper",
    "params",
    "grid",
    "select",
    "protocol",
)


def _finite(value):
    """Whether a number is finite (an integer beyond the float range is not: 10**400)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False
