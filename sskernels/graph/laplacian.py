"""Normalized graph Laplacian and its smallest eigenpairs.

``L_sym = I - D^{-1/2} W D^{-1/2}`` (Liu et al., Sec. 3).  The spectrum used by
the spectral kernels is the m smallest eigenpairs with ``lambda != 1`` (Liu et
al., Sec. 4.1 and Thm. 2: the out-of-sample extension eq. (17) divides by
``1 - lambda``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import eigsh

#: n above which the sparse (Lanczos) solver is used when few eigenpairs are needed
DENSE_MAX_N = 2500
#: eigenvalues within this distance of 1 count as "lambda = 1"
ONE_TOL = 1e-8


def degree_normalizer(W):
    """``D^{-1/2}`` as a vector; isolated nodes get 0 (their rows of S vanish)."""
    d = np.asarray(W.sum(axis=1)).ravel()
    with np.errstate(divide="ignore"):
        inv = np.where(d > 0, 1.0 / np.sqrt(d), 0.0)
    return d, inv


def normalized_adjacency(W):
    """``S = D^{-1/2} W D^{-1/2}`` as a sparse matrix."""
    _, inv = degree_normalizer(W)
    Dm = sp.diags(inv)
    return (Dm @ W @ Dm).tocsr()


def normalized_laplacian(W):
    """``L_sym = I - S``."""
    n = W.shape[0]
    return (sp.identity(n, format="csr") - normalized_adjacency(W)).tocsr()


@dataclass
class Spectrum:
    """Eigenpairs of ``L_sym`` in ascending order: ``values`` (k,), ``vectors`` (n, k)."""

    values: np.ndarray
    vectors: np.ndarray
    complete: bool  # True when all n eigenpairs are held

    def smallest(self, m, exclude_one=True):
        """The m smallest eigenpairs, skipping ``lambda = 1`` when asked (Liu Sec. 4.1)."""
        lam, V = self.values, self.vectors
        if exclude_one:
            keep = np.abs(lam - 1.0) > ONE_TOL
            lam, V = lam[keep], V[:, keep]
        if m is not None:
            if m > lam.size:
                raise ValueError(
                    f"asked for {m} eigenpairs with lambda != 1 but only {lam.size} are available")
            lam, V = lam[:m], V[:, :m]
        return lam, V


def laplacian_spectrum(W, m=None, solver="auto"):
    """Smallest eigenpairs of the normalized Laplacian of ``W``.

    ``m=None`` gives the full spectrum (dense).  ``solver="auto"`` uses dense
    ``eigh`` (all n pairs) when n <= :data:`DENSE_MAX_N` or m > n/4, else
    Lanczos (``eigsh`` on ``S``'s largest algebraic eigenvalues, which are
    ``1 - lambda``) for m + 10 pairs, so that eigenvalues equal to 1 can be
    skipped.
    """
    n = W.shape[0]
    S = normalized_adjacency(W)
    dense = solver == "dense" or (solver == "auto" and (m is None or n <= DENSE_MAX_N or m > n / 4))
    if dense:
        mu, U = eigh(S.toarray())
        lam = 1.0 - mu[::-1]
        V = U[:, ::-1]
        return Spectrum(np.clip(lam, 0.0, 2.0), np.ascontiguousarray(V), complete=True)
    kk = min(n - 1, m + 10)
    rng = np.random.default_rng(0)
    v0 = rng.standard_normal(n)
    mu, U = eigsh(S, k=kk, which="LA", v0=v0, tol=1e-10)
    order = np.argsort(-mu)
    lam = np.clip(1.0 - mu[order], 0.0, 2.0)
    return Spectrum(lam, np.ascontiguousarray(U[:, order]), complete=False)
