"""Label propagation on a graph: harmonic function and local-global consistency.

* :class:`HarmonicFunction` — Zhu, Ghahramani & Lafferty (ICML 2003): the
  harmonic solution ``f_U = -L_UU^{-1} L_UL f_L`` with the unnormalized
  Laplacian ``L = D - W`` (their eq. (5)), one column per class.
* :class:`Consistency` — Zhou et al. (NIPS 2004), as written in Liu et al.
  eq. (3): ``F* = (1 - alpha) (I - alpha S)^{-1} C`` with
  ``S = D^{-1/2} W D^{-1/2}``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu

from numbers import Real

from sklearn.utils._param_validation import Interval

from sskernels.learners.base import GraphClassifier


class HarmonicFunction(GraphClassifier):
    """Gaussian fields and harmonic functions (Zhu et al. 2003, eq. (5)).

    Unlabeled points in a connected component without any labeled point have
    no harmonic solution (``L_UU`` is singular); they receive the class
    frequencies of the labeled points (a choice: the paper assumes a connected
    graph).  ``class_mass_normalization`` applies Zhu et al.'s CMN (Sec. 3),
    off by default as in Liu et al.'s comparison.

    ``predict`` on new points uses the harmonic property itself: the weighted
    average of the graph points' scores, ``f(x) = sum_i W(x, x_i) f_i / sum_i W(x, x_i)``
    (the induction formula of Delalleau, Bengio & Le Roux, AISTATS 2005).
    """

    _parameter_constraints = {**GraphClassifier._parameter_constraints,
                              "class_mass_normalization": ["boolean"]}

    def __init__(self, graph=None, class_mass_normalization=False):
        self.graph = graph
        self.class_mass_normalization = class_mass_normalization

    def _scores(self, graph, labeled, C_L):
        n = graph.n
        unl = np.setdiff1d(np.arange(n), labeled)
        F = np.zeros((n, C_L.shape[1]))
        F[labeled] = C_L
        prior = C_L.mean(axis=0)
        if unl.size:
            _, comp = connected_components(graph.W, directed=False)
            reachable = np.isin(comp[unl], comp[labeled])
            solve, orphan = unl[reachable], unl[~reachable]
            if solve.size:
                L = graph.laplacian
                L_UU = L[solve][:, solve].tocsc()
                rhs = -(L[solve][:, labeled] @ C_L)
                F[solve] = splu(L_UU).solve(np.asarray(rhs))
            F[orphan] = prior
            if orphan.size:
                self.fit_report_.note("degenerate", f"{orphan.size} points in graph components "
                                      "without a labeled point: labeled class frequencies")
            if self.class_mass_normalization:
                mass = F[unl].sum(axis=0)
                F[unl] = F[unl] * (prior / np.where(mass > 0, mass, 1.0))
        return F

    def _induce(self, X):
        Wx = self.graph_.induced(X)
        dx = Wx.sum(axis=1, keepdims=True)
        return (Wx @ self.scores_) / np.where(dx > 0, dx, 1.0)


class Consistency(GraphClassifier):
    """Learning with local and global consistency (Zhou et al. 2004; Liu et al. eq. (3)).

    ``predict`` on a new point applies the fixed-point equation of the
    iteration ``F <- alpha S F + (1 - alpha) C`` to that point, which carries
    no label: ``f(x) = alpha sum_i W(x, x_i) / sqrt(D_xx D_ii) F_i``.
    """

    _parameter_constraints = {**GraphClassifier._parameter_constraints,
                              "alpha": [Interval(Real, 0, 1, closed="neither")]}

    def __init__(self, graph=None, alpha=0.99):
        self.graph = graph
        self.alpha = alpha

    def _scores(self, graph, labeled, C_L):
        n = graph.n
        C = np.zeros((n, C_L.shape[1]))
        C[labeled] = C_L
        A = (sp.identity(n, format="csc") - self.alpha * graph.S).tocsc()
        F = (1.0 - self.alpha) * splu(A).solve(C)
        # points of components without a labeled point have F = 0 (argmax would say class 0):
        # they get the labeled class frequencies, as in the harmonic function
        _, comp = connected_components(graph.W, directed=False)
        orphan = np.flatnonzero(~np.isin(comp, comp[labeled]))
        if orphan.size:
            F[orphan] = C_L.mean(axis=0)
            self.fit_report_.note("degenerate", f"{orphan.size} points in graph components "
                                  "without a labeled point: labeled class frequencies")
        return F

    def _induce(self, X):
        return self.alpha * (self.graph_.induced_normalized(X) @ self.scores_)
