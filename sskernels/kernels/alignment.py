"""Kernel-target alignment (Cristianini, Shawe-Taylor, Elisseeff & Kandola, NIPS 2002).

The empirical alignment of two kernel matrices is
``A(K1, K2) = <K1, K2>_F / (||K1||_F ||K2||_F)``; a spectral kernel
``K = sum_t mu_t u_t u_t^T`` is aligned with the *ideal kernel* ``T`` of the labels on
its labeled block ``K_LL``.  For ``K_LL = sum_t mu_t (u_t u_t^T)_LL``, with
``M = [vec((u_1 u_1^T)_LL), ..., vec((u_m u_m^T)_LL)]`` (``l^2 x m``)::

    <K_LL, T>_F = a^T mu,   a = M^T vec(T);     ||K_LL||_F^2 = mu^T G mu,   G = M^T M

(Zhu et al.'s QCQP as written in Wang et al. 2015, Sec. 2).  :func:`alignment_terms`
gives ``G`` and ``a`` without forming ``M``.

Choice the papers leave open, multi-class ideal kernel: ``target="simplex"`` (default),
``T_ij = 1`` for a pair of the same class and ``-1/(c-1)`` otherwise — the Gram matrix
of unit class codes at the vertices of a regular simplex, so ``T`` is PSD of rank
``c-1``, every ``a_t >= 0``, and for ``c = 2`` it is Zhu et al.'s ``yy^T`` with
``y in {+-1}``.  ``target="pm1"`` uses ``-1`` for every differently labeled pair (not
PSD for ``c > 2``).  With a single labeled class ``T = 11^T``.

:func:`centered_alignment` is Cortes, Mohri & Rostamizadeh's (2010) variant on centered
matrices, the criterion of alignf (Wang et al. 2015, Sec. 2).
"""

from __future__ import annotations

import numpy as np

from sskernels.errors import ParameterError

__all__ = [
    "TARGETS",
    "ideal_kernel",
    "target_norm",
    "alignment_terms",
    "kernel_alignment",
    "centered_alignment",
    "factored_centered_alignment",
]

TARGETS = ("simplex", "pm1")


def _target_weights(n_classes, target):
    """``(w_same, w_diff)``: the entries of T for same-class and different-class pairs."""
    if target not in TARGETS:
        raise ParameterError(f"target must be one of {TARGETS}, got {target!r}")
    if n_classes < 2:
        return 1.0, 1.0  # one labeled class: T = 11^T (w_diff never used)
    if target == "simplex":
        return 1.0, -1.0 / (n_classes - 1)
    return 1.0, -1.0


def ideal_kernel(y_enc, n_classes=None, target="simplex"):
    """The ``l x l`` ideal kernel ``T`` of encoded labels (explicit; for small l and tests).

    Parameters
    ----------
    y_enc : array-like of int of shape (l,)
        The labeled points' classes, encoded as ``0..c-1``.
    n_classes : int, default=None
        The number of classes c; None: ``max(y_enc) + 1``.
    target : {"simplex", "pm1"}, default="simplex"
        ``"simplex"``: ``T_ij = 1`` if ``y_i = y_j`` else ``-1/(c-1)`` (for ``c = 2``
        Zhu et al.'s ``yy^T``); ``"pm1"``: ``-1`` for every differently labeled pair.
        With a single class ``T = 11^T``.

    Returns
    -------
    T : ndarray of shape (l, l)
        The ideal kernel.

    Raises
    ------
    ValueError
        For an unknown ``target``.

    Examples
    --------
    >>> from sskernels.kernels.alignment import ideal_kernel
    >>> ideal_kernel([0, 0, 1, 2])
    array([[ 1. ,  1. , -0.5, -0.5],
           [ 1. ,  1. , -0.5, -0.5],
           [-0.5, -0.5,  1. , -0.5],
           [-0.5, -0.5, -0.5,  1. ]])
    >>> ideal_kernel([0, 0, 1], target="pm1")
    array([[ 1.,  1., -1.],
           [ 1.,  1., -1.],
           [-1., -1.,  1.]])
    """
    y_enc = np.asarray(y_enc)
    c = int(y_enc.max()) + 1 if n_classes is None else int(n_classes)
    w_same, w_diff = _target_weights(c, target)
    same = y_enc[:, None] == y_enc[None, :]
    return np.where(same, w_same, w_diff)


