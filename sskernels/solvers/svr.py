"""epsilon-SVR fits, one per target column (scikit-learn's libsvm ``SVR``), with an
iteration cap that is noted when reached.

Examples
--------
>>> import numpy as np
>>> from sskernels.solvers.svr import fit_svrs
>>> X = np.linspace(0, 1, 20)[:, None]
>>> Y = np.c_[X[:, 0], 1 - X[:, 0]]
>>> [type(m).__name__ for m in fit_svrs(X, Y, kernel="linear", C=10.0)]
['SVR', 'SVR']
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVR

#: libsvm's iteration cap for the SVRs (scikit-learn's default: none).  A learned kernel of
#: low rank at a large C can take millions of iterations; the cap stops such a fit early,
#: and a final fit that reaches it is a note
SVR_MAX_ITER = 20_000


def fit_svrs(K_or_X, Y_L, report=None, **svr_params):
    """Fit one epsilon-SVR per target column of ``Y_L``.

    One ``sklearn.svm.SVR(max_iter=SVR_MAX_ITER, **svr_params)`` per target column of
    ``Y_L``; a fit stopped by the cap is noted in ``report`` (when given).

    Parameters
    ----------
    K_or_X : array-like of shape (l, l) or (l, d)
        The training kernel (with ``kernel="precomputed"``) or the training points.
    Y_L : ndarray of shape (l, c)
        The targets, one column per SVR.
    report : FitReport, default=None
        The fit report that receives a ``"degenerate"`` note per fit stopped by the cap;
        None for none.
    **svr_params : dict
        Further parameters of ``sklearn.svm.SVR`` (``kernel``, ``C``, ``epsilon``, ...).

    Returns
    -------
    list of sklearn.svm.SVR
        The fitted SVRs, one per column of ``Y_L``.
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    out = []
    for j in range(Y_L.shape[1]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = SVR(max_iter=SVR_MAX_ITER, **svr_params).fit(K_or_X, Y_L[:, j])
        if report is not None and np.max(m.n_iter_) >= SVR_MAX_ITER:
            report.note(
                "degenerate",
                f"libsvm stopped at max_iter = {SVR_MAX_ITER} (target {j}, "
                f"C = {svr_params.get('C')}): the SVR is not fully converged",
            )
        out.append(m)
    return out
