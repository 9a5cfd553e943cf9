"""Leading eigenpairs of an RBF Gram matrix over all points, memoized.

``K0 = exp(-||x_i - x_j||^2 / (2 w^2)) = sum_i s_i u_i u_i^T`` over every row of X
(labeled and unlabeled): the initial kernel of Hoi, Lyu & Chang's fast-decay spectral
kernel (DSK; Liu et al. 2009, eq. (8)), whose top eigenvectors span the learned kernel.
``K0`` comes from :func:`sskernels.kernels.rbf.rbf_kernel`, the package's only RBF code.

Nothing here depends on the labels, so :func:`rbf_spectrum` memoizes by
``(fingerprint(X), metric, width)``: every split, fold and candidate of a run shares
one eigendecomposition per width.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh

from sskernels.errors import ParameterError
from sskernels.hashing import fingerprint
from sskernels.kernels.rbf import rbf_kernel
from sskernels.memo import LRU

__all__ = [
    "RBFSpectrum",
    "rbf_spectrum",
    "NystromSpectrum",
    "nystrom_spectrum",
    "clear_rbf_cache",
    "rbf_cache_info",
    "RBF_RTOL",
    "RBF_DENSE_MAX_N",
]

#: eigenpairs of K0 with s_i <= RBF_RTOL * s_1 are dropped (the Nystrom extension divides by s_i)
RBF_RTOL = 1e-10
#: n above which only the requested top eigenpairs are computed
RBF_DENSE_MAX_N = 2500


@dataclass
class RBFSpectrum:
    """Leading eigenpairs of ``K0`` (largest first): ``values`` (k,), ``vectors`` (n, k).

    ``smallest(m)`` gives the first m pairs in the order the kernel uses them (for an
    RBF kernel the *largest* ``s_i``), the name :class:`sskernels.graph.Spectrum` uses;
    ``exclude_one`` is meaningless here (the Nystrom extension divides by ``s_i``, not
    by ``1 - lambda``) and ignored.  ``complete``: every pair with ``s_i > RBF_RTOL s_1``.
    """

    values: np.ndarray
    vectors: np.ndarray
    complete: bool

    def spectrum(self, m=None):
        """The spectrum itself, as :meth:`sskernels.graph.Graph.spectrum` is called.

        Parameters
        ----------
        m : int or None, default=None
            The number of pairs needed; ignored (the pairs are those computed).

        Returns
        -------
        RBFSpectrum
            ``self``.
        """
        return self

    def smallest(self, m, exclude_one=True):
        """The first m pairs in the kernel's order: the *largest* ``s_i`` first.

        Parameters
        ----------
        m : int or None
            The number of eigenpairs (at most those held, when the spectrum is not
            ``complete``); None: every pair held.
        exclude_one : bool, default=True
            Ignored (the name :meth:`sskernels.graph.Spectrum.smallest` takes).

        Returns
        -------
        values : ndarray of shape (k,)
            The eigenvalues, decreasing; ``k = min(m, values held)``.
        vectors : ndarray of shape (n, k)
            The eigenvectors, column by column.

        Raises
        ------
        ParameterError
            When more than the computed pairs are asked of a spectrum that is not
            ``complete``.
        """
        if m is not None and m > self.values.size and not self.complete:
            raise ParameterError(f"only {self.values.size} eigenpairs computed, {m} asked")
        k = self.values.size if m is None else min(m, self.values.size)
        return self.values[:k], self.vectors[:, :k]


#: entries kept (LRU).  One Wang et al. Table 1 spec holds 28 label-independent spectra (seven
#: widths for each of four kernel designs; 10 % of n vectors, a few MB each at n = 2007): with
#: room for fewer than 28, the cross-validation over widths would evict and recompute them on
#: every split
_RBF_CACHE_SIZE = 64
#: bytes the memoized spectra may take (:mod:`sskernels.memo`; the newest entry always kept)
_RBF_CACHE_BYTES = 2 * 2**30
#: the memoized RBF spectra and the learners' own label-independent spectra (:func:`cache_get`)
_RBF_CACHE = LRU(_RBF_CACHE_SIZE, max_bytes=_RBF_CACHE_BYTES, shared=__name__)
_RBF_STATS = {"hits": 0, "misses": 0}


def clear_rbf_cache():
    """Forget every memoized RBF spectrum (and the memoized median distances)."""
    from sskernels.kernels.rbf import clear_cache

    _RBF_CACHE.clear()
    clear_cache()
    _RBF_STATS.update(hits=0, misses=0)


def cache_put(key, spectrum):
    """Memoize ``spectrum`` under ``key`` (its arrays made read-only); returns it.

    Parameters
    ----------
    key : hashable
        The key (a learner's own artifact: a tuple that starts with a tag).
    spectrum : object
        The artifact to memoize.

    Returns
    -------
    object
        ``spectrum`` itself (its arrays now read-only).
    """
    return _RBF_CACHE.store(key, spectrum)


def cache_get(key):
    """A memoized artifact (now the most recent), or None.

    The learners' own label-independent
    spectra (e.g. Nystrom, keyed by a tuple that starts with a tag) share this LRU, so the
    runner hands them to its workers with the RBF spectra.

    Parameters
    ----------
    key : hashable
        The key it was stored under (:func:`cache_put`).

    Returns
    -------
    object or None
        The artifact, or None when it is not memoized.
    """
    return _RBF_CACHE.lookup(key)


def rbf_cache_info():
    """``{"hits", "misses", "size"}`` of the RBF eigendecomposition cache."""
    return dict(_RBF_STATS, size=len(_RBF_CACHE))


def rbf_spectrum(X, width, m=None, metric="euclidean", key=None):
    """Top-m eigenpairs ``K0 = sum_i s_i u_i u_i^T`` of the RBF matrix over all rows of X.

    Label-independent, so memoized (:data:`_RBF_CACHE`) by ``(fingerprint(X), metric,
    width)``: a later call for at most as many pairs returns the same object.  Dense
    ``eigh`` of all pairs for ``n <= 2500``, else only the top m (``subset_by_index``).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The points, labeled and unlabeled.
    width : float
        The RBF width (:func:`~sskernels.kernels.rbf.rbf_kernel`).
    m : int or None, default=None
        The number of top eigenpairs (``1 <= m <= n``); None gives every pair with
        ``s_i > RBF_RTOL s_1``.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The metric of the kernel.
    key : str, default=None
        A precomputed fingerprint of X (:func:`~sskernels.graph.fingerprint`).

    Returns
    -------
    spectrum : RBFSpectrum
        ``values`` (k,) in decreasing order, ``vectors`` (n, k) and ``complete`` (every
        pair with ``s_i > RBF_RTOL s_1`` held).

    Raises
    ------
    ValueError
        When ``m`` is not in ``[1, n]``.

    References
    ----------
    S. Hoi, M. Lyu and E. Chang. Learning the unified kernel machines for
    classification. In Proc. KDD, 2006.

    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: eq. (8).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.spectra import rbf_spectrum
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> spectrum = rbf_spectrum(X, width=5.0)
    >>> spectrum.values.round(4), spectrum.vectors.shape, spectrum.complete
    (array([1.9281, 0.8647, 0.2072]), (3, 3), True)
    >>> rbf_spectrum(X, width=5.0, m=2) is spectrum          # memoized
    True
    """
    n = X.shape[0]
    if m is not None and not 1 <= m <= n:
        raise ParameterError(f"n_components must be in [1, {n}], got {m}")
    fp = fingerprint(X) if key is None else key
    ck = (fp, metric, float(width))
    hit = _RBF_CACHE.get(ck)
    if hit is not None and (hit.complete or (m is not None and hit.values.size >= m)):
        _RBF_CACHE.lookup(ck)
        _RBF_STATS["hits"] += 1
        return hit
    _RBF_STATS["misses"] += 1
    K0 = rbf_kernel(X, X, width, metric)
    if m is None or n <= RBF_DENSE_MAX_N:
        s, U = eigh(K0)
        full = True
    else:
        s, U = eigh(K0, subset_by_index=[n - m, n - 1])
        full = False
    s, U = s[::-1], U[:, ::-1]
    keep = s > RBF_RTOL * max(s[0], 0.0)
    s, U = s[keep], U[:, keep]
    complete = full or keep.size > keep.sum()
    if m is not None and m < s.size:  # hold only what was asked (memory: n x m per width)
        s, U, complete = s[:m], U[:, :m], False
    spec = RBFSpectrum(np.ascontiguousarray(s), np.ascontiguousarray(U), complete)
    return _RBF_CACHE.store(ck, spec)


@dataclass
class NystromSpectrum:
    """Nystrom approximation of the leading eigenpairs of an RBF matrix ``K0`` (n x n), or of
    its degree-normalized form ``S = D^{-1/2} K0 D^{-1/2}`` (the largest eigenpairs of ``S`` are
    the smallest of the normalized Laplacian ``I - S``).

    ``X_landmarks`` (the m landmark rows), ``values`` = eigenvalues ``lambda_i`` of the
    landmark block ``W`` (largest first, those ``<= RBF_RTOL lambda_1`` dropped),
    ``basis`` = ``U_i sqrt(m/n) / lambda_i`` (m x k), ``landmark_degrees`` (the estimated
    degrees of the landmarks; None for ``K0``).  :meth:`extend` gives the eigenvectors'
    entries at any points (Williams & Seeger 2001; Wang et al. eq. (4)).
    """

    landmarks: np.ndarray
    X_landmarks: object
    values: np.ndarray
    basis: np.ndarray
    width: float
    metric: str
    n: int
    landmark_degrees: np.ndarray | None = None

    def rows(self, Z):
        """``K0(z, X_landmarks)``, or ``S(z, X_landmarks)`` when normalized.

        ``S`` with the degree estimate
        ``d(z) = (n/m) sum_{landmarks j} K0(z, x_j)`` (unbiased for uniform landmarks).

        Parameters
        ----------
        Z : ndarray or sparse matrix of shape (s, n_features)
            The points.

        Returns
        -------
        ndarray of shape (s, m)
            Their rows against the m landmarks.
        """
        C = rbf_kernel(Z, self.X_landmarks, self.width, self.metric)
        if self.landmark_degrees is None:
            return C
        d = (self.n / C.shape[1]) * C.sum(axis=1)
        return C / np.sqrt(d)[:, None] / np.sqrt(self.landmark_degrees)[None, :]

    def extend(self, Z):
        """The eigenvectors' entries at the rows of Z: ``rows(Z) @ basis``.

        Parameters
        ----------
        Z : ndarray or sparse matrix of shape (s, n_features)
            The points.

        Returns
        -------
        ndarray of shape (s, k)
            The k approximate eigenvectors' entries at the points.
        """
        return self.rows(Z) @ self.basis


def nystrom_spectrum(X, width, landmarks, n_components, metric="euclidean", normalized=False):
    """The top ``n_components`` eigenvectors of ``K0`` (or of ``S``) by the Nystrom method.

    With ``W = U diag(lambda) U^T`` the landmark block, the i-th approximate eigenvector
    is ``v_i = sqrt(m/n) / lambda_i C U_i`` (C: the rows of every point against the
    landmarks; eigenvalue ``(n/m) lambda_i``), and :meth:`NystromSpectrum.extend` applies
    the same formula at any point (Wang et al. eq. (4)).  With every row a landmark it is
    the exact eigendecomposition (exact degrees).  Only the top pairs of ``W`` are
    computed.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The points.
    width : float
        The RBF width of ``K0``.
    landmarks : array-like of int of shape (m,)
        Positions of the landmark rows (the caller's rule; Williams & Seeger draw them
        uniformly, Wang et al. 2015, Alg. 1 step 3 give none).
    n_components : int
        The number of top eigenvectors (at most m; pairs with ``lambda_i <= RBF_RTOL
        lambda_1`` are dropped).
    metric : {"euclidean", "cosine"}, default="euclidean"
        The metric of the kernel.
    normalized : bool, default=False
        True: the eigenvectors of ``S = D^{-1/2} K0 D^{-1/2}``, ``S``'s rows with the
        degrees estimated from the landmarks (:meth:`NystromSpectrum.rows`).

    Returns
    -------
    spectrum : NystromSpectrum
        The landmarks, eigenvalues and basis, to extend the eigenvectors to any point.
    V : ndarray of shape (n_samples, k)
        The k approximate eigenvectors at the rows of X.

    References
    ----------
    C. K. I. Williams and M. Seeger. Using the Nystrom method to speed up kernel
    machines. In NIPS 13, 2001.

    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Algorithm 1, eq. (4).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.spectra import nystrom_spectrum
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> spectrum, V = nystrom_spectrum(X, 5.0, landmarks=[0, 1, 2], n_components=2)
    >>> spectrum.values.round(4), V.shape               # every row a landmark: exact
    (array([1.9281, 0.8647]), (3, 2))
    >>> bool(np.allclose(spectrum.extend(X), V))
    True
    """
    n = X.shape[0]
    idx = np.asarray(landmarks)
    m = idx.size
    spec = NystromSpectrum(idx, X[idx], np.zeros(0), np.zeros((m, 0)), float(width), metric, n)
    if normalized:
        spec.landmark_degrees = (n / m) * rbf_kernel(X[idx], spec.X_landmarks, width, metric).sum(1)
    C = spec.rows(X)
    k = int(min(n_components, m))
    lam, U = eigh(C[idx], subset_by_index=[m - k, m - 1])
    lam, U = lam[::-1], U[:, ::-1]
    keep = lam > RBF_RTOL * max(lam[0], 0.0)
    spec.values, spec.basis = lam[keep], U[:, keep] * (np.sqrt(m / n) / lam[keep])
    return spec, C @ spec.basis