def target_norm(C_L, target="simplex"):
    """``||T||_F`` from the class counts of the indicator matrix ``C_L`` (l x c).

    Parameters
    ----------
    C_L : ndarray of shape (l, c)
        The class indicator matrix of the labeled points (one 1 per row).
    target : {"simplex", "pm1"}, default="simplex"
        The ideal kernel's form (:func:`ideal_kernel`).

    Returns
    -------
    float
        The Frobenius norm of the ideal kernel ``T``.

    Raises
    ------
    ParameterError
        For an unknown ``target``.
    """
    counts = np.asarray(C_L).sum(axis=0)
    l, c = counts.sum(), C_L.shape[1]
    w_same, w_diff = _target_weights(c, target)
    same_pairs = float(np.sum(counts**2))
    return float(np.sqrt(w_same**2 * same_pairs + w_diff**2 * (l**2 - same_pairs)))


def alignment_terms(U_L, C_L, target="simplex"):
    """``(G, a)`` of the alignment problem without forming ``M`` (``l^2 x m``).

    ``G = M^T M = (U_L^T U_L) o (U_L^T U_L)`` (Hadamard square;
    ``G_st = (u_sL^T u_tL)^2``), so that ``||M mu||^2 = mu^T G mu = ||K_LL||_F^2``;
    ``a = M^T vec(T)``, ``a_t = u_tL^T T u_tL``, so that ``a^T mu = <K_LL, T>_F``.  With
    ``T = w_d 11^T + (w_s - w_d) C C^T``:
    ``a_t = w_d (1^T u_tL)^2 + (w_s - w_d) ||C^T u_tL||^2``.  Cost ``O(l m^2)``.

    Parameters
    ----------
    U_L : array-like of shape (l, m)
        The labeled rows of the eigenvectors ``u_t`` (as columns).
    C_L : array-like of shape (l, c)
        The class indicator matrix of the labeled points.
    target : {"simplex", "pm1"}, default="simplex"
        The ideal kernel's form (:func:`ideal_kernel`).

    Returns
    -------
    G : ndarray of shape (m, m)
        ``M^T M``.
    a : ndarray of shape (m,)
        ``M^T vec(T)``.

    Raises
    ------
    ParameterError
        For an unknown ``target``.
    """
    U_L = np.asarray(U_L, dtype=float)
    C_L = np.asarray(C_L, dtype=float)
    gram = U_L.T @ U_L
    G = gram * gram
    w_same, w_diff = _target_weights(C_L.shape[1], target)
    class_sums = C_L.T @ U_L  # (c, m): sum of u_tL over each class
    total = U_L.sum(axis=0)
    if C_L.shape[1] < 2:
        a = total**2
    else:
        a = w_diff * total**2 + (w_same - w_diff) * np.sum(class_sums**2, axis=0)
    return G, a


def kernel_alignment(K1, K2):
    """Cristianini et al.'s empirical alignment ``<K1, K2>_F / (||K1||_F ||K2||_F)``.

    A zero matrix has no direction: its alignment is taken as 0.

    Parameters
    ----------
    K1 : array-like of shape (l, l)
        A kernel matrix.
    K2 : array-like of shape (l, l)
        Another kernel matrix on the same points.

    Returns
    -------
    alignment : float
        The alignment, in ``[-1, 1]``.

    See Also
    --------
    centered_alignment : The alignment of the centered matrices.

    References
    ----------
    N. Cristianini, J. Shawe-Taylor, A. Elisseeff and J. Kandola. On kernel-target
    alignment. In NIPS, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.alignment import ideal_kernel, kernel_alignment
    >>> T = ideal_kernel([0, 0, 1, 1])
    >>> round(kernel_alignment(T, T), 6), round(kernel_alignment(T, np.eye(4)), 6)
    (1.0, 0.5)
    >>> kernel_alignment(T, np.zeros((4, 4)))
    0.0
    """
    K1, K2 = np.asarray(K1), np.asarray(K2)
    den = np.linalg.norm(K1) * np.linalg.norm(K2)
    return float(np.sum(K1 * K2) / den) if den > 0 else 0.0


