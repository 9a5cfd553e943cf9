"""Learners, one module per method family, and the registry the CLI and specs use."""

from sskernels.learners.base import (
    UNLABELED,
    GraphClassifier,
    GraphSemiSupervisedClassifier,
    SemiSupervisedClassifier,
    SemiSupervisedRegressor,
    check_partial_labels,
)
from sskernels.learners.deformed import DeformedKernel, SupervisedManifoldRLS
from sskernels.learners.kernel_machines import KernelSVM
from sskernels.learners.kernel_designs import ClusterKernel, DiffusionKernel, MaxAlignmentKernel
from sskernels.learners.label_aware import LabelAwareKernel
from sskernels.learners.label_aware_regression import LabelAwareSVR
from sskernels.learners.linear_manifold import LinearLapRLS, LinearLapSVM
from sskernels.learners.mkl import SimpleMKL
from sskernels.learners.manifold import LapRLS, LapSVM
from sskernels.learners.selection import SelectOnLabeled, SelectOnLabeledRegressor
from sskernels.learners.self_consistent import SelfConsistentLabeling
from sskernels.learners.supervised import OneNN, SVMBaseline, SVRBaseline
from sskernels.kernels.deformed import deformed_kernel
from sskernels.learners.propagation import Consistency, HarmonicFunction, HarmonicRegressor
from sskernels.learners.registry import METHODS, MethodInfo, make_method, method_names
from sskernels.learners.skl import SpectralKernelLearning, SpectralKernelLearningKTA
from sskernels.learners.spectral_clustering import (
    RegularizedLaplacianEigenmaps,
    RegularizedSpectralClustering,
)
from sskernels.learners.spectral_transforms import (
    FastDecaySpectralKernel,
    OrderConstrainedSpectralKernel,
)
from sskernels.learners.spectral import (
    RegularizedSpectralKernel,
    SpectralKernelClassifier,
    TransductiveSpectralKernel,
    tsk_constraint_matrix,
    tsk_linear_program,
)

__all__ = [
    "UNLABELED", "GraphClassifier", "check_partial_labels", "HarmonicFunction", "Consistency",
    "SpectralKernelClassifier", "RegularizedSpectralKernel", "TransductiveSpectralKernel",
    "tsk_constraint_matrix", "tsk_linear_program", "METHODS", "MethodInfo", "make_method",
    "method_names", "KernelSVM", "LapRLS", "LapSVM", "SVMBaseline", "OneNN", "deformed_kernel",
    "OrderConstrainedSpectralKernel", "FastDecaySpectralKernel", "SpectralKernelLearning",
    "SpectralKernelLearningKTA", "SimpleMKL", "LinearLapRLS", "LinearLapSVM",
    "RegularizedSpectralClustering", "RegularizedLaplacianEigenmaps", "DeformedKernel",
    "SupervisedManifoldRLS", "SelectOnLabeled", "SelfConsistentLabeling", "SemiSupervisedClassifier",
    "GraphSemiSupervisedClassifier", "LabelAwareKernel", "ClusterKernel", "DiffusionKernel",
    "MaxAlignmentKernel", "SemiSupervisedRegressor", "SelectOnLabeledRegressor", "SVRBaseline",
    "HarmonicRegressor", "LabelAwareSVR",
]
