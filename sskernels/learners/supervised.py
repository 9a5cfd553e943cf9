"""Supervised baselines that see the labeled points only: an SVM, 1-NN and an SVR.

Not in the papers' methods, but in their tables as references (Liu et al.
2009, Sec. 5; Mao & Tsang 2010, Table 2).  Like every learner of the package
they take partial labels (``y == -1`` = unlabeled) and ignore the unlabeled
points, except for the width rule of the SVM (a choice, stated below).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import clone
from sklearn.metrics import pairwise_distances
from sklearn.metrics.pairwise import cosine_similarity
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.kernels.rbf import (
    WIDTH_RULES,
    mean_squared_distance,
    rbf,
    resolve_width,
    squared_distances,
)
from sskernels.learners.base import SemiSupervisedClassifier, SemiSupervisedRegressor
from sskernels.learners.grids import SVR_C_GRID, WIDE_B_SCALES, WIDTH_FACTORS
from sskernels.solvers.libsvm import fit_precomputed
from sskernels.solvers.report import SolveInfo
from sskernels.solvers.svr import fit_svrs

#: C grid of the supervised SVM baseline
C_GRID = (1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)
#: metrics of the 1-NN baseline
NN_METRICS = ("euclidean", "cosine", "manhattan")


class SVMBaseline(SemiSupervisedClassifier):
    """Supervised RBF (or cosine) SVM on the labeled points only (``sklearn.svm.SVC``).

    ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))`` (``gamma = 1 / (2 sigma^2)``),
    ``sigma = kernel_width_scale x`` the ``kernel_width`` rule or number
    (:func:`sskernels.kernels.rbf.resolve_width`).  ``"median"`` (the default)
    is the median pairwise distance over all rows of ``X`` (features only, no
    label — a choice, so that the baseline's width rule is that of
    :class:`~sskernels.learners.manifold.LapSVM`); ``"mean-norm"`` is Mao &
    Tsang's rule.  Multi-class is libsvm's one-vs-one.  A reference in the papers'
    tables (Liu et al. 2009, Sec. 5; Mao & Tsang 2010, Table 2), not one of their
    methods.

    ``kernel="cosine"`` uses the cosine kernel ``<x, z> / (||x|| ||z||)``
    instead (no width; Liu et al. Sec. 5.2 use it for WebKB).

    Selection (``_selection``, for the specs): the width scale over
    :data:`WIDTH_FACTORS`, nearest to 1 first (then the larger), unless
    ``kernel_width`` is given or the kernel is cosine; then ``C`` over
    :data:`C_GRID`, largest first.  Fold fits share the labeled points' kernel.

    Parameters
    ----------
    C : float, default=1.0
        The SVM's C (> 0; libsvm's default, a choice).
    kernel_width : {"median", "mean-norm"} or float, default="median"
        The width rule or number (see above).
    kernel_width_scale : float, default=1.0
        Factor on the width.
    kernel : {"rbf", "cosine"}, default="rbf"
        The RBF kernel or the cosine kernel.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    C_ : float
        The C used.
    kernel_width_ : float or None
        The RBF width sigma used (None for the cosine kernel).
    svc_ : SVC
        The fitted ``sklearn.svm.SVC`` on the labeled points.
    transduction_ : ndarray of shape (n_samples,)
        The predicted label of every row of ``X``.
    fit_report_ : FitReport
        The solver (``libsvm``) and degenerate cases of the fit
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    OneNN : The other supervised baseline.
    KernelSVM : An SVM on a kernel learned from labeled and unlabeled points.
    LapSVM : The semi-supervised SVM of manifold regularization.

    References
    ----------
    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: Sec. 5.

    Q. Mao and I. W. Tsang. Parameter-free spectral kernel learning. In UAI, 2010:
    Table 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import SVMBaseline
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points; the others are not used
    >>> est = SVMBaseline().fit(X, y_partial)
    >>> est.transduction_.shape
    (178,)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.85)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("C_", "kernel_width_")

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "kernel_width": [Interval(Real, 0, None, closed="neither"), StrOptions(set(WIDTH_RULES))],
        "kernel_width_scale": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions({"rbf", "cosine"})],
    }
    _selection = {
        "kernel_width_scale": (WIDTH_FACTORS, "nearest-1", ("kernel_width",)),
        "C": (C_GRID, "largest"),
    }
    _fold_params = frozenset({"C", "kernel_width", "kernel_width_scale"})
    _fold_one_class = True
    _widthless = ("kernel", "cosine")

    def __init__(self, C=1.0, kernel_width="median", kernel_width_scale=1.0, kernel="rbf"):
        self.C = C
        self.kernel_width = kernel_width
        self.kernel_width_scale = kernel_width_scale
        self.kernel = kernel

    def _width(self, X, width, scale):
        return None if self.kernel == "cosine" else resolve_width(X, width, scale)

    def fit(self, X, y):
        """Fit on the labeled rows of ``X``; the unlabeled rows are not used (but for the width rule over all rows).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, labeled, y_enc = self._fit_start(X, y)
        XL = X[labeled]
        self.kernel_width_ = self._width(X, self.kernel_width, self.kernel_width_scale)
        self.C_ = float(self.C)
        if self.kernel == "cosine":
            self.X_labeled_ = XL
            self.svc_ = SVC(kernel="precomputed", C=self.C_).fit(cosine_similarity(XL), y_enc)
        else:
            self.svc_ = SVC(kernel="rbf", gamma=1.0 / (2.0 * self.kernel_width_**2), C=self.C_).fit(
                XL, y_enc
            )
        self.fit_report_.add(SolveInfo("libsvm"))
        self.transduction_ = self.predict(X)
        self._note_degenerate_prediction(self.transduction_)
        return self

    def _fold_setup(self, X, labeled, y_enc, report):
        """Fold fits on the labeled points' kernel (one per width), libsvm on its blocks."""
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        XL = X[labeled]
        cosine = self.kernel == "cosine"
        D2L = None if cosine else squared_distances(XL)
        own, bases, kernels = self.get_params(deep=False), {}, {}

        def predict(params, train, test):
            p = {**own, **params}
            # the rule's width once (a median over all rows is costly), then times each scale
            if p["kernel_width"] not in bases:
                bases[p["kernel_width"]] = self._width(X, p["kernel_width"], 1.0)
            base = bases[p["kernel_width"]]
            wd = None if base is None else float(p["kernel_width_scale"]) * base
            if wd not in kernels:
                kernels[wd] = cosine_similarity(XL) if cosine else rbf(D2L, wd)
            K = kernels[wd]
            # libsvm as SVC calls it (the same predictions, without SVC's per-fit validation)
            model = fit_precomputed(K[np.ix_(train, train)], y_enc[train], p["C"])
            return model.predict(K[np.ix_(test, train)])

        return predict

    def _transduction_predictor(self, X, y, keys):
        """``predict(params)``: the ``transduction_`` of ``clone(self).set_params(**params)
        .fit(X, y)`` for a grid over ``C`` and the width (the oracle protocol,
        :func:`sskernels.experiment.oracle.oracle_fit`).

        The kernel columns of the labeled points ``K[:, L]`` once per width (the distances
        and the rule's width once), then one libsvm fit on the precomputed labeled block
        per candidate and its prediction from ``K[:, L]`` — instead of libsvm's own RBF at
        every candidate (slow on sparse data such as Text).  The entries equal
        libsvm's up to rounding; the oracle refits the chosen candidate and records any
        disagreement.  None for other grid keys.
        """
        if not set(keys) <= {"C", "kernel_width", "kernel_width_scale"}:
            return None
        probe = clone(self)
        X, labeled, y_enc = probe._fit_start(X, y)
        classes, cosine = probe.classes_, probe.kernel == "cosine"
        D2 = None if cosine else squared_distances(X, X[labeled])
        bases, kernels = {}, {}

        def predict(params):
            probe.set_params(**params)
            probe._validate_params()
            p = probe.get_params(deep=False)
            if p["kernel_width"] not in bases:
                bases[p["kernel_width"]] = probe._width(X, p["kernel_width"], 1.0)
            base = bases[p["kernel_width"]]
            wd = None if base is None else float(p["kernel_width_scale"]) * base
            if wd not in kernels:
                kernels[wd] = cosine_similarity(X, X[labeled]) if cosine else rbf(D2, wd)
            K = kernels[wd]
            return classes[fit_precomputed(K[labeled], y_enc, float(p["C"])).predict(K)]

        return predict

    def decision_function(self, X):
        """libsvm's decision values of new points (``SVC.decision_function``).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            (n_queries,) for two classes (positive means ``classes_[1]``), else
            scikit-learn's one-vs-rest shaped values of the one-vs-one SVMs.
        """
        check_is_fitted(self, "svc_")
        return self.svc_.decision_function(self._svc_input(self._check_X(X)))

    def predict(self, X):
        """libsvm's own prediction (one-vs-one votes for more than two classes).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted labels, values of ``classes_``.
        """
        check_is_fitted(self, "svc_")
        return self.classes_[self.svc_.predict(self._svc_input(self._check_X(X)))]

    def _svc_input(self, X):
        return cosine_similarity(X, self.X_labeled_) if self.kernel == "cosine" else X


