"""Learners, one module per method family, and the registry the CLI and specs use.

The names below are imported on first use (``from sskernels.learners import LapRLS``
imports :mod:`sskernels.learners.manifold` only), so that the command line and the
registry start without importing every learner.
"""

from __future__ import annotations

import importlib

#: public name -> the module that defines it (the provenance closures read this too)
_EXPORTS = {
    "UNLABELED": "sskernels.learners.base",
    "GraphClassifier": "sskernels.learners.graph_base",
    "GraphSemiSupervisedClassifier": "sskernels.learners.graph_base",
    "SemiSupervisedClassifier": "sskernels.learners.base",
    "SemiSupervisedRegressor": "sskernels.learners.base",
    "check_partial_labels": "sskernels.learners.base",
    "DeformedKernel": "sskernels.learners.deformed",
    "SupervisedManifoldRLS": "sskernels.learners.deformed",
    "KernelSVM": "sskernels.learners.kernel_machines",
    "ClusterKernel": "sskernels.learners.kernel_designs",
    "DiffusionKernel": "sskernels.learners.kernel_designs",
    "MaxAlignmentKernel": "sskernels.learners.kernel_designs",
    "LabelAwareKernel": "sskernels.learners.label_aware",
    "LabelAwareSVR": "sskernels.learners.label_aware_regression",
    "IterativeLabelPropagation": "sskernels.learners.label_propagation",
    "LinearLapRLS": "sskernels.learners.linear_manifold",
    "LinearLapSVM": "sskernels.learners.linear_manifold",
    "SimpleMKL": "sskernels.learners.mkl",
    "LapRLS": "sskernels.learners.manifold",
    "LapSVM": "sskernels.learners.manifold",
    "SelectOnLabeled": "sskernels.learners.selection",
    "SelectOnLabeledRegressor": "sskernels.learners.selection",
    "SelfConsistentLabeling": "sskernels.learners.self_consistent",
    "OneNN": "sskernels.learners.supervised",
    "SVMBaseline": "sskernels.learners.supervised",
    "SVRBaseline": "sskernels.learners.supervised",
    "deformed_kernel": "sskernels.kernels.deformed",
    "Consistency": "sskernels.learners.propagation",
    "HarmonicFunction": "sskernels.learners.propagation",
    "HarmonicRegressor": "sskernels.learners.propagation",
    "METHODS": "sskernels.learners.catalog",
    "MethodInfo": "sskernels.learners.catalog",
    "make_method": "sskernels.learners.registry",
    "method_names": "sskernels.learners.catalog",
    "SpectralKernelLearning": "sskernels.learners.skl",
    "SpectralKernelLearningKTA": "sskernels.learners.skl",
    "RegularizedLaplacianEigenmaps": "sskernels.learners.spectral_clustering",
    "RegularizedSpectralClustering": "sskernels.learners.spectral_clustering",
    "FastDecaySpectralKernel": "sskernels.learners.spectral_transforms",
    "OrderConstrainedSpectralKernel": "sskernels.learners.spectral_transforms",
    "RegularizedSpectralKernel": "sskernels.learners.spectral",
    "SpectralKernelClassifier": "sskernels.learners.spectral",
    "TransductiveSpectralKernel": "sskernels.learners.spectral",
    "tsk_constraint_matrix": "sskernels.learners.spectral",
    "tsk_linear_program": "sskernels.learners.spectral",
}

__all__ = [
    "UNLABELED",
    "GraphClassifier",
    "check_partial_labels",
    "HarmonicFunction",
    "Consistency",
    "SpectralKernelClassifier",
    "RegularizedSpectralKernel",
    "TransductiveSpectralKernel",
    "tsk_constraint_matrix",
    "tsk_linear_program",
    "METHODS",
    "MethodInfo",
    "make_method",
    "method_names",
    "KernelSVM",
    "LapRLS",
    "LapSVM",
    "SVMBaseline",
    "OneNN",
    "deformed_kernel",
    "OrderConstrainedSpectralKernel",
    "FastDecaySpectralKernel",
    "SpectralKernelLearning",
    "SpectralKernelLearningKTA",
    "SimpleMKL",
    "LinearLapRLS",
    "LinearLapSVM",
    "RegularizedSpectralClustering",
    "RegularizedLaplacianEigenmaps",
    "DeformedKernel",
    "SupervisedManifoldRLS",
    "SelectOnLabeled",
    "SelfConsistentLabeling",
    "SemiSupervisedClassifier",
    "GraphSemiSupervisedClassifier",
    "LabelAwareKernel",
    "ClusterKernel",
    "DiffusionKernel",
    "MaxAlignmentKernel",
    "SemiSupervisedRegressor",
    "SelectOnLabeledRegressor",
    "SVRBaseline",
    "HarmonicRegressor",
    "LabelAwareSVR",
    "IterativeLabelPropagation",
]


def _registered(name):
    """The module of a registered method's class named ``name`` (a family added with one
    registry entry is importable from here without a line above), or None."""
    from sskernels.learners.registry import METHODS

    for info in METHODS.values():
        factory = info.factory
        if getattr(factory, "cls_name", None) == name and hasattr(factory, "module"):
            return factory.module
    return None


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None and not name.startswith("_"):
        module = _registered(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    from sskernels.learners.registry import METHODS

    names = {getattr(i.factory, "cls_name", None) for i in METHODS.values()}
    return sorted(set(globals()) | set(_EXPORTS) | {n for n in names if n and "." not in n})
