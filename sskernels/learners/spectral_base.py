"""What the spectral kernel families share: the classifier over ``K = V diag(mu) V^T`` and the
decay constraints of eq. (14).

:class:`SpectralKernelClassifier` is the base of Liu et al.'s RSK and TSK
(:mod:`sskernels.learners.spectral`) and of the order-constrained kernel
(:mod:`sskernels.learners.spectral_transforms`): eigenvectors of the normalized Laplacian, the
classifier of eq. (5) and the out-of-sample extension eq. (17)-(19).  :func:`decay_matrix` is
TSK's decay constraint (eq. (14)), which the alignment kernels' constraints reuse.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval

from sskernels.graph.laplacian import ONE_TOL
from sskernels.learners.graph_base import GraphClassifier

__all__ = ["ZERO_TOL", "SpectralKernelClassifier", "decay_matrix"]

#: eigenvalues below this count as 0 (the constant-like eigenvectors of connected components)
ZERO_TOL = 1e-9


class SpectralKernelClassifier(GraphClassifier):
    """Base class of kernels ``K = V diag(mu) V^T``; subclasses give ``_coefficients``.

    ``n_components=None`` takes the full spectrum (eigenvalues equal to 1
    included; they are left out of the out-of-sample extension, where
    eq. (17) is undefined), an integer m the m smallest eigenpairs with
    ``lambda != 1`` (Liu et al., Sec. 4.1 and Table 1, Step 2).

    Fitted attributes: ``eigenvalues_`` (m,), ``eigenvectors_`` (n, m) = V̄,
    ``mu_`` (m,) the spectral coefficients; ``kernel_`` the (n, n) learned
    kernel matrix; ``kernel(A, B)`` evaluates it between any point sets.
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("mu_",)

    _parameter_constraints = {
        **GraphClassifier._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
    }

    def _precompute_graph(self, graph):
        graph.spectrum(self.n_components)

    def _scores(self, graph, labeled, C_L):
        spectrum = self._graph_spectrum(graph, self.n_components)
        if self.n_components is None:
            lam, V = spectrum.values, spectrum.vectors
        else:
            lam, V = spectrum.smallest(self.n_components, exclude_one=True)
        self.eigenvalues_, self.eigenvectors_ = lam, V
        self.mu_ = np.asarray(self._coefficients(lam, V, labeled, C_L), dtype=float)
        self.C_L_ = C_L
        # eq. (5): F = K[:, L] C_L = V diag(mu) (V_L^T C_L)
        return V @ (self.mu_[:, None] * (V[labeled].T @ C_L))

    # -- the learned kernel -------------------------------------------------
    @property
    def kernel_(self):
        V = self.eigenvectors_
        return (V * self.mu_) @ V.T

    def spectral_embedding(self, X=None, exclude=None):
        """``V̄`` rows of the training points (``X=None``) or induced ones, eq. (18).

        Columns whose eigenvalue equals 1 are zero in the induced embedding.

        Parameters
        ----------
        X : array-like of shape (s, n_features), default=None
            New points (with ``graph="precomputed"``: their (s, n) affinities to the training
            points); None: the training points.
        exclude : array-like of int of shape (s,), default=None
            Per new point, the index of a training point to leave out of its graph weights
            (:meth:`~sskernels.graph.Graph.induced_normalized`).

        Returns
        -------
        ndarray of shape (n_samples, m) or (s, m)
            ``eigenvectors_``, or the new points' rows ``w_x^T V (I - Lambda)^{-1}``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import TransductiveSpectralKernel
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> tsk = TransductiveSpectralKernel(beta=10).fit(X, y_partial)
        >>> tsk.spectral_embedding().shape, tsk.spectral_embedding(X[:2]).shape
        ((178, 10), (2, 10))
        """
        if X is None:
            return self.eigenvectors_
        w = self.graph_.induced_normalized(X, exclude=exclude)
        gap = 1.0 - self.eigenvalues_
        scale = np.where(np.abs(gap) > ONE_TOL, 1.0 / np.where(gap == 0, 1.0, gap), 0.0)
        return (w @ self.eigenvectors_) * scale

    def kernel(self, A=None, B=None):
        """``K(a, b) = V̄_a diag(mu) V̄_b^T`` (eq. (16)); None means the training points.

        Parameters
        ----------
        A : array-like of shape (n_a, n_features), default=None
            Points (with ``graph="precomputed"``: their affinities to the training points);
            None: the training points.
        B : array-like of shape (n_b, n_features), default=None
            Points, as ``A``; None: the training points.

        Returns
        -------
        ndarray of shape (n_a, n_b)
            The kernel between the two point sets (:meth:`spectral_embedding`).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import TransductiveSpectralKernel
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> tsk = TransductiveSpectralKernel(beta=10).fit(X, y_partial)
        >>> tsk.kernel(X[:2], X[:3]).shape
        (2, 3)
        >>> bool(np.allclose(tsk.kernel(), tsk.kernel_))
        True
        """
        Va = self.spectral_embedding(A)
        Vb = Va if B is A else self.spectral_embedding(B)
        return (Va * self.mu_) @ Vb.T

    def _induce(self, X):
        # eq. (19): sum over labeled j of class k of K_{x,j}
        Vx = self.spectral_embedding(X)
        return Vx @ (self.mu_[:, None] * (self.eigenvectors_[self.labeled_].T @ self.C_L_))


def decay_matrix(m, eta, skip=0):
    """``Gamma`` of eq. (14): rows ``mu_t - eta mu_{t+1} >= 0`` for ``t = skip+1, ..., m-1``.

    Parameters
    ----------
    m : int
        The number of coefficients ``mu``.
    eta : float
        The decay factor.
    skip : int, default=0
        Leading coefficients left out of the constraints.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (max(m - 1 - skip, 0), m)
        One row per constraint: 1 at ``t``, ``-eta`` at ``t + 1`` (0-based column
        ``skip + i`` and ``skip + i + 1`` for row i).

    Examples
    --------
    >>> from sskernels.learners.spectral_base import decay_matrix
    >>> decay_matrix(4, eta=2.0, skip=1).toarray()
    array([[ 0.,  1., -2.,  0.],
           [ 0.,  0.,  1., -2.]])
    """
    rows = max(m - 1 - skip, 0)
    if rows == 0:
        return sp.csr_matrix((0, m))
    return sp.diags(
        [np.ones(rows), np.full(rows, -float(eta))], [skip, skip + 1], shape=(rows, m)
    ).tocsr()
