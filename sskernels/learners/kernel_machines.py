"""Kernel machines on learned kernels: "TSK+SVM", "OSK+SVM", "DSK+SVM" (Liu et al., Sec. 5).

A kernel learner — any estimator with ``fit``, ``kernel_`` and ``kernel(A, B)``:
a :class:`~sskernels.learners.spectral.TransductiveSpectralKernel`, an OSK, a
DSK, or a :class:`~sskernels.learners.selection.SelectOnLabeled` wrapper of one
(e.g. TSK with beta selected) — is fitted on all points with the partial
labels; an SVM is then trained on the labeled block of the learned kernel
``K_LL`` and predicts the unlabeled points from their rows ``K_UL``, and unseen
points through the kernel learner's out-of-sample extension (for TSK, Liu et
al. eq. (16)-(19)).

Choices the paper leaves open, made here:

* the kernel is scaled to unit mean diagonal before the SVM, so that one C
  grid fits every learner (a positive scaling does not change the kernel's
  geometry, only the meaning of C); a kernel with a zero diagonal is used
  unscaled and reported as degenerate;
* C: ``C = 1`` when used directly (scikit-learn's SVC default); the
  ``kernel-svm`` method selects it (:attr:`KernelSVM._selection`) over
  :data:`C_GRID` by 5-fold cross-validation on the labeled points only, ties
  to the SMALLEST C, with the learned kernel held FIXED: the kernel learner is
  fitted once with all labels and only the SVM is cross-validated on ``K_LL``
  (:meth:`KernelSVM._fold_predictor`);
* multi-class by scikit-learn's one-vs-one ``SVC`` (libsvm); a fit libsvm has not
  finished in :func:`svm_max_iter` iterations is solved again with every one-vs-one dual
  exact (a certified interior-point method, :func:`~sskernels.solvers.exact_svc.exact_svc`),
  a recorded fallback;
* the kernel learner is fitted with the labels encoded ``0..c-1`` (``-1`` for
  unlabeled points): kernel learners depend on the partition of the labeled
  points only, and the same encoding lets the final fit reuse the fit of the
  C selection (memoized by content of ``X``, the labels and the learner's
  parameters: :func:`sskernels.learners.fitted._fitted_learner`).
"""

from __future__ import annotations

import importlib
from numbers import Real

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.hashing import fingerprint
from sskernels.learners.base import SemiSupervisedClassifier, indicator, unreached_scores
from sskernels.learners.fitted import _fitted_learner
from sskernels.memo import LRU
from sskernels.solvers.exact_svc import exact_svc
from sskernels.solvers.libsvm import fit_precomputed
from sskernels.solvers.report import FitReport, SolveInfo

#: the kernel learner of ``kernel_learner=None``: Liu et al.'s TSK, by module and class.  It is
#: imported by name when used, so that this module (and the records of an SVM on another
#: learner's kernel) does not depend on the graph package; a record with the default has its
#: module in the key all the same (``KernelSVM._default_modules``,
#: :func:`sskernels.provenance.estimator_modules`)
DEFAULT_KERNEL_LEARNER = ("sskernels.learners.spectral", "TransductiveSpectralKernel")

#: the SVM's C grid (selected with ties to the smallest C)
C_GRID = (1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)

#: an oracle scan's memo of SVM predictions by (content of the kernel's scaled labeled columns,
#: C) (``KernelSVM._transduction_predictor``): at most this many entries and bytes
PREDICTION_MEMO_SIZE = 4096
PREDICTION_MEMO_BYTES = 64 * 2**20