def centered_alignment(K, T):
    """Cortes et al.'s centered alignment ``<K_c, T_c>_F / (||K_c||_F ||T_c||_F)``.

    ``K_c = H K H``, ``H = I - 11^T / l``: the criterion of alignf (Wang et al. Sec. 2).
    0 when either centered matrix is 0.

    Parameters
    ----------
    K : array-like of shape (l, l)
        A kernel matrix.
    T : array-like of shape (l, l)
        The target, e.g. the ideal kernel (:func:`ideal_kernel`).

    Returns
    -------
    alignment : float
        The centered alignment, in ``[-1, 1]``.

    References
    ----------
    C. Cortes, M. Mohri and A. Rostamizadeh. Two-stage learning kernel algorithms. In
    Proc. ICML, 2010.

    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Sec. 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.alignment import centered_alignment, ideal_kernel
    >>> T = ideal_kernel([0, 0, 1, 1])
    >>> round(centered_alignment(T, T), 6)
    1.0
    >>> centered_alignment(np.ones((4, 4)), T)        # a constant kernel centers to 0
    0.0
    """

    def center(A):
        A = np.asarray(A, dtype=float)
        return A - A.mean(axis=0) - A.mean(axis=1)[:, None] + A.mean()

    return kernel_alignment(center(K), center(T))


def factored_centered_alignment(P, mu, y_enc, n_classes=None, target="simplex"):
    """:func:`centered_alignment` of ``K = P diag(mu) P^T`` with ``ideal_kernel(y_enc)``.

    Computed without the ``u x u`` matrices (``P``: ``u x m``, the kernel's factor on the
    points).

    With ``P_c = H P`` (columns centered), ``H T H = (w_s - w_d) H C C^T H`` (``H 1 = 0``
    removes ``T``'s constant part) and ``<H K H, H T H> = <H K H, T>``::

        <K_c, T_c> = (w_s - w_d) sum_m mu_m ||C^T p_cm||^2,
        ||K_c||^2  = mu^T (G o G) mu,  G = P_c^T P_c  (or ||(P_c mu) P_c^T||^2 when m > u),
        ||T_c||    = |w_s - w_d| ||C^T H C||,  C^T H C = diag(n) - n n^T / u

    (``n``: the class counts): ``O(u m^2)`` instead of ``O(u^2 m)`` plus the ``u x u``
    centering, over the columns with ``mu_m != 0`` only.  Equal to the definition up to
    rounding (tested); 0 when either centered matrix is 0, as :func:`kernel_alignment`.

    Parameters
    ----------
    P : array-like of shape (u, m)
        The kernel's factor on the points.
    mu : array-like of shape (m,)
        The weights of its columns.
    y_enc : array-like of int of shape (u,)
        The points' classes, encoded as ``0..c-1``.
    n_classes : int, default=None
        The number of classes c; None: ``max(y_enc) + 1``.
    target : {"simplex", "pm1"}, default="simplex"
        The ideal kernel's form (:func:`ideal_kernel`).

    Returns
    -------
    float
        The centered alignment, in ``[-1, 1]`` (0 for fewer than two classes).

    Raises
    ------
    ParameterError
        For an unknown ``target``.
    """
    y_enc = np.asarray(y_enc)
    c = int(y_enc.max()) + 1 if n_classes is None else int(n_classes)
    mu = np.asarray(mu, dtype=float)
    S = mu != 0
    P = np.asarray(P, dtype=float)[:, S]
    mu = mu[S]
    u = P.shape[0]
    w_same, w_diff = _target_weights(c, target)
    if c < 2 or u == 0:
        return 0.0  # T = 11^T: centered, it is 0
    Pc = P - P.mean(axis=0)
    C = (y_enc[:, None] == np.arange(c)[None, :]).astype(float)
    counts = C.sum(axis=0)
    CHC = np.diag(counts) - np.outer(counts, counts) / u
    t_norm = abs(w_same - w_diff) * float(np.linalg.norm(CHC))
    num = (w_same - w_diff) * float(np.sum((C.T @ Pc) ** 2, axis=0) @ mu)
    if Pc.shape[1] <= u:
        G = Pc.T @ Pc
        k_norm2 = float(mu @ ((G * G) @ mu))
    else:
        k_norm2 = float(np.sum(((Pc * mu) @ Pc.T) ** 2))
    den = np.sqrt(max(k_norm2, 0.0)) * t_norm
    return float(num / den) if den > 0 else 0.0
