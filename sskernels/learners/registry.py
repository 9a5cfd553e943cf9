"""The methods a spec can name: factory, paper, equation, inductive or not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from sskernels.errors import UnknownNameError


@dataclass(frozen=True)
class MethodInfo:
    name: str
    factory: Callable
    paper: str
    equation: str
    inductive: bool
    description: str
    uses_graph: bool = True
    aliases: tuple = field(default=())


def _sk(cls_name):
    def make(**params):
        import sklearn.semi_supervised as ss

        return getattr(ss, cls_name)(**params)

    make.__name__ = cls_name
    return make


def _lazy(module, cls_name):
    def make(**params):
        import importlib

        return getattr(importlib.import_module(module), cls_name)(**params)

    make.__name__ = cls_name
    return make


_P = "sskernels.learners."
METHODS = {m.name: m for m in [
    MethodInfo("harmonic", _lazy(_P + "propagation", "HarmonicFunction"),
               "Zhu, Ghahramani & Lafferty 2003", "eq. (5): f_U = -L_UU^-1 L_UL f_L", True,
               "Gaussian fields and harmonic functions"),
    MethodInfo("consistency", _lazy(_P + "propagation", "Consistency"),
               "Zhou et al. 2004", "Liu et al. eq. (3): F = (1-a)(I - aS)^-1 C", True,
               "local and global consistency"),
    MethodInfo("rsk", _lazy(_P + "spectral", "RegularizedSpectralKernel"),
               "Liu et al. 2009", "eq. (4)-(5), induction eq. (17)-(19)", True,
               "regularized spectral kernel"),
    MethodInfo("tsk", _lazy(_P + "spectral", "TransductiveSpectralKernel"),
               "Liu et al. 2009", "LP eq. (12)/(14), classifier eq. (5), induction eq. (17)-(19)",
               True, "transductive spectral kernel"),
    MethodInfo("osk", _lazy(_P + "spectral_transforms", "OrderConstrainedSpectralKernel"),
               "Zhu, Kandola, Ghahramani & Lafferty 2004",
               "max alignment s.t. mu_t >= mu_t+1 >= 0 (cone QP); classifier eq. (5); "
               "induction eq. (17)-(19)", True, "order-constrained spectral kernel"),
    MethodInfo("dsk", _lazy(_P + "spectral_transforms", "FastDecaySpectralKernel"),
               "Hoi, Lyu & Chang 2006",
               "max alignment s.t. mu_i >= eta mu_i+1 (Liu eq. (8)); classifier eq. (5); "
               "Nystrom induction", True, "fast-decay spectral kernel (RBF spectrum)",
               uses_graph=False),
    MethodInfo("skl", _lazy(_P + "skl", "SpectralKernelLearning"),
               "Mao & Tsang 2010", "Alg. 2: lambda* eq. (8) (Prop. 2); f = K_ul (K_ll + I/C)^-1 y_l",
               False, "spectral kernel learning for RLS, given (or CV-selected) C and mu"),
    MethodInfo("skl-kta", _lazy(_P + "skl", "SpectralKernelLearningKTA"),
               "Mao & Tsang 2010",
               "Alg. 1: mu* by KTA eq. (10) (Prop. 3); f = (K-I)_ul K_ll^-1 y_l (Prop. 4)",
               False, "parameter-free spectral kernel learning (SKL_KTA)"),
    MethodInfo("laprls", _lazy(_P + "manifold", "LapRLS"),
               "Sindhwani, Belkin & Niyogi (Belkin et al. 2006)",
               "eq. (11.5), (11.7); kernel eq. (11.15)", True,
               "Laplacian regularized least squares (manifold regularization)"),
    MethodInfo("lapsvm", _lazy(_P + "manifold", "LapSVM"),
               "Sindhwani, Belkin & Niyogi (Belkin et al. 2006)", "eq. (11.5), (11.8)-(11.10)",
               True, "Laplacian SVM (manifold regularization)"),
    MethodInfo("linear-laprls", _lazy(_P + "linear_manifold", "LinearLapRLS"),
               "Sindhwani, Belkin & Niyogi (Sec. 11.5)",
               "eq. (11.18): (X_L^T X_L + gA l I + gI l/(u+l)^2 X^T L X) w = X_L^T Y; "
               "direct or matrix-free CG", True,
               "linear Laplacian RLS (primal manifold regularization)"),
    MethodInfo("linear-lapsvm", _lazy(_P + "linear_manifold", "LinearLapSVM"),
               "Sindhwani, Belkin & Niyogi (Sec. 11.5)",
               "Cholesky pre-processing, then a linear SVM", True,
               "linear Laplacian SVM (dense d x d; small d)"),
    MethodInfo("supervised-mr", _lazy(_P + "deformed", "SupervisedManifoldRLS"),
               "Sindhwani, Belkin & Niyogi (Sec. 11.3.3)",
               "eq. (11.14): RLS with one intrinsic term per class (labeled points only)", True,
               "supervised manifold regularization"),
    MethodInfo("svm", _lazy(_P + "manifold", "SVMBaseline"), "supervised baseline",
               "RBF SVC on the labeled points, width/C by CV on them", True,
               "supervised SVM (labeled points only)", uses_graph=False),
    MethodInfo("1nn", _lazy(_P + "manifold", "OneNN"), "supervised baseline",
               "1-nearest neighbour on the labeled points", True,
               "1-NN (labeled points only)", uses_graph=False),
    MethodInfo("simplemkl", _lazy(_P + "mkl", "SimpleMKL"),
               "Rakotomamonjy, Bach, Canu & Grandvalet 2008 (SimpleMKL)",
               "min_d J(d) on the simplex by reduced gradient, duality-gap stop; "
               "10 Gaussian + 3 polynomial unit-trace kernels (Mao & Tsang Sec. 5.3)",
               True, "SimpleMKL SVM (labeled points only)", uses_graph=False),
    MethodInfo("kernel-svm", _lazy(_P + "kernel_machines", "KernelSVM"),
               "Liu et al. 2009, Sec. 5", "SVM on the labeled block of a learned kernel", True,
               "SVM on a learned kernel (TSK+SVM, OSK+SVM, DSK+SVM): params kernel, "
               "kernel_params, C"),
    MethodInfo("label-spreading", _sk("LabelSpreading"), "scikit-learn (Zhou et al. 2004)",
               "sklearn.semi_supervised.LabelSpreading", True,
               "scikit-learn's label spreading (peer, not in the papers)", uses_graph=False),
    MethodInfo("label-propagation", _sk("LabelPropagation"), "scikit-learn (Zhu & Ghahramani 2002)",
               "sklearn.semi_supervised.LabelPropagation", True,
               "scikit-learn's label propagation (peer, not in the papers)", uses_graph=False),
]}


def method_names():
    return sorted(METHODS)


def get_method(name):
    try:
        return METHODS[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown method {name!r}; known methods: {', '.join(method_names())}") from None


def make_method(name, **params):
    """An unfitted estimator for a registered method name."""
    return get_method(name).factory(**params)