#: libsvm's iteration budget per one-vs-one pair for the SVM on a learned kernel, times the
#: number of pairs (:func:`svm_max_iter`); a fit that has not converged by then is solved
#: again exactly, every pair's dual by the interior-point method
#: (:func:`sskernels.solvers.exact_svc.exact_svc`), and the switch is recorded.  libsvm's SMO
#: crawls on ill-conditioned duals at large C (Wang et al.'s BCI: at C = 10³ half of the
#: fits of Table 2's p grid take over 95,000 iterations, at C = 10⁴ most do not converge in
#: 10⁵; one SVM on a nearly rank-one kernel, Table 1's diffusion kernel at delta = 1e-5 on
#: Text, ran for over 10 minutes uncapped).  The budget is what the exact solve costs: on
#: those 100-point duals libsvm takes 0.44 us an iteration and the interior-point method
#: 2.7 ms, about 6,000 iterations (measured 2026-11-30), and a fit that falls back solves
#: every pair again, hence the budget per pair times the pairs (renting until the rent paid
#: equals the price: at most twice the better choice made in hindsight).
SVM_ITER_PER_PAIR = 5_000


def svm_max_iter(n_classes):
    """libsvm's iteration budget for an SVM with ``n_classes`` classes:
    :data:`SVM_ITER_PER_PAIR` times the ``c (c - 1) / 2`` one-vs-one pairs.

    Parameters
    ----------
    n_classes : int
        The classes among the training labels (at least 2).

    Returns
    -------
    int
        The budget (libsvm's ``max_iter``, which bounds each pair's solve).

    Examples
    --------
    >>> from sskernels.learners.kernel_machines import svm_max_iter
    >>> svm_max_iter(2), svm_max_iter(6)
    (5000, 75000)
    """
    c = max(int(n_classes), 2)
    return SVM_ITER_PER_PAIR * (c * (c - 1) // 2)


def capped_svc(C, K, y):
    """The C-SVC of ``SVC(kernel="precomputed", C)`` fitted on K: libsvm up to
    :func:`svm_max_iter` iterations, else every dual exactly (interior point).

    Returns ``(model, note)``: ``model`` is the fitted ``SVC``, or, when libsvm did not
    converge within :func:`svm_max_iter` iterations, an
    :class:`~sskernels.solvers.exact_svc.ExactSVC` (the same problem solved to optimality);
    ``note`` is None, or the fallback's text.

    Parameters
    ----------
    C : float
        The SVM's C (> 0).
    K : array-like of shape (l, l)
        The kernel matrix of the training points.
    y : array-like of shape (l,)
        Their labels.

    Returns
    -------
    model : sklearn.svm.SVC or ExactSVC
        The fitted SVM; both have ``predict`` and ``decision_function`` on ``K(points,
        train)``.
    note : str or None
        Why the exact solver answered (libsvm's budget, and the exact solver's own fallback
        if any).

    Raises
    ------
    ValueError
        SVC's errors (e.g. fewer than two classes in ``y``, non-finite dual coefficients).
    """
    model = fit_precomputed(K, y, C, max_iter=svm_max_iter(np.unique(y).size), use_svc=True)
    if not model.capped:
        return model.svc, None
    exact = exact_svc(K, y, C)
    return exact, _cap_note(C, exact, exact.classes_.size)


def capped_svc_predict(C, K, y, K_pred):
    """``capped_svc(C, K, y)``'s predictions on the rows ``K_pred``, without the fitted estimator.

    ``K_pred`` is ``K(points, train)``; returns ``(labels, note)``.

    The same libsvm calls with the same arguments as ``SVC(kernel="precomputed", C,
    max_iter=svm_max_iter(c)).fit(K, y).predict(K_pred)`` (``c`` classes; so the same
    labels), without
    scikit-learn's estimator and input validation around them
    (:func:`sskernels.solvers.libsvm.fit_precomputed`): on a fold fit of the C selection or
    an oracle candidate, that validation costs more than libsvm's own work.  When libsvm has
    not converged within :func:`svm_max_iter` iterations, the labels are those of the exact
    solution (:func:`capped_svc`).

    Parameters
    ----------
    C : float
        The SVM's C (> 0).
    K : array-like of shape (l, l)
        The kernel matrix of the training points.
    y : array-like of shape (l,)
        Their labels.
    K_pred : array-like of shape (s, l)
        The kernel between the points to predict and the training points.

    Returns
    -------
    labels : ndarray of shape (s,)
        The predicted labels, values of ``y``.
    note : str or None
        Why the exact solver answered, or None (libsvm converged).

    Raises
    ------
    ValueError
        SVC's errors (e.g. fewer than two classes in ``y``, non-finite dual coefficients).
    """
    model = fit_precomputed(K, y, C, max_iter=svm_max_iter(np.unique(y).size))
    if not model.capped:
        return model.predict(K_pred), None
    exact = exact_svc(K, y, C)
    labels = exact.predict(K_pred)
    return labels.astype(model.classes.dtype, copy=False), _cap_note(C, exact, model.classes.size)


def _svc_predict(C, K, y, K_pred):
    model, note = capped_svc(C, K, y)
    return model.predict(K_pred), note


def _cap_note(C, exact, n_classes):
    """The fallback's text: libsvm's budget, and the exact solver's own fallbacks (HiGHS's
    QP, then libsvm at tolerance 1e-8) if a pair needed one."""
    note = (
        f"libsvm did not converge in {svm_max_iter(n_classes):,} iterations at C = {C:g}: every "
        "one-vs-one dual solved exactly (interior point)"
    )
    inner = sorted({i.fallback for i in exact.solvers_ if i.fallback})
    return note + (f" ({'; '.join(inner)})" if inner else "")


class KernelSVM(SemiSupervisedClassifier):
    """An SVM on the labeled block of a kernel learned from labeled and unlabeled points.

    Liu et al. (2009), Sec. 5: "TSK+SVM" etc. — the learned kernel's labeled
    block trains a standard SVM.  The kernel learner is fitted on all points with the
    partial labels; the kernel is scaled to unit mean diagonal (module docstring); an SVM
    (scikit-learn's ``SVC``, libsvm, one-vs-one for several classes) is trained on
    ``K_LL`` and predicts the unlabeled points from their rows ``K_UL``, and unseen
    points through the kernel learner's out-of-sample extension (for TSK, Liu et al.
    eq. (16)-(19)).

    In a spec (``name: kernel-svm``), ``kernel: tsk`` and ``kernel_params: {...}``
    name the kernel learner and its spec parameters (``beta: auto`` selects beta
    in a nested :class:`~sskernels.learners.selection.SelectOnLabeled`); the
    spec's graph applies to it (:meth:`_spec_params`).  The ``kernel-svm`` method
    selects ``C`` over :data:`C_GRID` by 5-fold cross-validation on the labeled points,
    ties to the smallest C, with the learned kernel held fixed.

    Parameters
    ----------
    kernel_learner : estimator or None, default=None
        An unfitted estimator with ``fit``, ``kernel_`` and ``kernel(A, B)`` (it is
        cloned).  ``None``: ``TransductiveSpectralKernel()`` (its defaults: k = 6 graph,
        m = 10, eta = 2, beta = 1).  Nested parameters are tunable:
        ``set_params(kernel_learner__eta=3)``,
        ``GridSearchCV(..., {"kernel_learner__beta": [...]})``.
    C : float, default=1.0
        The SVM's C (> 0; scikit-learn's SVC default).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    learner_ : estimator
        The fitted kernel learner.
    kernel_scale_ : float
        Mean diagonal of its kernel (the kernel is divided by it).
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel on the training points, scaled as the SVM sees it;
        ``kernel(A, B)`` evaluates it between any point sets.
    C_ : float
        The C used.
    svc_ : SVC or ExactSVC
        The fitted ``sklearn.svm.SVC`` (precomputed kernel) on ``K_LL``, or, when libsvm
        did not converge within :func:`svm_max_iter` iterations, the same SVM with every
        dual solved exactly (:class:`~sskernels.solvers.exact_svc.ExactSVC`, a recorded
        fallback).
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point.
    unreached_ : ndarray of int
        A graph kernel learner's unreached points (labeled with the most frequent labeled
        class, the rule of every graph learner); empty otherwise.
    fit_report_ : FitReport
        The kernel learner's report merged with the prefix ``"kernel: "``, plus
        ``libsvm`` (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    TransductiveSpectralKernel : The default kernel learner.
    OrderConstrainedSpectralKernel : Another kernel learner ("OSK+SVM").
    FastDecaySpectralKernel : Another kernel learner ("DSK+SVM").
    SVMBaseline : A supervised SVM on the labeled points.

    References
    ----------
    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: Sec. 5, eq. (16)-(19).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import KernelSVM, TransductiveSpectralKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = KernelSVM(TransductiveSpectralKernel(beta=10)).fit(X, y_partial)
    >>> est.kernel_.shape
    (178, 178)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("C_",)

    #: parameters whose default None stands for an object of another module, by module
    #: (:func:`sskernels.provenance.estimator_modules` puts it in the record key)
    _default_modules = {"kernel_learner": DEFAULT_KERNEL_LEARNER[0]}
    _parameter_constraints = {
        "kernel_learner": [None, HasMethods(["fit", "kernel"])],
        "C": [Interval(Real, 0, None, closed="neither")],
    }
    _selection = {"C": (C_GRID, "smallest")}
    _fold_params = frozenset({"C"})
    _fold_one_class = True
    #: spec parameters that :meth:`_spec_params` turns into ``kernel_learner``
    _spec_keys = ("kernel", "kernel_params")

    def __init__(self, kernel_learner=None, C=1.0):
        self.kernel_learner = kernel_learner
        self.C = C

    @staticmethod
    def _spec_params(params, make_learner, graph_given):
        """Spec ``kernel`` + ``kernel_params`` -> ``kernel_learner=make_learner(kernel, ...)``
        (the registry's :func:`~sskernels.learners.registry.kernel_learner_from_spec`)."""
        params = dict(params)
        if "kernel_learner" in params:
            return params
        name = params.pop("kernel", "tsk")
        kernel_params = params.pop("kernel_params", None)
        params["kernel_learner"] = make_learner(name, kernel_params, "kernel-svm")
        return params

    def _learner_template(self):
        if self.kernel_learner is None:  # TSK with its defaults
            module, name = DEFAULT_KERNEL_LEARNER
            return getattr(importlib.import_module(module), name)()
        return self.kernel_learner

    def kernel_factors(self):
        """``(P, mu)`` of the fitted kernel learner (:meth:`~sskernels.learners.label_aware.
        EmbeddingKernel.kernel_factors`): ``kernel_`` is ``P diag(mu) P^T`` divided by the
        learner's mean diagonal; None for a learner without factors, a selection wrapper
        around one, or a subclass that computes its kernel otherwise."""
        if type(self).kernel_ is not KernelSVM.kernel_ or not getattr(self, "kernel_scale_", 0) > 0:
            return None
        hook = getattr(getattr(self, "learner_", None), "kernel_factors", None)
        return hook() if callable(hook) and not hasattr(self.learner_, "best_params_") else None

    def precompute(self, X):
        """The kernel learner's label-independent work (its graph and spectrum), if any.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.

        Returns
        -------
        object or None
            What the kernel learner's ``precompute(X)`` returns (a graph learner's
            :class:`~sskernels.graph.Graph`), or None for a learner without ``precompute``.
        """
        pre = getattr(self._learner_template(), "precompute", None)
        return pre(X) if pre is not None else None

    def _learned_kernel(self, X, labeled, y_enc):
        """The fitted kernel learner, the labeled columns ``K[:, labeled]`` of its kernel
        scaled to unit mean diagonal, and the scale (the mean diagonal).  Only those columns
        are divided by the scale (elementwise: the entries of the whole scaled kernel)."""
        learner = _fitted_learner(self._learner_template(), X, labeled, y_enc, with_kernel=True)
        K = np.asarray(learner.kernel_, dtype=float)
        scale = float(np.mean(np.diag(K)))
        return learner, K[:, labeled] / (scale if scale > 0 else 1.0), scale

    def _fold_setup(self, X, labeled, y_enc, report):
        """C candidates share one kernel-learner fit (all labels); folds refit only the SVM."""
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        _, K_L, _ = self._learned_kernel(X, labeled, y_enc)
        K_LL = K_L[labeled]

        def predict(params, train, test):
            pred, note = capped_svc_predict(
                params["C"], K_LL[np.ix_(train, train)], y_enc[train], K_LL[np.ix_(test, train)]
            )
            if note:
                report.note("fallback", note)
            return pred

        return predict

    def _transduction_predictor(self, X, y, keys):
        """``predict(params)``: the ``transduction_`` of ``clone(self).set_params(**params)
        .fit(X, y)``, for a grid over ``C`` and the kernel learner's parameters
        (``kernel_learner__*``; :func:`sskernels.experiment.oracle.oracle_fit`).

        Consecutive candidates with the same kernel-learner parameters (the C values of one
        kernel) share one kernel-learner fit and the scaled labeled columns ``K[:, L]`` of its
        kernel (:func:`_labeled_columns`: for an embedding kernel without the n x n
        product); each C refits only the SVM.  The arrays given to libsvm are those of
        :meth:`fit` (the same elementwise scaling of the same kernel entries), so the
        predictions are equal.  Candidates whose scaled columns are equal bit for bit (by
        content hash) share the SVM's predictions at each C: the SVM is a function of those
        columns, the labels and C alone (e.g. the local Rademacher grid's (theta, MKL C) pairs
        whose weights are the same, as in the hard-margin regime; at most
        :data:`PREDICTION_MEMO_BYTES` of predictions kept).  None when a key is neither.
        """
        prefix = "kernel_learner__"
        if self.kernel_learner is None or not all(k == "C" or k.startswith(prefix) for k in keys):
            return None
        probe = clone(self)
        X, labeled, y_enc = probe._fit_start(X, y)
        classes = probe.classes_
        current, valid_C, current_fp = {}, set(), fingerprint(X)
        predictions = LRU(PREDICTION_MEMO_SIZE, max_bytes=PREDICTION_MEMO_BYTES)

        def predict(params):
            key = [(k, v) for k, v in params.items() if k != "C"]
            if current.get("key") != key:
                current.clear()
                probe.set_params(**params)
                probe._validate_params()
                learner = _oracle_learner(probe.kernel_learner, X, labeled, y_enc, current_fp)
                K_L, diag = _labeled_columns(learner, labeled)
                scale = float(np.mean(diag))
                K_L = K_L / (scale if scale > 0 else 1.0)
                current.update(key=key, K_L=K_L, content=fingerprint(K_L))
            C = params.get("C", probe.C)
            if C not in valid_C:  # each C value validated once
                probe.set_params(C=C)
                probe._validate_params()
                valid_C.add(C)
            memo_key = (current["content"], float(C))
            labels = predictions.lookup(memo_key)
            if labels is None:
                K_L = current["K_L"]
                labels = predictions.store(
                    memo_key, capped_svc_predict(float(C), K_L[labeled], y_enc, K_L)[0]
                )
            return classes[labels]

        return predict

    def fit(self, X, y):
        """Fit the kernel learner on all points, then the SVM on the labeled block.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled.
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, labeled, y_enc = self._fit_start(X, y)
        learner, K_L, scale = self._learned_kernel(X, labeled, y_enc)
        self.learner_ = learner
        self.fit_report_.merge(getattr(learner, "fit_report_", None), prefix="kernel: ")
        if not scale > 0:
            self.fit_report_.note(
                "degenerate",
                "the learned kernel has a zero diagonal "
                f"(mean {scale:g}): SVM on the unscaled kernel",
            )
        self.kernel_scale_ = scale if scale > 0 else 1.0
        self.C_ = float(self.C)
        self.svc_, note = capped_svc(self.C_, K_L[labeled], y_enc)
        self.fit_report_.add(
            SolveInfo("libsvm" if note is None else "interior-point", fallback=note)
        )
        self.transduction_ = self.classes_[self.svc_.predict(K_L)]
        # a graph kernel learner's unreached points (kernel rows 0: the SVM's bias alone
        # would label them) follow the rule of every graph learner (its note is merged above)
        self.unreached_ = getattr(learner, "unreached_", np.empty(0, dtype=int))
        if self.unreached_.size:
            prior = unreached_scores(indicator(y_enc, self.classes_.size))
            self.transduction_[self.unreached_] = self.classes_[np.argmax(prior)]
        self._note_degenerate_prediction(self.transduction_)
        return self

    @property
    def kernel_(self):
        """The learned kernel on the training points, scaled as the SVM sees it."""
        check_is_fitted(self, "learner_")
        return np.asarray(self.learner_.kernel_) / self.kernel_scale_

    def kernel(self, A=None, B=None):
        """The learned kernel between point sets (the learner's extension), scaled.

        Parameters
        ----------
        A : array-like of shape (n_a, n_features), default=None
            Points; None: the training points.
        B : array-like of shape (n_b, n_features), default=None
            Points; None: the training points.

        Returns
        -------
        ndarray of shape (n_a, n_b)
            The kernel learner's ``kernel(A, B)`` divided by ``kernel_scale_``; for ``A`` and
            ``B`` None it is ``kernel_``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import KernelSVM, TransductiveSpectralKernel
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> est = KernelSVM(TransductiveSpectralKernel(beta=10)).fit(X, y_partial)
        >>> est.kernel(X[:2], X[:3]).shape
        (2, 3)
        >>> bool(np.allclose(est.kernel(), est.kernel_))
        True
        """
        check_is_fitted(self, "learner_")
        A = None if A is None else self._check_X(A)
        B = None if B is None else self._check_X(B)
        return np.asarray(self.learner_.kernel(A, B)) / self.kernel_scale_

    def _K_xL(self, X):
        check_is_fitted(self, "svc_")
        K = np.asarray(self.learner_.kernel(self._check_X(X), None))
        return K[:, self.labeled_] / self.kernel_scale_

    def decision_function(self, X):
        """The SVM's decision values on the learned kernel's rows ``K(x, X_L)``.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            ``SVC.decision_function`` of the fitted SVM: (n_queries,) for two classes
            (positive means ``classes_[1]``), else scikit-learn's one-vs-rest shaped values
            of the one-vs-one SVMs.
        """
        K_xL = self._K_xL(X)
        return self.svc_.decision_function(K_xL)

    def predict(self, X):
        """Labels of new points: libsvm's one-vs-one vote on ``K(x, X_L)``.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted labels, values of ``classes_``.
        """
        K_xL = self._K_xL(X)
        return self.classes_[self.svc_.predict(K_xL)]


def _oracle_learner(template, X, labeled, y_enc, key):
    """The kernel learner of one oracle candidate: :func:`_fitted_learner`, or for a learner
    with ``_fit_labeled(X, labeled, y_enc, key, evaluate)`` (the Wang et al. designs) that
    computation on the already validated data, without what only describes the fit (its
    kernel, ``mu_`` and embedding are those of ``fit``)."""
    fit_labeled = getattr(template, "_fit_labeled", None)
    if fit_labeled is None:
        return _fitted_learner(template, X, labeled, y_enc)
    learner = clone(template)
    learner._validate_params()
    learner.classes_, learner.labeled_ = np.unique(y_enc), np.asarray(labeled)
    learner.fit_report_ = FitReport()
    learner._fit_labeled(X, learner.labeled_, y_enc, key, evaluate=False)
    return learner


def _labeled_columns(learner, labeled):
    """``(K[:, labeled], diag(K))`` of a fitted kernel learner's ``kernel_`` (unscaled): the
    learner's own ``labeled_columns(labeled)`` when it offers them without the n x n kernel
    (an :class:`~sskernels.learners.embedding.EmbeddingKernel`: the Wang et al. designs and
    label-aware), otherwise the columns and diagonal of ``kernel_``."""
    hook = getattr(learner, "labeled_columns", None)
    got = hook(labeled) if callable(hook) else None
    if got is not None:
        return got
    K = np.asarray(learner.kernel_, dtype=float)
    return K[:, labeled], np.diag(K)