class OneNN(SemiSupervisedClassifier):
    """1-nearest-neighbour on the labeled points, a supervised baseline.

    Ties between equidistant labeled points go to the first in the order of ``y``
    (scikit-learn's brute-force rule).  ``decision_function`` gives minus the distance to
    the nearest labeled point of each class ((n, c); for two classes ``d_0 - d_1``,
    positive means ``classes_[1]``).  A reference in the papers' tables (Liu et al. 2009,
    Sec. 5), not one of their methods.

    Parameters
    ----------
    metric : {"euclidean", "cosine", "manhattan"}, default="euclidean"
        The distance; Liu et al. use ``"cosine"`` for WebKB.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    X_labeled_ : ndarray or sparse matrix of shape (n_labeled, n_features)
        The labeled points.
    y_enc_ : ndarray of shape (n_labeled,)
        Their classes, encoded as positions in ``classes_``.
    knn_ : KNeighborsClassifier
        The fitted ``sklearn.neighbors.KNeighborsClassifier`` (``n_neighbors=1``).
    transduction_ : ndarray of shape (n_samples,)
        The predicted label of every row of ``X``.
    fit_report_ : FitReport
        The fit's report (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    SVMBaseline : The other supervised baseline.
    sklearn.neighbors.KNeighborsClassifier : The classifier used.

    References
    ----------
    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: Sec. 5.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import OneNN
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points; the others are not used
    >>> est = OneNN().fit(X, y_partial)
    >>> est.transduction_.shape
    (178,)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.85)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {"metric": [StrOptions(set(NN_METRICS))]}

    def __init__(self, metric="euclidean"):
        self.metric = metric

    @classmethod
    def _spec_params(cls, params, make_learner, graph_given):
        """``metric`` is this learner's own parameter, not a graph's (the registry takes
        it for one): put it back."""
        if "metric" in graph_given and graph_given["metric"] is not None:
            params["metric"] = graph_given["metric"]
        return params

    def fit(self, X, y):
        """Fit on the labeled rows of ``X``; the unlabeled rows are not used.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, labeled, y_enc = self._fit_start(X, y)
        self.X_labeled_, self.y_enc_ = X[labeled], y_enc
        self.knn_ = KNeighborsClassifier(n_neighbors=1, metric=self.metric).fit(X[labeled], y_enc)
        self.transduction_ = self.predict(X)
        return self

    def decision_function(self, X):
        """Minus the distance of new points to the nearest labeled point of each class.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            (n_queries, n_classes); for two classes ``d_0 - d_1`` (positive means
            ``classes_[1]``).
        """
        check_is_fitted(self, "knn_")
        D = pairwise_distances(self._check_X(X), self.X_labeled_, metric=self.metric)
        S = np.column_stack(
            [-D[:, self.y_enc_ == k].min(axis=1) for k in range(self.classes_.size)]
        )
        return S[:, 1] - S[:, 0] if self.classes_.size == 2 else S

    def predict(self, X):
        """The label of the nearest labeled point.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted labels, values of ``classes_``.
        """
        check_is_fitted(self, "knn_")
        return self.classes_[self.knn_.predict(self._check_X(X))]


