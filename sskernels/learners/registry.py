"""The methods a spec can name: factory, paper, equation, inductive or not.

Beside the registered methods (:data:`METHODS`), a spec or the command line may name a
user's estimator (:func:`user_method`): any scikit-learn-compatible classifier that takes
``-1`` for unlabeled points, given by its import path ``"package.module:Class"`` or by a
name registered in the entry-point group ``sskernels.methods`` (:data:`ENTRY_POINT_GROUP`)
of an installed distribution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from sskernels.errors import ParameterError
from sskernels.errors import UnknownNameError


@dataclass(frozen=True)
class MethodInfo:
    """A method a spec or the command line can name: factory, paper, equation, inductive or not.

    The values of :data:`METHODS` (``sskernels methods list``); :func:`user_method` makes
    one for a user's estimator.

    Parameters
    ----------
    name : str
        The method's name in specs and on the command line.
    factory : callable
        Makes the unfitted estimator from keyword parameters.
    paper : str
        The paper (or baseline) the method comes from.
    equation : str
        The equations the method implements (for a user's estimator: its import path).
    inductive : bool
        Whether the estimator labels new points (``predict``), not only its training
        points.
    description : str
        One line on the method.
    uses_graph : bool, default=True
        Whether the method builds its estimator on the spec's graph (the ``graph:``
        section).
    aliases : tuple of str, default=()
        Other names of the method (:data:`ALIASES`).
    task : {"classification", "regression"}, default="classification"
        "classification" (labels, accuracy) or "regression" (float targets, NaN =
        unlabeled; metrics rmse and mse); a method runs only on a data set of its task.
    user : bool, default=False
        True for a user's estimator (an import path or an entry point), not a registered
        method.

    Examples
    --------
    >>> from sskernels.learners import METHODS
    >>> info = METHODS["harmonic"]
    >>> info.paper, info.inductive, info.task
    ('Zhu, Ghahramani & Lafferty 2003', True, 'classification')
    >>> info.factory()
    HarmonicFunction()
    """

    name: str
    factory: Callable
    paper: str
    equation: str
    inductive: bool
    description: str
    uses_graph: bool = True
    aliases: tuple = field(default=())
    #: "classification" (labels, accuracy) or "regression" (float targets, NaN = unlabeled;
    #: metrics rmse and mse; only on a regression data set, and the reverse)
    task: str = "classification"
    #: a user's estimator (an import path or an entry point), not a registered method
    user: bool = False


def _sk(cls_name):
    def make(**params):
        import sklearn.semi_supervised as ss

        return getattr(ss, cls_name)(**params)

    make.__name__ = cls_name
    return make


class _lazy:
    """A factory that imports its class on first use (keeps ``sskernels --help`` fast)."""

    def __init__(self, module, cls_name):
        self.module, self.cls_name, self.__name__ = module, cls_name, cls_name

    @property
    def cls(self):
        import importlib
        from functools import reduce

        return reduce(getattr, self.cls_name.split("."), importlib.import_module(self.module))

    def __call__(self, **params):
        return self.cls(**params)


_P = "sskernels.learners."
METHODS = {
    m.name: m
    for m in [
        MethodInfo(
            "harmonic",
            _lazy(_P + "propagation", "HarmonicFunction"),
            "Zhu, Ghahramani & Lafferty 2003",
            "eq. (5): f_U = -L_UU^-1 L_UL f_L",
            True,
            "Gaussian fields and harmonic functions",
        ),
        MethodInfo(
            "label-propagation-iterative",
            _lazy(_P + "label_propagation", "IterativeLabelPropagation"),
            "Zhu & Ghahramani 2002",
            "Sec. 2.2: Y <- D^-1 W Y, rows normalized, labeled "
            "rows clamped, until sum |dY| < tol; the fixed point is the harmonic function",
            True,
            "iterative label propagation with hard clamping (on the spec's graph)",
        ),
        MethodInfo(
            "consistency",
            _lazy(_P + "propagation", "Consistency"),
            "Zhou et al. 2004",
            "Liu et al. eq. (3): F = (1-a)(I - aS)^-1 C",
            True,
            "local and global consistency",
        ),
        MethodInfo(
            "rsk",
            _lazy(_P + "spectral", "RegularizedSpectralKernel"),
            "Liu et al. 2009",
            "eq. (4)-(5), induction eq. (17)-(19)",
            True,
            "regularized spectral kernel",
        ),
        MethodInfo(
            "tsk",
            _lazy(_P + "spectral", "TransductiveSpectralKernel"),
            "Liu et al. 2009",
            "LP eq. (12)/(14), classifier eq. (5), induction eq. (17)-(19)",
            True,
            "transductive spectral kernel",
        ),
        MethodInfo(
            "osk",
            _lazy(_P + "spectral_transforms", "OrderConstrainedSpectralKernel"),
            "Zhu, Kandola, Ghahramani & Lafferty 2004",
            "max alignment s.t. mu_t >= mu_t+1 >= 0 (cone QP); classifier eq. (5); "
            "induction eq. (17)-(19)",
            True,
            "order-constrained spectral kernel (alias "
            "spectral-graph-kernel: Wang et al. 2015's, the same program)",
            aliases=("spectral-graph-kernel",),
        ),
        MethodInfo(
            "dsk",
            _lazy(_P + "spectral_transforms", "FastDecaySpectralKernel"),
            "Hoi, Lyu & Chang 2006",
            "max alignment s.t. mu_i >= eta mu_i+1 (Liu eq. (8)); classifier eq. (5); "
            "Nystrom induction",
            True,
            "fast-decay spectral kernel (RBF spectrum)",
            uses_graph=False,
        ),
        MethodInfo(
            "skl",
            _lazy(_P + "skl", "SpectralKernelLearning"),
            "Mao & Tsang 2010",
            "Alg. 2: lambda* eq. (8) (Prop. 2); f = K_ul (K_ll + I/C)^-1 y_l",
            False,
            "spectral kernel learning for RLS, given (or CV-selected) C and mu",
        ),
        MethodInfo(
            "skl-kta",
            _lazy(_P + "skl", "SpectralKernelLearningKTA"),
            "Mao & Tsang 2010",
            "Alg. 1: mu* by KTA eq. (10) (Prop. 3); f = (K-I)_ul K_ll^-1 y_l (Prop. 4)",
            False,
            "parameter-free spectral kernel learning (SKL_KTA)",
        ),
        MethodInfo(
            "laprls",
            _lazy(_P + "manifold", "LapRLS"),
            "Sindhwani, Belkin & Niyogi (Belkin et al. 2006)",
            "eq. (11.5), (11.7); kernel eq. (11.15)",
            True,
            "Laplacian regularized least squares (manifold regularization)",
        ),
        MethodInfo(
            "lapsvm",
            _lazy(_P + "manifold", "LapSVM"),
            "Sindhwani, Belkin & Niyogi (Belkin et al. 2006)",
            "eq. (11.5), (11.8)-(11.10)",
            True,
            "Laplacian SVM (manifold regularization)",
        ),
        MethodInfo(
            "linear-laprls",
            _lazy(_P + "linear_manifold", "LinearLapRLS"),
            "Sindhwani, Belkin & Niyogi (Sec. 11.5)",
            "eq. (11.18): (X_L^T X_L + gA l I + gI l/(u+l)^2 X^T L X) w = X_L^T Y; "
            "direct or matrix-free CG",
            True,
            "linear Laplacian RLS (primal manifold regularization)",
        ),
        MethodInfo(
            "linear-lapsvm",
            _lazy(_P + "linear_manifold", "LinearLapSVM"),
            "Sindhwani, Belkin & Niyogi (Sec. 11.5)",
            "Cholesky pre-processing, then a linear SVM",
            True,
            "linear Laplacian SVM (dense d x d; small d)",
        ),
        MethodInfo(
            "supervised-mr",
            _lazy(_P + "deformed", "SupervisedManifoldRLS"),
            "Sindhwani, Belkin & Niyogi (Sec. 11.3.3)",
            "eq. (11.14): RLS with one intrinsic term per class (labeled points only)",
            True,
            "supervised manifold regularization",
        ),
        MethodInfo(
            "svm",
            _lazy(_P + "supervised", "SVMBaseline"),
            "supervised baseline",
            "RBF SVC on the labeled points, width/C by CV on them",
            True,
            "supervised SVM (labeled points only)",
            uses_graph=False,
        ),
        MethodInfo(
            "1nn",
            _lazy(_P + "supervised", "OneNN"),
            "supervised baseline",
            "1-nearest neighbour on the labeled points",
            True,
            "1-NN (labeled points only)",
            uses_graph=False,
        ),
        MethodInfo(
            "simplemkl",
            _lazy(_P + "mkl", "SimpleMKL"),
            "Rakotomamonjy, Bach, Canu & Grandvalet 2008 (SimpleMKL)",
            "min_d J(d) on the simplex by reduced gradient, duality-gap stop; "
            "10 Gaussian + 3 polynomial unit-trace kernels (Mao & Tsang Sec. 5.3)",
            True,
            "SimpleMKL SVM (labeled points only)",
            uses_graph=False,
        ),
        MethodInfo(
            "kernel-svm",
            _lazy(_P + "kernel_machines", "KernelSVM"),
            "Liu et al. 2009, Sec. 5",
            "SVM on the labeled block of a learned kernel",
            True,
            "SVM on a learned kernel (TSK+SVM, OSK+SVM, DSK+SVM): params kernel, kernel_params, C",
        ),
        MethodInfo(
            "self-consistent",
            _lazy(_P + "self_consistent", "SelfConsistentLabeling"),
            "Kernel self-consistent labeling (rho-epsilon learning)",
            "LOO GP coefficients B (Sec. 2); dual (14)-(16), R eq. (12), by projected Newton "
            "with a certified gap; y = K R x eq. (13)",
            True,
            "hinge loss on labeled, eps-insensitive LOO loss on unlabeled points; "
            "params sigma2, C1, C2, epsilon, noise, eta, kernel (rbf, precomputed or "
            "{learner: NAME, params: {...}})",
        ),  # the graph: for a learned kernel's learner
        MethodInfo(
            "label-aware",
            _lazy(_P + "label_aware", "LabelAwareKernel"),
            "Wang, Zhang, Chen, Wang, Jiang & Marsic 2015",
            "Alg. 1: u = D^-1 K_nl Y, Nystrom "
            "eigenvectors, eq. (6)/(7) weighted by alignf; classifier eq. (5)",
            True,
            "label-aware base kernels (SVM: kernel-svm with kernel: label-aware)",
            uses_graph=False,
        ),
        MethodInfo(
            "cluster-kernel",
            _lazy(_P + "kernel_designs", "ClusterKernel"),
            "Chapelle, Weston & Schoelkopf 2002",
            "linear(-step) transfer on the top eigenpairs "
            "of D^-1/2 K D^-1/2, unit diagonal; classifier eq. (5); Nystrom induction",
            True,
            "cluster kernel, linear transfer (Wang et al. Table 1; SVM: kernel-svm)",
            uses_graph=False,
        ),
        MethodInfo(
            "diffusion-kernel",
            _lazy(_P + "kernel_designs", "DiffusionKernel"),
            "Kondor & Lafferty 2002",
            "exp(-lambda/delta) on the smallest eigenpairs of "
            "I - D^-1/2 K D^-1/2; classifier eq. (5); Nystrom induction",
            True,
            "diffusion kernel (Wang et al. Table 1; SVM: kernel-svm)",
            uses_graph=False,
        ),
        MethodInfo(
            "max-alignment-kernel",
            _lazy(_P + "kernel_designs", "MaxAlignmentKernel"),
            "Cristianini et al. 2002; Lanckriet et al. 2004",
            "max alignment s.t. mu >= 0 "
            "(OSK without order; cone QP) on the top eigenvectors of K; Nystrom induction",
            True,
            "maximal-alignment kernel (Wang et al. Table 1; SVM: kernel-svm)",
            uses_graph=False,
        ),
        # regression (Wang et al. 2015, Sec. 4.2: WiFi localization); y NaN = unlabeled
        MethodInfo(
            "svr",
            _lazy(_P + "supervised", "SVRBaseline"),
            "supervised baseline (Wang et al. 2015, Sec. 4.2)",
            "epsilon-SVR, Gaussian kernel exp(-b d^2), labeled points only",
            True,
            "supervised SVR (regression; labeled points only)",
            uses_graph=False,
            task="regression",
        ),
        MethodInfo(
            "harmonic-regression",
            _lazy(_P + "propagation", "HarmonicRegressor"),
            "Zhu, Ghahramani & Lafferty 2003 (Wang et al. 2015's Gaussian Fields)",
            "eq. (5) with continuous f_L on the dense Gaussian graph exp(-b d^2)",
            True,
            "Gaussian fields / harmonic function regressor (regression)",
            uses_graph=False,
            task="regression",
        ),
        MethodInfo(
            "label-aware-svr",
            _lazy(_P + "label_aware_regression", "LabelAwareSVR"),
            "Wang, Zhang, Chen, Wang, Jiang & Marsic 2015",
            "Alg. 1 with u = D^-1 K_nl Y_c, "
            "alignf on the target Y_c Y_c^T, then an epsilon-SVR on the learned kernel",
            True,
            "label-aware base kernels + SVR (regression)",
            uses_graph=False,
            task="regression",
        ),
        MethodInfo(
            "label-spreading",
            _sk("LabelSpreading"),
            "scikit-learn (Zhou et al. 2004)",
            "sklearn.semi_supervised.LabelSpreading",
            True,
            "scikit-learn's label spreading (peer, not in the papers)",
            uses_graph=False,
        ),
        MethodInfo(
            "label-propagation",
            _sk("LabelPropagation"),
            "scikit-learn (Zhu & Ghahramani 2002)",
            "sklearn.semi_supervised.LabelPropagation",
            True,
            "scikit-learn's label propagation (peer, not in the papers)",
            uses_graph=False,
        ),
    ]
}


def method_names(task=None):
    """Registered method names, sorted (of one ``task`` when given).

    Parameters
    ----------
    task : {"classification", "regression"} or None, default=None
        Only the methods of this task; None: every method.

    Returns
    -------
    names : list of str
        The names, in alphabetical order.

    Examples
    --------
    >>> from sskernels.learners import method_names
    >>> method_names("regression")
    ['harmonic-regression', 'label-aware-svr', 'svr']
    """
    return sorted(n for n, m in METHODS.items() if task is None or m.task == task)


#: other names of registered methods (``MethodInfo.aliases``)
ALIASES = {alias: m.name for m in METHODS.values() for alias in m.aliases}


#: the entry-point group of installed distributions' methods: ``name = "module:Class"``
ENTRY_POINT_GROUP = "sskernels.methods"


def get_method(name):
    """The :class:`MethodInfo` of a registered method, an alias, or a user's estimator.

    A user's estimator is named by its import path ``"module:Class"`` or an entry point's
    name (:func:`user_method`).

    An unknown name raises :class:`~sskernels.errors.UnknownNameError` with the closest
    known names ("did you mean ...?") and the list of methods.

    Parameters
    ----------
    name : str
        A registered name, an alias, ``"package.module:Class"`` or an entry point's name.

    Returns
    -------
    MethodInfo
        The method's entry.

    Raises
    ------
    UnknownNameError
        For an unknown name.
    ValueError
        For a user's estimator that cannot be imported or has no ``fit``
        (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

    Examples
    --------
    >>> from sskernels.learners.registry import get_method
    >>> get_method("tsk").description, get_method("spectral-graph-kernel").name
    ('transductive spectral kernel', 'osk')
    >>> get_method("tks")
    Traceback (most recent call last):
    ...
    sskernels.errors.UnknownNameError: unknown method 'tks'; did you mean 'tsk'? known methods: ...
    """
    info = METHODS.get(ALIASES.get(name, name))
    if info is not None:
        return info
    if isinstance(name, str) and (":" in name or name in entry_point_methods()):
        return user_method(name)
    import difflib

    known = sorted(set(METHODS) | set(ALIASES) | set(entry_point_methods()))
    close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    raise UnknownNameError(
        f"unknown method {name!r}; {hint}known methods: "
        f"{', '.join(method_names())} (or a user's estimator as "
        f"'package.module:Class')"
    )


def entry_point_methods():
    """``{name: "module:Class"}`` of the installed distributions' entry points of group
    :data:`ENTRY_POINT_GROUP` (registered names win over them)."""
    from importlib.metadata import entry_points

    return {
        ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in METHODS
    }


def user_method(name):
    """The :class:`MethodInfo` of a user's estimator.

    ``name`` is an import path ``"package.module:Class"`` or an entry point's name
    (:func:`entry_point_methods`).

    The class is imported now: one that cannot be imported, or that has no ``fit``, raises
    :class:`~sskernels.errors.ParameterError` naming it.  Its parameters are passed as
    given (no graph, no default selection); it is inductive when it has ``predict``.

    Parameters
    ----------
    name : str
        ``"package.module:Class"`` or the name of an entry point of group
        :data:`ENTRY_POINT_GROUP`.

    Returns
    -------
    MethodInfo
        The entry of the user's estimator (``user=True``, ``uses_graph=False``).

    Raises
    ------
    ValueError
        For a path without ``module:Class`` form, a class that cannot be imported, or one
        without ``fit`` (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).
    KeyError
        For a name without ``":"`` that is no entry point's name.

    Examples
    --------
    >>> from sskernels.learners.registry import user_method
    >>> info = user_method("sklearn.semi_supervised:LabelSpreading")
    >>> info.user, info.inductive, info.uses_graph
    (True, True, False)
    """
    path = name if ":" in name else entry_point_methods()[name]
    module, _, attr = path.partition(":")
    if not module or not attr:
        raise ParameterError(f"method {name!r}: expected an import path 'package.module:Class'")
    factory = _lazy(module, attr)
    try:
        cls = factory.cls
    except Exception as exc:  # the user's module: any import failure is theirs
        raise ParameterError(
            f"method {name!r}: cannot import {path} ({type(exc).__name__}: {exc})"
        ) from None
    if not callable(getattr(cls, "fit", None)):
        raise ParameterError(
            f"method {name!r}: {path} has no fit method (expected a "
            "scikit-learn classifier taking -1 for unlabeled points)"
        )
    return MethodInfo(
        name,
        factory,
        "user estimator",
        path,
        callable(getattr(cls, "predict", None)),
        f"user estimator {path}",
        uses_graph=False,
        user=True,
    )


#: graph parameters of a spec (``graph:`` section), turned into ``graph=KNNGraph(...)``
GRAPH_KEYS = ("n_neighbors", "weights", "sigma", "metric", "method")
#: spec parameters of the model-selection wrapper (old names on the right map to new ones)
WRAPPER_KEYS = {
    "n_folds": "n_folds",
    "cv_folds": "n_folds",
    "beta_folds": "n_folds",
    "C_folds": "n_folds",
    "cv_protocol": "protocol",
    "protocol": "protocol",
}
_PROTOCOL_NAMES = {"standard": "kfold", "kfold": "kfold", "one-fold-labeled": "one-fold-labeled"}


#: the ``random_state`` of a spec's estimators and selection wrapper when the spec names none
SPEC_SEED = 0


def make_method(name, **params):
    """An unfitted estimator for a registered method name and a spec's parameters.

    The spec's parameters map onto one estimator and, where a parameter is
    selected, the model-selection wrapper
    (:class:`~sskernels.learners.selection.SelectOnLabeled`; for a regressor
    :class:`~sskernels.learners.selection.SelectOnLabeledRegressor`):

    * ``n_neighbors``, ``weights``, ``sigma``, ``metric`` -> ``graph=KNNGraph(...)``
      for estimators that take a graph (ignored by the others);
    * ``P: auto`` -> select P over the method's default grid (its class's
      ``_selection``); for a parameter without a grid, ``auto`` means the
      estimator's default (and switches on a selection it disables, e.g. the
      width scale when ``kernel_width`` is not fixed);
    * ``P_grid: [...]`` or ``P: [...]`` (P selectable) -> select P over that grid,
      put in the method's preference order;
    * a parameter in the class's ``_selection`` that the spec does not set is
      selected over its default grid (the paper's choices recorded there);
    * ``n_folds`` (old: ``cv_folds``, ``beta_folds``, ``C_folds``), ``cv_protocol``
      (``standard`` = ``kfold``, ``one-fold-labeled``), ``random_state`` -> the wrapper and
      the estimator (when it takes one; :data:`SPEC_SEED` = 0 when the spec names none,
      although the estimators default to None);
    * a class may define ``_spec_params(params, make_learner, graph_given)`` to map nested
      specs (``kernel-svm``: ``kernel`` + ``kernel_params`` -> ``kernel_learner``).

    scikit-learn's peers (``label-spreading``, ``label-propagation``) and estimators that
    are not sskernels learners (a user's) take the parameters as given.

    Parameters
    ----------
    name : str
        A registered method name (:func:`method_names`) or an alias; also a user's
        estimator, by its import path ``"package.module:Class"`` or an entry point's
        name.
    **params : dict
        The spec's parameters of the method (see above).

    Returns
    -------
    estimator : object
        The unfitted estimator, or the model-selection wrapper around it when a
        parameter is selected over more than one value (a grid of one value is set on
        the estimator).

    Raises
    ------
    UnknownNameError
        For an unknown method name (:class:`~sskernels.errors.UnknownNameError`, with the
        closest known names).
    ValueError
        For a ``cv_protocol`` that is not ``standard``, ``kfold`` or
        ``one-fold-labeled``.

    Examples
    --------
    >>> from sskernels.learners import make_method
    >>> make_method("consistency", alpha=0.9, n_neighbors=10)
    Consistency(alpha=0.9, graph=KNNGraph(n_neighbors=10))
    >>> make_method("tsk").param_grid          # beta selected over its default grid
    {'beta': [1000.0, 100.0, 10.0, 1.0, 0.1, 0.01, 0.001]}
    """
    from sskernels.learners.selection import (
        SelectOnLabeled,
        SelectOnLabeledRegressor,
        default_grid,
        ordered_grid,
    )

    factory = get_method(name).factory
    cls = getattr(factory, "cls", None)
    if cls is None:  # scikit-learn peers: parameters as given
        return factory(**params)
    from sskernels.learners.base import SemiSupervisedClassifier, SemiSupervisedRegressor

    if not issubclass(cls, (SemiSupervisedClassifier, SemiSupervisedRegressor)):
        # a foreign estimator: params as given
        return factory(**params)
    params = dict(params)
    accepted = set(cls().get_params(deep=False)) if _default_constructible(cls) else set()
    graph_given = {k: params.pop(k) for k in GRAPH_KEYS if k in params}
    if "graph" in accepted and "graph" not in params:
        from sskernels.graph import KNNGraph

        default = dict(getattr(cls, "_default_graph", {}))
        builder = KNNGraph
        if graph_given.get("method") == "nndescent":  # a million points (graph/descent.py)
            from sskernels.graph.descent import DescentGraph as builder
        params["graph"] = builder(**{**default, **graph_given})
    hook = getattr(cls, "_spec_params", None)
    if hook is not None:

        def make_learner(name, kernel_params, who):
            return kernel_learner_from_spec(name, kernel_params, graph_given, who)

        params = hook(params, make_learner, graph_given)
    # a spec's seed: the estimators default to random_state=None (a fresh draw per fit, as in
    # scikit-learn); a spec that names none runs with 0, so its records are reproducible
    seed = params.get("random_state", SPEC_SEED)
    wrapper = {"random_state": seed}
    if "random_state" in accepted:
        params["random_state"] = seed
    else:
        params.pop("random_state", None)
    for key in [k for k in params if k in WRAPPER_KEYS]:
        value = params.pop(key)
        if WRAPPER_KEYS[key] == "protocol":
            if value not in _PROTOCOL_NAMES:
                raise ParameterError(
                    f"cv_protocol must be one of {sorted(_PROTOCOL_NAMES)}, got {value!r}"
                )
            value = _PROTOCOL_NAMES[value]
        wrapper[WRAPPER_KEYS[key]] = value
    selection = getattr(cls, "_selection", {})
    grid = {}
    for key in list(params):
        if key.endswith("_grid") and key[:-5] in selection:
            grid[key[:-5]] = list(params.pop(key))
    for key in list(params):
        value = params[key]
        if isinstance(value, str) and value == "auto":
            if key not in (accepted or set(cls._get_param_names())):  # a misspelt name
                raise TypeError(
                    f"{cls.__name__}.__init__() got an unexpected keyword argument '{key}'"
                )
            params.pop(key)
            if key in selection and key not in grid:
                grid[key] = list(selection[key][0])
        elif key in selection and isinstance(value, (list, tuple)):
            grid[key] = list(params.pop(key))
        elif key in grid:  # a fixed value wins over a grid given beside it
            grid.pop(key)
    for key, values in default_grid(cls, params).items():
        grid.setdefault(key, values)
    est = cls(**params)
    grid = ordered_grid(est, grid)
    fixed = {k: v[0] for k, v in grid.items() if len(v) == 1}
    if fixed:
        est.set_params(**fixed)
    grid = {k: v for k, v in grid.items() if len(v) > 1}
    if not grid:
        return est
    if issubclass(cls, SemiSupervisedRegressor):
        return SelectOnLabeledRegressor(est, grid, **wrapper)
    return SelectOnLabeled(est, grid, **wrapper)


def kernel_learner_from_spec(name, kernel_params, graph_given, who):
    """The kernel learner a spec names: ``make_method(name, **graph, **kernel_params)``.

    The spec's graph keys go to the kernel learner when its method uses the
    graph (else only those its constructor takes).  Unknown kernel parameters
    and methods without a learned kernel are refused with a ValueError (``who``
    names the method asking, for the message).

    Parameters
    ----------
    name : str
        The kernel learner's method name (:func:`get_method`).
    kernel_params : dict or None
        The spec's ``kernel_params`` (None: none).
    graph_given : dict
        The graph keys of the spec (:data:`GRAPH_KEYS`: ``n_neighbors``, ``weights``, ...).
    who : str
        The method asking (e.g. ``"kernel-svm"``).

    Returns
    -------
    estimator
        The unfitted kernel learner, or a
        :class:`~sskernels.learners.selection.SelectOnLabeled` wrapper of it when a
        parameter is selected.

    Raises
    ------
    UnknownNameError
        For an unknown method name.
    ValueError
        For a kernel parameter the learner does not take, or a method without a learned
        kernel (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

    Examples
    --------
    >>> from sskernels.learners.registry import kernel_learner_from_spec
    >>> kernel_learner_from_spec("tsk", {"beta": 10}, {"n_neighbors": 8}, "kernel-svm")
    TransductiveSpectralKernel(beta=10, graph=KNNGraph(n_neighbors=8))
    >>> kernel_learner_from_spec("harmonic", None, {}, "kernel-svm")
    Traceback (most recent call last):
    ...
    sskernels.errors.ParameterError: kernel-svm: harmonic does not learn a kernel
    """
    kernel_params = dict(kernel_params or {})
    info = get_method(name)
    graph = dict(graph_given)
    cls = getattr(info.factory, "cls", None)
    if not info.uses_graph:
        try:
            accepted = set(cls().get_params(deep=False)) if cls is not None else set()
        except TypeError:
            accepted = set()
        graph = {k: v for k, v in graph.items() if k in accepted}
    try:
        learner = make_method(name, **{**graph, **kernel_params})
    except TypeError as exc:
        bad = re.search(r"unexpected keyword argument '(\w+)'", str(exc))
        known = ", ".join(sorted(cls().get_params(deep=False))) if cls is not None else ""
        what = f"kernel_params.{bad.group(1)}" if bad else "kernel_params"
        raise ParameterError(f"{what} is not a parameter of {name} ({known})") from None
    inner = getattr(learner, "estimator", learner)  # a SelectOnLabeled wrapper's learner
    if not callable(getattr(inner, "kernel", None)):
        raise ParameterError(f"{who}: {name} does not learn a kernel")
    return learner


def _default_constructible(cls):
    import inspect

    sig = inspect.signature(cls.__init__)
    return all(
        p.default is not inspect.Parameter.empty
        for n, p in sig.parameters.items()
        if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    )
