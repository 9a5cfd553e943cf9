"""The catalog of registered methods: one :class:`MethodInfo` per name a spec can use
(:data:`METHODS`, :data:`ALIASES`); :mod:`sskernels.learners.registry` finds them and builds
their estimators.  Adding a family adds one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

__all__ = ["ALIASES", "METHODS", "MethodInfo", "method_names"]


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
