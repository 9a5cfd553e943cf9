"""Regularized spectral clustering and regularized Laplacian eigenmaps.

Sindhwani, Belkin & Niyogi, "The Geometric Basis of Semi-supervised Learning",
Sec. 11.3.2 (unsupervised learning; the unsupervised end of the manifold
regularization framework).  With no labels, eq. (11.11) leaves

    min_{f in H_K}  gamma_A ||f||_K^2 + gamma_I ||f||_I^2,

and with ``||f||_I^2 ~ f^T L f`` (``L = D - W`` of the k-NN graph) and the
constraints that remove the degenerate solutions, eq. (11.12):

    f* = argmin_{sum_i f(x_i) = 0, sum_i f(x_i)^2 = 1}  gamma_A ||f||_K^2 + gamma_I f^T L f

(the paper writes ``gamma ||f||_K^2 + sum_{i~j} (f(x_i) - f(x_j))^2``: only the
ratio ``gamma = gamma_A / gamma_I`` matters, and ``sum_{i~j}`` over the edges,
each counted once, with weights ``W_ij`` is ``f^T L f``).  By the representer
theorem ``f = sum_i alpha_i K(x_i, .)``, so ``f = K alpha`` on the data,
``||f||_K^2 = alpha^T K alpha`` and

    min alpha^T (gamma_A K + gamma_I K L K) alpha
    s.t. 1^T K alpha = 0,  alpha^T K^2 alpha = 1,

whose solution is the generalized eigenproblem eq. (11.13)

    P (gamma_A K + gamma_I K L K) P v = lambda P K^2 P v,   alpha = P v,

``P`` the projection onto the complement of ``K 1``; the eigenvectors of the
smallest eigenvalues are taken.

Numerical solution (a choice; no ridge is added).  For an RBF kernel ``K^2``
is numerically singular, so a Cholesky-based ``eigh(A, B)`` would need a ridge
that changes the equation.  Instead the pencil is reduced *exactly* to
standard form: with ``K = U S U^T`` (eigenvalues ``s > eig_rtol * s_max``
kept; the discarded directions do not change ``f = K alpha`` on the data to
that precision) write ``alpha = U S^{-1} g`` i.e. ``g = U^T f``.  Then
``alpha^T K^2 alpha = g^T g``, ``1^T K alpha = (U^T 1)^T g`` and
``alpha^T A alpha = g^T (gamma_A S^{-1} + gamma_I U^T L U) g``; with ``Z`` an
orthonormal basis of the complement of ``U^T 1`` and ``g = Z h``, eq. (11.13)
becomes the symmetric standard problem

    Z^T (gamma_A S^{-1} + gamma_I U^T L U) Z h = lambda h,

solved by ``scipy.linalg.eigh`` (this is the Cholesky reduction ``eigh`` would
do with ``B = K^2``, performed analytically).  The resulting ``alpha`` satisfies
eq. (11.13) with the unreduced ``P``, ``K``, ``L`` (checked in the tests).

Clustering: for 2 clusters, label = ``f(x) > 0`` with ``f`` the first
eigenfunction (``f`` has zero mean on the training points by the constraint,
so 0 is the centered threshold; the label whose cluster contains the first
training point is 0, a convention).  For ``k > 2`` clusters, the values of the
first ``k - 1`` eigenfunctions (the constant is excluded by the constraint) are
clustered by ``sklearn.cluster.KMeans`` (``n_init=10``); new points are
assigned to the nearest centroid of their eigenfunction values.

Other choices: the graph is the package's k-NN graph with binary weights
(``graph=None``: k = 6, ``weights="binary"``, the unweighted ``sum_{i~j}`` of
eq. (11.12)); the RBF width is a number or a rule of
:func:`sskernels.kernels.rbf.resolve_width` (default ``"median"``: the
package's one median rule).  Input is validated the scikit-learn way
(``validate_data``: lists, NaN, infinite values, ``n_features_in_``).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.linalg as sla
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from sskernels.errors import ParameterError
from sskernels.learners.protocol import LearnerProtocol
from sskernels.learners.graph_base import DefaultGraphMixin
from sskernels.kernels.rbf import WIDTH_RULES, rbf, resolve_width, squared_distances


def regularized_eigenfunctions(K, L, gamma_A, gamma_I, n_functions, eig_rtol=1e-10):
    """Smallest-eigenvalue solutions of eq. (11.13).

    Returns ``(alpha, lam)``: ``alpha`` (n, n_functions) with ``K alpha`` orthonormal
    and orthogonal to ``1``, ``lam`` the eigenvalues (ascending).  Solved by the exact
    reduction to a standard symmetric problem of the module docstring (no ridge).

    Parameters
    ----------
    K : array-like of shape (n, n)
        The kernel matrix (symmetrized).
    L : array-like or sparse matrix of shape (n, n)
        The graph Laplacian.
    gamma_A : float
        The ambient regularization.
    gamma_I : float
        The intrinsic regularization.
    n_functions : int
        The number of eigenfunctions.
    eig_rtol : float, default=1e-10
        Eigenvalues of ``K`` at most ``eig_rtol`` times the largest are dropped.

    Returns
    -------
    alpha : ndarray of shape (n, n_functions)
        The coefficients: ``f = K alpha`` on the data.
    lam : ndarray of shape (n_functions,)
        The eigenvalues, ascending.

    Raises
    ------
    ValueError
        When ``K`` has fewer than ``n_functions + 1`` kept eigenvalues
        (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.spectral_clustering import regularized_eigenfunctions
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    >>> K = np.exp(-(X - X.T) ** 2 / 8)
    >>> W = (np.abs(X - X.T) == 1).astype(float)          # a chain within each cluster
    >>> alpha, lam = regularized_eigenfunctions(K, np.diag(W.sum(1)) - W, 1e-3, 1.0, 1)
    >>> f = (K @ alpha).ravel()
    >>> np.sign(f * f[0]).astype(int)                    # the two clusters
    array([ 1,  1,  1, -1, -1, -1])
    >>> bool(np.isclose(f @ f, 1.0) and abs(f.sum()) < 1e-9)
    True
    """
    K = np.asarray(K, dtype=float)
    L = L.toarray() if hasattr(L, "toarray") else np.asarray(L, dtype=float)
    n = K.shape[0]
    s, U = sla.eigh((K + K.T) / 2.0)
    keep = s > eig_rtol * max(s[-1], 0.0)
    s, U = s[keep], U[:, keep]
    r = s.size
    if n_functions > r - 1:
        raise ParameterError(
            f"only {r} numerically nonzero kernel eigenvalues; cannot compute "
            f"{n_functions} eigenfunctions orthogonal to the constant"
        )
    u = U.T @ np.ones(n)
    # orthonormal basis Z of the complement of u = U^T 1 in R^r
    Z = sla.null_space(u[None, :]) if np.linalg.norm(u) > 0 else np.eye(r)
    M = gamma_A * np.diag(1.0 / s) + gamma_I * (U.T @ L @ U)
    M = Z.T @ ((M + M.T) / 2.0) @ Z
    lam, H = sla.eigh(M, subset_by_index=[0, n_functions - 1])
    G = Z @ H  # g = U^T f, orthonormal columns
    alpha = U @ (G / s[:, None])  # alpha = U S^-1 g
    return alpha, lam


class _RegularizedEigenBase(
    LearnerProtocol, ClassNamePrefixFeaturesOutMixin, DefaultGraphMixin, BaseEstimator
):
    """Shared parts: parameters, input validation, the eigenproblem eq. (11.13).

    The transformers' output columns are named ``<classname>0``, ``<classname>1``, ...
    (``get_feature_names_out``), and ``set_output(transform="pandas")`` works.
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("kernel_width_",)

    _parameter_constraints: dict = {
        "gamma_A": [Interval(Real, 0, None, closed="left")],
        "gamma_I": [Interval(Real, 0, None, closed="left")],
        "kernel_width": [Interval(Real, 0, None, closed="neither"), StrOptions(set(WIDTH_RULES))],
        "graph": [None, HasMethods(["build"])],
        "eig_rtol": [Interval(Real, 0, 1, closed="left")],
    }
    #: the graph of eq. (11.12): unweighted edges (``sum_{i~j}``), k = 6
    _default_graph = {"n_neighbors": 6, "weights": "binary"}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _fit_eigen(self, X, n_functions):
        self._validate_params()
        if self.gamma_A == 0 and self.gamma_I == 0:
            raise ParameterError("gamma_A and gamma_I cannot both be 0")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, ensure_min_samples=2)
        self.kernel_width_ = resolve_width(X, self.kernel_width)
        K = rbf(squared_distances(X), self.kernel_width_)
        L = self.graph_builder().build(X).laplacian  # L = D - W, eq. (11.12)
        alpha, lam = regularized_eigenfunctions(
            K, L, self.gamma_A, self.gamma_I, n_functions, self.eig_rtol
        )
        self.X_fit_ = X
        self.alpha_ = alpha
        self.eigenvalues_ = lam
        self._n_features_out = alpha.shape[1]
        return K @ alpha

    def _eigenfunctions(self, X):
        check_is_fitted(self, "alpha_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return rbf(squared_distances(X, self.X_fit_), self.kernel_width_) @ self.alpha_


class RegularizedSpectralClustering(ClusterMixin, TransformerMixin, _RegularizedEigenBase):
    """Regularized spectral clustering, eq. (11.12)-(11.13), with out-of-sample labels.

    The eigenfunctions ``f = sum_i alpha_i K(x_i, .)`` of the smallest eigenvalues of the
    generalized eigenproblem eq. (11.13),
    ``P (gamma_A K + gamma_I K L K) P v = lambda P K^2 P v`` (``alpha = P v``, module
    docstring), minimize ``gamma_A ||f||_K^2 + gamma_I f^T L f`` under
    ``sum_i f(x_i) = 0``, ``sum_i f(x_i)^2 = 1`` (eq. (11.12)); they are defined on any
    point, so new points get labels too.  For 2 clusters, label = ``f(x) > 0`` with ``f``
    the first eigenfunction (the label whose cluster contains the first training point
    is 0, a convention); for ``k > 2`` clusters, the values of the first ``k - 1``
    eigenfunctions are clustered by ``sklearn.cluster.KMeans`` (``n_init=10``) and new
    points are assigned to the nearest centroid.

    The transform's output columns are named ``<classname>0``, ``<classname>1``, ...
    (``get_feature_names_out``), and ``set_output(transform="pandas")`` works.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters (2: sign of the first eigenfunction; > 2: KMeans on the first
        ``n_clusters - 1`` eigenfunctions).
    gamma_A : float, default=1e-6
        Weight of ``||f||_K^2`` (>= 0; only the ratio ``gamma_A / gamma_I`` matters; not
        both 0).
    gamma_I : float, default=1.0
        Weight of ``f^T L f`` (>= 0).
    kernel_width : {"median", "mean-norm"} or float, default="median"
        sigma of ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``, a number
        or a width rule (``"median"``: median pairwise training distance;
        ``"mean-norm"``), :func:`sskernels.kernels.rbf.resolve_width`.
    graph : object or None, default=None
        The k-NN graph builder of ``L = D - W`` (:class:`~sskernels.graph.KNNGraph`);
        ``None``: k = 6 with binary weights, the unweighted ``sum_{i~j}`` of eq. (11.12).
    eig_rtol : float, default=1e-10
        Kernel eigenvalues below ``eig_rtol * max`` are dropped (see the module
        docstring).
    random_state : int, RandomState instance or None, default=None
        Seed of KMeans (None: a fresh one at each fit; specs pass 0).

    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples, n_clusters - 1)
        Expansion coefficients of the eigenfunctions.
    eigenvalues_ : ndarray of shape (n_clusters - 1,)
        The eigenvalues of eq. (11.13), ascending.
    embedding_ : ndarray of shape (n_samples, n_clusters - 1)
        The eigenfunctions at the training points, ``K alpha_``.
    labels_ : ndarray of shape (n_samples,)
        Cluster labels of the training points.
    flip_ : float
        Two clusters: the sign that gives the first training point label 0.
    kmeans_ : KMeans
        The fitted ``sklearn.cluster.KMeans`` (``n_clusters > 2`` only).
    kernel_width_ : float
        The RBF width used.
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        The training points.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    RegularizedLaplacianEigenmaps : The eigenfunctions as an embedding.
    sklearn.cluster.SpectralClustering : Spectral clustering without out-of-sample labels.

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: Sec. 11.3.2, eq. (11.11)-(11.13).

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from sskernels.learners import RegularizedSpectralClustering
    >>> X, y = make_moons(n_samples=100, noise=0.05, random_state=0)
    >>> est = RegularizedSpectralClustering(n_clusters=2, random_state=0).fit(X)
    >>> est.labels_.shape
    (100,)
    >>> int(est.labels_[0])                        # the first point's cluster is 0
    0
    >>> bool(adjusted_rand_score(y, est.labels_) > 0.9)
    True
    >>> est.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints = {
        **_RegularizedEigenBase._parameter_constraints,
        "n_clusters": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters=2,
        gamma_A=1e-6,
        gamma_I=1.0,
        kernel_width="median",
        graph=None,
        eig_rtol=1e-10,
        random_state=None,
    ):
        self.n_clusters = n_clusters
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel_width = kernel_width
        self.graph = graph
        self.eig_rtol = eig_rtol
        self.random_state = random_state

    def fit(self, X, y=None):
        """Compute the eigenfunctions of eq. (11.13) and cluster the training points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points (sparse input accepted).
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        k = self.n_clusters
        F = self._fit_eigen(X, k - 1)
        self.embedding_ = F
        if k == 2:
            self.flip_ = 1.0 if F[0, 0] <= 0 else -1.0
            self.labels_ = self._labels(F)
        else:
            self.kmeans_ = KMeans(n_clusters=k, n_init=10, random_state=self.random_state).fit(F)
            self.labels_ = self.kmeans_.labels_
        return self

    def _labels(self, F):
        if self.n_clusters == 2:
            return (self.flip_ * F[:, 0] > 0).astype(int)
        return self.kmeans_.predict(F)

    def transform(self, X):
        """Eigenfunction values ``f_j(x) = sum_i alpha_ij K(x_i, x)``, shape (n, n_clusters - 1).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Points, training or new.

        Returns
        -------
        F : ndarray of shape (n_queries, n_clusters - 1)
            The eigenfunctions at the points.
        """
        return self._eigenfunctions(X)

    def decision_function(self, X):
        """``f(x)`` of the first eigenfunction (2 clusters: positive means label 1).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Points, training or new.

        Returns
        -------
        f : ndarray of shape (n_queries,)
            The first eigenfunction at the points (sign-flipped for 2 clusters so that
            positive means label 1).
        """
        F = self._eigenfunctions(X)[:, 0]
        return self.flip_ * F if self.n_clusters == 2 else F

    def predict(self, X):
        """Cluster labels of new points through the out-of-sample eigenfunctions.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Points, training or new.

        Returns
        -------
        labels : ndarray of shape (n_queries,)
            Their clusters.
        """
        return self._labels(self._eigenfunctions(X))


class RegularizedLaplacianEigenmaps(TransformerMixin, _RegularizedEigenBase):
    """Regularized Laplacian eigenmaps: ``x -> [f_1(x), ..., f_m(x)]`` (Sec. 11.3.2).

    ``f_j`` are the eigenfunctions of eq. (11.13) of the ``m`` smallest eigenvalues, as in
    :class:`RegularizedSpectralClustering`: defined on any point, so ``transform``
    embeds new points.  The output columns are named ``<classname>0``,
    ``<classname>1``, ... (``get_feature_names_out``), and
    ``set_output(transform="pandas")`` works.

    Parameters
    ----------
    n_components : int, default=2
        m, the number of eigenfunctions.
    gamma_A : float, default=1e-6
        Weight of ``||f||_K^2`` (>= 0; only the ratio ``gamma_A / gamma_I`` matters; not
        both 0).
    gamma_I : float, default=1.0
        Weight of ``f^T L f`` (>= 0).
    kernel_width : {"median", "mean-norm"} or float, default="median"
        sigma of ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``, a number
        or a width rule (``"median"``: median pairwise training distance;
        ``"mean-norm"``), :func:`sskernels.kernels.rbf.resolve_width`.
    graph : object or None, default=None
        The k-NN graph builder of ``L = D - W`` (:class:`~sskernels.graph.KNNGraph`);
        ``None``: k = 6 with binary weights, the unweighted ``sum_{i~j}`` of eq. (11.12).
    eig_rtol : float, default=1e-10
        Kernel eigenvalues below ``eig_rtol * max`` are dropped (see the module
        docstring).

    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples, n_components)
        Expansion coefficients of the eigenfunctions.
    eigenvalues_ : ndarray of shape (n_components,)
        The eigenvalues of eq. (11.13), ascending.
    embedding_ : ndarray of shape (n_samples, n_components)
        The training points' coordinates, ``K alpha_``.
    kernel_width_ : float
        The RBF width used.
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        The training points.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    RegularizedSpectralClustering : Clusters from the same eigenfunctions.
    sklearn.manifold.SpectralEmbedding : Laplacian eigenmaps without out-of-sample extension.

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: Sec. 11.3.2, eq. (11.13).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from sskernels.learners import RegularizedLaplacianEigenmaps
    >>> X, _ = make_moons(n_samples=100, noise=0.05, random_state=0)
    >>> emb = RegularizedLaplacianEigenmaps(n_components=2).fit(X)
    >>> emb.embedding_.shape
    (100, 2)
    >>> bool(np.allclose(emb.transform(X), emb.embedding_))   # out of sample = in sample
    True
    >>> emb.get_feature_names_out().tolist()
    ['regularizedlaplacianeigenmaps0', 'regularizedlaplacianeigenmaps1']
    """

    _parameter_constraints = {
        **_RegularizedEigenBase._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_components=2,
        gamma_A=1e-6,
        gamma_I=1.0,
        kernel_width="median",
        graph=None,
        eig_rtol=1e-10,
    ):
        self.n_components = n_components
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel_width = kernel_width
        self.graph = graph
        self.eig_rtol = eig_rtol

    def fit(self, X, y=None):
        """Compute the eigenfunctions of eq. (11.13) on ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points (sparse input accepted).
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self.embedding_ = self._fit_eigen(X, self.n_components)
        return self

    def fit_transform(self, X, y=None):
        """Fit on ``X`` and return the training points' coordinates ``embedding_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points (sparse input accepted).
        y : None
            Ignored.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            The eigenfunctions at the training points.
        """
        return self.fit(X).embedding_

    def transform(self, X):
        """Out-of-sample embedding ``f_j(x) = sum_i alpha_ij K(x_i, x)``.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Points, training or new.

        Returns
        -------
        X_new : ndarray of shape (n_queries, n_components)
            The eigenfunctions at the points.
        """
        return self._eigenfunctions(X)
