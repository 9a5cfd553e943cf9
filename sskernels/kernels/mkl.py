"""The base kernels of SimpleMKL: a bank of Gaussian and polynomial kernels, unit trace.

Mao & Tsang (UAI 2010), Sec. 5.3, after the experiments of SimpleMKL
(Rakotomamonjy, Bach, Canu & Grandvalet, JMLR 2008): 10 Gaussian kernels
``exp(-||x - z||^2 / (2 sigma^2))`` with ``sigma`` in :data:`GAUSSIAN_WIDTHS`
and 3 polynomial kernels ``(<x, z> + 1)^q`` with ``q`` in :data:`POLY_DEGREES`,
each normalized to unit trace on the training points.  The definitions are
those of the SimpleMKL toolbox (SVM-KM ``svmkernel``: 'gaussian', 'poly'); all
kernels take all variables (no per-variable kernels).  The widths are absolute,
on the features as the data set's preprocessing leaves them.  The Gaussian
kernels are :func:`sskernels.kernels.rbf.rbf` (the package's only RBF code).
"""

from __future__ import annotations

import numpy as np

from sskernels.errors import ParameterError
from sskernels.kernels.rbf import rbf, squared_distances

#: Gaussian widths sigma of SimpleMKL's experiments (Mao & Tsang Sec. 5.3)
GAUSSIAN_WIDTHS = (0.5, 1.0, 2.0, 5.0, 7.0, 10.0, 12.0, 15.0, 17.0, 20.0)
#: polynomial degrees (Mao & Tsang Sec. 5.3)
POLY_DEGREES = (1, 2, 3)


def kernel_names(gaussian_widths=GAUSSIAN_WIDTHS, poly_degrees=POLY_DEGREES):
    """Names of the base kernels, in the order of :func:`base_kernels`.

    Parameters
    ----------
    gaussian_widths : sequence of float, default=GAUSSIAN_WIDTHS
        The widths ``sigma`` of the Gaussian kernels.
    poly_degrees : sequence of int, default=POLY_DEGREES
        The degrees ``q`` of the polynomial kernels.

    Returns
    -------
    list of str
        ``"gaussian(sigma=...)"`` for each width, then ``"poly(degree=...)"`` for each
        degree.
    """
    return [f"gaussian(sigma={float(s):g})" for s in gaussian_widths] + [
        f"poly(degree={int(q)})" for q in poly_degrees
    ]


def base_kernels(A, B=None, gaussian_widths=GAUSSIAN_WIDTHS, poly_degrees=POLY_DEGREES, which=None):
    """Raw (unnormalized) base kernels between the rows of ``A`` and ``B``, ``(M, nA, nB)``.

    Gaussian ``exp(-||x - z||^2 / (2 sigma^2))`` for each ``sigma`` in
    ``gaussian_widths``, then polynomial ``(<x, z> + 1)^q`` for each ``q`` in
    ``poly_degrees`` (the names: :func:`kernel_names`).

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (nA, n_features)
        The first point set.
    B : ndarray or sparse matrix of shape (nB, n_features), default=None
        The second point set; None: ``A``.
    gaussian_widths : sequence of float, default=GAUSSIAN_WIDTHS
        The widths ``sigma`` of the Gaussian kernels.
    poly_degrees : sequence of int, default=POLY_DEGREES
        The degrees ``q`` of the polynomial kernels.
    which : array-like of bool or int, default=None
        Booleans or indices over the ``M`` kernels: restricts the output to those
        kernels; None: all.

    Returns
    -------
    K : ndarray of shape (M, nA, nB)
        The base kernels (M of them, or those of ``which``), not normalized.

    References
    ----------
    Q. Mao and I. W. Tsang. Parameter-free spectral kernel learning. In UAI, 2010:
    Sec. 5.3.

    A. Rakotomamonjy, F. R. Bach, S. Canu and Y. Grandvalet. SimpleMKL. Journal of
    Machine Learning Research, 9:2491-2521, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.mkl import base_kernels
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> base_kernels(X).shape                 # 10 Gaussian and 3 polynomial kernels
    (13, 3, 3)
    >>> base_kernels(X, which=[10])[0]        # the first polynomial: <x, z> + 1
    array([[  1.,   1.,   1.],
           [  1.,  26.,  51.],
           [  1.,  51., 101.]])
    """
    B = A if B is None else B
    M = len(gaussian_widths) + len(poly_degrees)
    idx = np.arange(M) if which is None else np.arange(M)[np.asarray(which)]
    out = np.empty((idx.size, A.shape[0], B.shape[0]))
    n_g = len(gaussian_widths)
    D2 = G = None
    for k, m in enumerate(idx):
        if m < n_g:
            if D2 is None:
                D2 = squared_distances(A, B)
            out[k] = rbf(D2, gaussian_widths[m])
        else:
            if G is None:
                G = A @ B.T
                G = np.asarray(G.todense()) if hasattr(G, "todense") else np.asarray(G)
                G = G + 1.0
            out[k] = G ** int(poly_degrees[m - n_g])
    return out


def unit_trace_scales(Ks):
    """``1 / tr(K_m)`` for each base kernel ``(M, n, n)`` (unit-trace normalization).

    Mao & Tsang Sec. 5.3 (the toolbox's ``UnitTraceNormalization``).  A zero
    trace cannot occur for these kernels (Gaussian diagonal 1, polynomial
    diagonal ``>= 1``); it is refused rather than divided by.

    Parameters
    ----------
    Ks : ndarray of shape (M, n, n)
        The base kernels on the training points.

    Returns
    -------
    ndarray of shape (M,)
        ``1 / tr(K_m)``.

    Raises
    ------
    ParameterError
        If a base kernel's trace is not positive.
    """
    tr = np.einsum("mii->m", Ks)
    if np.any(tr <= 0):
        raise ParameterError("a base kernel has zero trace on the training points")
    return 1.0 / tr
