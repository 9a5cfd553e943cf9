"""Kernel machines on learned kernels: "TSK+SVM", "OSK+SVM", "DSK+SVM" (Liu et al., Sec. 5).

A kernel learner (any registered method exposing ``kernel_`` and
``kernel(A, B)``) is fitted on all points with the partial labels; an SVM is
then trained on the labeled block of the learned kernel and predicts the
unlabeled points from their rows of it, and unseen points through the kernel
learner's out-of-sample extension (for TSK, Liu et al. eq. (17)-(19)).

Choices the paper leaves open, made here:

* the kernel is scaled to unit mean diagonal before the SVM, so that one C
  grid fits every learner (a positive scaling does not change the kernel's
  geometry, only the meaning of C);
* C is selected by ``C_folds``-fold cross-validation on the labeled points
  only, with the learned kernel held fixed; multi-class by scikit-learn's
  one-vs-one ``SVC``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from sskernels.learners.base import check_partial_labels
from sskernels.learners.selection import select_on_labeled

GRAPH_PARAMS = ("n_neighbors", "weights", "sigma", "metric")


class KernelSVM(ClassifierMixin, BaseEstimator):
    """An SVM on the labeled block of a kernel learned from labeled and unlabeled points.

    Parameters
    ----------
    kernel : name of a registered kernel learner ("tsk", "rsk", "osk", "dsk", ...).
    kernel_params : its parameters (a mapping).
    n_neighbors, weights, sigma, metric : graph parameters, passed to the kernel
        learner when it takes them (the spec's ``graph`` section lands here).
    C : the SVM's C, or "auto" (selected from ``C_grid`` on the labeled points).
    """

    def __init__(self, kernel="tsk", kernel_params=None, n_neighbors=6, weights="hein-maier",
                 sigma=None, metric="euclidean", C="auto",
                 C_grid=(1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0), C_folds=5, random_state=0):
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.C = C
        self.C_grid = C_grid
        self.C_folds = C_folds
        self.random_state = random_state

    def _make_learner(self):
        from sskernels.learners.registry import make_method

        learner = make_method(self.kernel)
        accepted = learner.get_params(deep=False)
        params = {k: getattr(self, k) for k in GRAPH_PARAMS if k in accepted}
        for key, value in (self.kernel_params or {}).items():
            if key not in accepted:
                raise ValueError(f"kernel_params.{key} is not a parameter of {self.kernel} "
                                 f"({', '.join(sorted(accepted))})")
            params[key] = value
        if not hasattr(learner, "kernel"):
            raise ValueError(f"{self.kernel} does not learn a kernel")
        return learner.set_params(**params)

    def fit(self, X, y):
        classes, labeled, y_enc = check_partial_labels(y)
        self.classes_, self.labeled_ = classes, labeled
        self.learner_ = self._make_learner().fit(X, y)
        # the learner's classes are the same labels, encoded the same way (np.unique)
        K = np.asarray(self.learner_.kernel_)
        scale = float(np.mean(np.diag(K)))
        self.kernel_scale_ = scale if scale > 0 else 1.0
        K = K / self.kernel_scale_
        K_L = K[:, labeled]
        C = self.C
        if isinstance(C, str):
            if C != "auto":
                raise ValueError(f"C must be a positive number or 'auto', got {C!r}")
            K_LL = K_L[labeled]

            def predict_fold(c, train, test):
                if np.unique(y_enc[train]).size < 2:
                    return np.full(test.size, y_enc[train][0])
                svc = SVC(kernel="precomputed", C=c).fit(K_LL[np.ix_(train, train)], y_enc[train])
                return svc.predict(K_LL[np.ix_(test, train)])

            C, self.C_scores_ = select_on_labeled(list(self.C_grid), predict_fold, y_enc,
                                                  n_folds=self.C_folds,
                                                  random_state=self.random_state, prefer="first")
        if not C > 0:
            raise ValueError(f"C must be > 0, got {C}")
        self.C_ = float(C)
        self.svc_ = SVC(kernel="precomputed", C=self.C_).fit(K_L[labeled], y_enc)
        self.transduction_ = classes[self.svc_.predict(K_L)]
        return self

    @property
    def kernel_(self):
        return self.learner_.kernel_ / self.kernel_scale_

    def decision_function(self, X):
        check_is_fitted(self, "svc_")
        K_xL = self.learner_.kernel(X, None)[:, self.labeled_] / self.kernel_scale_
        return self.svc_.decision_function(K_xL)

    def predict(self, X):
        check_is_fitted(self, "svc_")
        K_xL = self.learner_.kernel(X, None)[:, self.labeled_] / self.kernel_scale_
        return self.classes_[self.svc_.predict(K_xL)]