class SVRBaseline(SemiSupervisedRegressor):
    """Supervised epsilon-SVR with a Gaussian kernel on the labeled points only.

    The kernel is ``exp(-b ||x - z||^2)`` ("standard SVR", Wang et al. 2015, Sec. 4.2 and
    Fig. 1(a)); one ``sklearn.svm.SVR`` per target.

    ``b = b_scale / mean squared pairwise distance`` over all rows of ``X`` (Wang et al.'s
    ``b0``, Sec. 4.1: features only, no target — a choice, so that the width grid is that of
    the semi-supervised methods); ``epsilon = 0.05`` (Sec. 4.2).  Selection (``_selection``):
    ``b_scale`` over the regression width grid, nearest to 1 first, then ``C`` over
    Sec. 4.2's grid, smallest first; libsvm capped as in
    :func:`sskernels.learners.label_aware_regression.fit_svrs`.  ``fit(X, y)``: y (n,) or
    (n, k), NaN = unlabeled.

    Parameters
    ----------
    b_scale : float, default=1.0
        The width factor, ``b = b_scale * b0`` (> 0).
    C : float, default=1.0
        The SVR's C (> 0).
    epsilon : float, default=0.05
        The SVR's epsilon-tube (>= 0; Sec. 4.2, for targets scaled to [0, 1]).

    Attributes
    ----------
    b_ : float
        The width ``b`` used.
    C_ : float
        The C used.
    svrs_ : list of SVR
        One fitted ``sklearn.svm.SVR`` per target.
    transduction_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The predicted targets of every row of ``X``, in the shape of ``y``.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points (finite targets).
    n_targets_ : int
        Number of targets (columns of ``y``).
    fit_report_ : FitReport
        The solver (``libsvm``), its capped fits and degenerate cases
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    LabelAwareSVR : The SVR on label-aware kernels learned with the unlabeled points.
    HarmonicRegressor : Gaussian fields with continuous targets.

    References
    ----------
    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Sec. 4.1-4.2, Fig. 1(a).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners import SVRBaseline
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(100, 2))
    >>> y = np.sin(3 * X[:, 0]) + X[:, 1]
    >>> y_partial = np.full_like(y, np.nan)
    >>> y_partial[::5] = y[::5]                   # 20 labeled points, NaN = unlabeled
    >>> est = SVRBaseline(C=10).fit(X, y_partial)
    >>> est.transduction_.shape
    (100,)
    >>> unlabeled = np.isnan(y_partial)
    >>> rmse = np.sqrt(np.mean((est.transduction_[unlabeled] - y[unlabeled]) ** 2))
    >>> bool(rmse < 0.2)
    True
    >>> est.predict(X[:3]).shape
    (3,)
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("C_",)

    _parameter_constraints = {
        "b_scale": [Interval(Real, 0, None, closed="neither")],
        "C": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, b_scale=1.0, C=1.0, epsilon=0.05):
        self.b_scale = b_scale
        self.C = C
        self.epsilon = epsilon

    _selection = {"b_scale": (WIDE_B_SCALES, "nearest-1"), "C": (SVR_C_GRID, "smallest")}
    _fold_params = frozenset({"b_scale", "C"})

    def _b(self, X):
        msd = mean_squared_distance(X)
        return self.b_scale / msd if msd > 0 else float(self.b_scale)

    def _svrs(self, X_L, Y_L, b, C, report=None):
        return fit_svrs(X_L, Y_L, report, kernel="rbf", gamma=b, C=C, epsilon=self.epsilon)

    def fit(self, X, y):
        """Fit one SVR per target on the labeled rows of ``X``.

        The unlabeled rows enter only the width rule ``b0``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            The targets; NaN (a row of NaN for several targets) marks an unlabeled point.
            At least two points must be labeled.

        Returns
        -------
        self : object
            The fitted regressor.
        """
        X, labeled, Y_L = self._fit_start(X, y)
        self.b_, self.C_ = self._b(X), float(self.C)
        self.svrs_ = self._svrs(X[labeled], Y_L, self.b_, self.C_, self.fit_report_)
        self.fit_report_.add(SolveInfo("libsvm"))
        F = np.column_stack([s.predict(X) for s in self.svrs_])
        self._note_constant_prediction(F)
        self.transduction_ = self._shaped(F)
        return self

    def _fold_setup(self, X, labeled, Y_L, report):
        """Folds fit the SVRs on the labeled points only (the unlabeled ones are not used)."""
        X = check_array(X, dtype=np.float64)
        X_L, msd = X[labeled], mean_squared_distance(X)

        def predict(params, train, test):
            s = params.get("b_scale", self.b_scale)
            b = s / msd if msd > 0 else float(s)
            svrs = self._svrs(X_L[train], Y_L[train], b, params.get("C", self.C))
            return np.column_stack([m.predict(X_L[test]) for m in svrs])

        return predict

    def predict(self, X):
        """Targets of new points, one SVR per target.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,) or (n_queries, n_targets)
            Predicted targets, in the shape of the ``y`` given to ``fit``.
        """
        check_is_fitted(self, "svrs_")
        X = self._check_X(X)
        return self._shaped(np.column_stack([s.predict(X) for s in self.svrs_]))
