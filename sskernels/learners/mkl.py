"""SimpleMKL: multiple kernel learning for the SVM, a supervised baseline.

A. Rakotomamonjy, F. Bach, S. Canu and Y. Grandvalet, *SimpleMKL*, JMLR 9
(2008) 2491-2521 — the supervised MKL baseline of Mao & Tsang (UAI 2010),
Sec. 5.3 / Table 2.  Only the labeled points are used for training.

The estimator minimizes ``J(d)``, the optimal SVM value with the kernel
``sum_m d_m K_m``, over the simplex (SimpleMKL Sec. 2-3, Algorithm 1; the
solver, its duality-gap stop and its fallback stops are
:mod:`sskernels.solvers.mkl`), on the base kernels of
:mod:`sskernels.kernels.mkl` (10 Gaussian + 3 polynomial, Mao & Tsang Sec. 5.3).

Choices, each stated where it is used:

* Unit-trace normalization (Mao & Tsang Sec. 5.3; the toolbox's
  ``UnitTraceNormalization``): ``K_m <- K_m / tr(K_m[L, L])`` over the training
  (labeled) points; the same factor scales the cross kernels with new points.
  Inside the cross-validation the factor is recomputed on each fold's training
  points (the fold fit is a complete, honest fit).
* Multi-class: one-vs-rest with ONE shared ``d`` (SimpleMKL Sec. 4; label =
  class of the largest decision value).  Two classes are one binary problem
  (+1 = ``classes_[1]``).
* Scale of C: with unit-trace kernels ``K_ij ~ 1/l``, so small C (below about
  1 for l = 100) leaves every ``alpha_i`` at its bound and predicts one class
  (reported as a degenerate fit); the useful part of Mao & Tsang's grid is
  C >= 10.  ``C = 100`` when used directly (a choice: the paper states no
  single value).
* Selection of C (the ``simplemkl`` method's default, :attr:`SimpleMKL._selection`):
  5-fold cross-validated accuracy on the labeled points only
  (:class:`~sskernels.learners.selection.SelectOnLabeled`), each candidate
  running the full MKL on the training folds (:meth:`SimpleMKL._fold_predictor`
  shares the raw base kernels between folds and candidates); the grid is Mao &
  Tsang's :data:`C_GRID`, ties go to the largest C (as the supervised SVM
  baseline).  Mao & Tsang instead report the best C of the grid on average
  over the test splits (they do no CV); a selection on the test labels is not
  offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.errors import ParameterError
from sskernels.kernels.mkl import (  # noqa: F401  (re-exported: the old home of these names)
    GAUSSIAN_WIDTHS,
    POLY_DEGREES,
    base_kernels,
    kernel_names,
    unit_trace_scales,
)
from sskernels.learners.base import SemiSupervisedClassifier
from sskernels.solvers.mkl import (  # noqa: F401  (re-exported: the old home of these names)
    MKLResult,
    SVMSolution,
    descent_direction,
    duality_gap,
    mkl_gradient,
    simplemkl,
    svm_solution,
)
from sskernels.solvers.report import SolveInfo

#: C grid (Mao & Tsang Sec. 5.3); selected with ties to the largest C
C_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3)


def _targets(y_enc, n_classes):
    """±1 targets of the binary problems: one for two classes, one-vs-rest otherwise."""
    if n_classes == 2:
        return np.where(y_enc == 1, 1.0, -1.0)[None, :]
    return np.where(y_enc[None, :] == np.arange(n_classes)[:, None], 1.0, -1.0)


@dataclass
class _Model:
    classes: np.ndarray  # encoded classes present in training
    d: np.ndarray
    scales: np.ndarray
    beta: np.ndarray | None  # None: one class in training (a CV fold), constant prediction
    intercept: np.ndarray | None
    result: MKLResult | None


class SimpleMKL(SemiSupervisedClassifier):
    """SimpleMKL SVM on the labeled points only (Rakotomamonjy et al. 2008; Mao & Tsang Table 2).

    Minimizes ``J(d)``, the optimal SVM value with the kernel ``sum_m d_m K_m``, over the
    simplex (SimpleMKL's reduced-gradient Algorithm 1, stopped by the duality gap), on
    Gaussian and polynomial base kernels.  Each base kernel is normalized to unit trace on
    the training points, the same factor applied to cross kernels with new points;
    multi-class is one-vs-rest with one shared ``d`` (module docstring).  A supervised
    baseline: only the labeled points are used for training.

    Parameters
    ----------
    gaussian_widths : array-like of float, default=(0.5, 1, 2, 5, 7, 10, 12, 15, 17, 20)
        Widths ``sigma`` of the Gaussian base kernels ``exp(-||x - z||^2 / (2 sigma^2))``
        (the default, :data:`GAUSSIAN_WIDTHS`: Mao & Tsang Sec. 5.3).
    poly_degrees : array-like of int, default=(1, 2, 3)
        Degrees ``q`` of the polynomial base kernels ``(<x, z> + 1)^q`` (the default,
        :data:`POLY_DEGREES`: Mao & Tsang Sec. 5.3).
    C : float, default=100.0
        SVM trade-off (> 0; a choice, see the module docstring).  Selected by
        ``make_method("simplemkl")`` / ``SelectOnLabeled`` over :data:`C_GRID` (ties to
        the largest C).
    tol : float, default=0.01
        Stop when the relative MKL duality gap is ``<= tol`` (the toolbox's default).
    max_iter : int, default=100
        Maximal number of reduced-gradient iterations (a stop by this cap is reported as
        a fallback in ``fit_report_``).
    svm_tol : float, default=1e-5
        libsvm tolerance of the inner SVMs.
    line_search_tol : float, default=0.1
        The golden-section search stops at a bracket ``< line_search_tol * gamma_max``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    transduction_ : ndarray of shape (n_samples,)
        The labels of all rows of ``X``.
    C_ : float
        The C used.
    weights_ : ndarray of shape (n_kernels,)
        The kernel weights ``d``.
    kernel_names_ : list of str
        The base kernels' names, in the order of ``weights_``.
    kernel_scales_ : ndarray of shape (n_kernels,)
        ``1 / trace`` per base kernel.
    dual_coef_ : ndarray of shape (n_problems, n_labeled)
        ``y alpha`` per binary problem (one for two classes, one per class otherwise).
    intercept_ : ndarray of shape (n_problems,)
        The bias per binary problem.
    objective_ : float
        ``J(d)`` at the solution.
    duality_gap_ : float
        The relative MKL duality gap at the stop.
    kkt_violation_ : float
        The KKT violation at the stop.
    converged_ : bool
        Whether the duality gap reached ``tol``.
    n_iter_ : int
        Reduced-gradient iterations.
    n_svm_fits_ : int
        Inner SVM fits.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel on the rows of the fit's ``X``; ``kernel(A, B)`` evaluates it
        between any point sets.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The rows of the fit's ``X``.
    X_labeled_ : ndarray of shape (n_labeled, n_features)
        The labeled points.
    fit_report_ : FitReport
        Solvers ``simplemkl-reduced-gradient`` and ``libsvm``; a stop other than the
        duality gap is a fallback note, a constant prediction a degenerate note
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    SVMBaseline : A single-kernel supervised SVM.
    LabelAwareKernel : Multiple base kernels weighted with the unlabeled points.

    References
    ----------
    A. Rakotomamonjy, F. R. Bach, S. Canu and Y. Grandvalet. SimpleMKL. Journal of
    Machine Learning Research, 9:2491-2521, 2008: Sec. 2-4, Algorithm 1.

    Q. Mao and I. W. Tsang. Parameter-free spectral kernel learning. In UAI, 2010:
    Sec. 5.3, Table 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import SimpleMKL
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points; the others are not used
    >>> est = SimpleMKL().fit(X, y_partial)
    >>> len(est.kernel_names_) == est.weights_.size == 13
    True
    >>> bool(np.isclose(est.weights_.sum(), 1.0))
    True
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("C_",)

    _parameter_constraints = {
        "gaussian_widths": ["array-like"],
        "poly_degrees": ["array-like"],
        "C": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "svm_tol": [Interval(Real, 0, None, closed="neither")],
        "line_search_tol": [Interval(Real, 0, 1, closed="neither")],
    }
    _selection = {"C": (C_GRID, "largest")}
    _fold_params = frozenset({"C"})

    def __init__(
        self,
        gaussian_widths=GAUSSIAN_WIDTHS,
        poly_degrees=POLY_DEGREES,
        C=100.0,
        tol=0.01,
        max_iter=100,
        svm_tol=1e-5,
        line_search_tol=0.1,
    ):
        self.gaussian_widths = gaussian_widths
        self.poly_degrees = poly_degrees
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.svm_tol = svm_tol
        self.line_search_tol = line_search_tol

    # -- fitting ------------------------------------------------------------

    def _kernel_params(self):
        """The base kernels' parameters, checked (before any computation)."""
        widths = tuple(float(s) for s in np.ravel(self.gaussian_widths))
        degrees = tuple(np.ravel(self.poly_degrees).tolist())
        if not widths and not degrees:
            raise ParameterError(
                "SimpleMKL needs at least one base kernel "
                "(gaussian_widths and poly_degrees are both empty)"
            )
        if any(not s > 0 for s in widths):
            raise ParameterError(f"gaussian_widths must be > 0, got {widths}")
        if any(isinstance(q, bool) or int(q) != q or q < 1 for q in degrees):
            raise ParameterError(f"poly_degrees must be integers >= 1, got {degrees}")
        return widths, tuple(int(q) for q in degrees)

    def _fit_core(self, Ks_raw, y_enc, C):
        """Full SimpleMKL on raw base kernels of training points (unit-trace normalized here)."""
        present, y_loc = np.unique(y_enc, return_inverse=True)
        scales = unit_trace_scales(Ks_raw)
        if present.size < 2:
            return _Model(
                present, np.full(len(scales), 1.0 / len(scales)), scales, None, None, None
            )
        Ks = Ks_raw * scales[:, None, None]
        res = simplemkl(
            Ks,
            _targets(y_loc, present.size),
            C,
            tol=self.tol,
            max_iter=self.max_iter,
            svm_tol=self.svm_tol,
            line_search_tol=self.line_search_tol,
        )
        return _Model(present, res.d, scales, res.solution.beta, res.solution.intercept, res)

    @staticmethod
    def _scores(model, Kx_raw):
        """Decision values ``(n, P)`` from raw cross kernels ``(M, n, l)`` of the active kernels."""
        w = model.d[model.d > 0] * model.scales[model.d > 0]
        Kx = np.tensordot(w, Kx_raw, axes=1)
        return Kx @ model.beta.T + model.intercept

    @staticmethod
    def _labels(model, F):
        if model.classes.size == 2:
            return model.classes[(F[:, 0] > 0).astype(int)]
        return model.classes[np.argmax(F, axis=1)]

    def _fold_setup(self, X, labeled, y_enc, report):
        """C candidates and folds share the raw base kernels of the labeled points."""
        widths, degrees = self._kernel_params()
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        Ks_raw = base_kernels(X[labeled], None, widths, degrees)

        def predict(params, train, test):
            model = self._fit_core(
                Ks_raw[:, train][:, :, train], y_enc[train], params.get("C", self.C)
            )
            if model.beta is None:
                return np.full(test.size, model.classes[0])
            act = model.d > 0
            return self._labels(model, self._scores(model, Ks_raw[act][:, test][:, :, train]))

        return predict

    def fit(self, X, y):
        """Run SimpleMKL on the labeled rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points; only the labeled rows enter the fit.
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, labeled, y_enc = self._fit_start(X, y)
        widths, degrees = self._kernel_params()
        self.X_fit_ = X
        self.X_labeled_ = X[labeled]
        self.kernel_names_ = kernel_names(widths, degrees)
        self._bank = (widths, degrees)
        self.C_ = float(self.C)
        model = self._fit_core(base_kernels(self.X_labeled_, None, widths, degrees), y_enc, self.C_)
        self.model_ = model
        r = model.result
        self.fit_report_.add(r.info)
        self.fit_report_.add(SolveInfo("libsvm", stats={"svm_fits": r.n_svm}))
        self.weights_ = model.d
        self.kernel_scales_ = model.scales
        self.dual_coef_, self.intercept_ = model.beta, model.intercept
        self.objective_, self.duality_gap_ = r.solution.J, r.duality_gap
        self.kkt_violation_, self.converged_ = r.kkt_violation, r.converged
        self.n_iter_, self.n_svm_fits_ = r.n_iter, r.n_svm
        self.transduction_ = self.classes_[self._labels(model, self._decision(X))]
        self._note_degenerate_prediction(self.transduction_)
        return self

    # -- prediction -----------------------------------------------------------

    def _decision(self, X):
        model = self.model_
        act = model.d > 0
        Kx = base_kernels(X, self.X_labeled_, *self._bank, which=act)
        return self._scores(model, Kx)

    def decision_function(self, X):
        """Decision values: (n,) for two classes (positive = ``classes_[1]``), else (n, c) OvR.

        ``f_p(x) = sum_i beta_pi sum_m d_m K_m(x, x_i) / tr_m + b_p`` over the labeled points.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            The decision values of the binary problems.
        """
        check_is_fitted(self, "model_")
        F = self._decision(self._check_X(X))
        return F[:, 0] if self.classes_.size == 2 else F

    def predict(self, X):
        """Labels of new points: the sign of the decision value, or the largest one-vs-rest value.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted labels, values of ``classes_``.
        """
        check_is_fitted(self, "model_")
        return self.classes_[self._labels(self.model_, self._decision(self._check_X(X)))]

    def kernel(self, A=None, B=None):
        """The learned kernel ``sum_m d_m K_m(A, B) / tr_m``; ``None`` = the rows of the fit's X.

        Only the base kernels with a positive weight are computed.

        Parameters
        ----------
        A : array-like of shape (n_a, n_features), default=None
            Points; None: the rows of the fit's X.
        B : array-like of shape (n_b, n_features), default=None
            Points; None: ``A``.

        Returns
        -------
        ndarray of shape (n_a, n_b)
            The weighted sum of the base kernels between the two point sets.
        """
        check_is_fitted(self, "model_")
        A = self.X_fit_ if A is None else self._check_X(A)
        B = A if B is None else self._check_X(B)
        act = self.weights_ > 0
        Ks = base_kernels(A, B, *self._bank, which=act)
        return np.tensordot(self.weights_[act] * self.kernel_scales_[act], Ks, axes=1)

    @property
    def kernel_(self):
        """The learned kernel on the rows of the fit's X, (n, n)."""
        return self.kernel()
