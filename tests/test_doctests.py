"""Every docstring example of the package runs as part of the suite (``pytest
--doctest-modules sskernels``'s equivalent).

The modules are found by walking :mod:`sskernels` (a new module is covered without editing
this file); each module's
doctests run through :func:`doctest.testmod`, one test per module, with BLAS on one thread
(as the other tests: the examples' numbers do not depend on it, their time does).  A failed
example prints doctest's report (expected and got) in the captured output.

Independent checks of the estimator classes of ``sskernels.learners.__all__`` (a class with
its own constructor and ``fit`` or ``__call__``): each has an ``Examples`` section with an
example that names it, so that an example cannot disappear unnoticed, and (where numpydoc is
installed: the docs' requirements) its ``Parameters`` section documents exactly the
constructor's parameters (numpydoc's checks PR01, PR02).
"""

import doctest
import importlib
import inspect
import pkgutil

import pytest
from threadpoolctl import threadpool_limits

PACKAGES = ("sskernels",)


def _modules():
    names = []
    for package in PACKAGES:
        names.append(package)
        path = importlib.import_module(package).__path__
        names += [info.name for info in pkgutil.walk_packages(path, prefix=package + ".")]
    return sorted(names)


MODULES = _modules()


def _estimators():
    """The estimator classes of ``sskernels.learners.__all__``: constructed by a package
    ``__init__`` (not the abstract bases) and used by ``fit`` or as a callable kernel."""
    import sskernels.learners as learners

    out = []
    for name in learners.__all__:
        obj = getattr(learners, name)
        if not inspect.isclass(obj) or not (hasattr(obj, "fit") or "__call__" in vars(obj)):
            continue
        owns_init = any(
            "__init__" in vars(cls)
            for cls in obj.__mro__
            if cls.__module__.startswith("sskernels.")
        )
        if owns_init:
            out.append(name)
    return out


ESTIMATORS = _estimators()


def test_the_walk_finds_the_modules():
    assert "sskernels.learners.propagation" in MODULES
    assert "sskernels.graph.knn" in MODULES
    assert "sskernels.kernels.deformed" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    with threadpool_limits(limits=1):
        result = doctest.testmod(module, report=True, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed"


def test_every_estimator_is_listed():
    # the estimators of the API reference's sections; the bases are not among them
    assert {
        "HarmonicFunction",
        "Consistency",
        "KernelSVM",
        "DeformedKernel",
        "SelectOnLabeledRegressor",
        "RegularizedLaplacianEigenmaps",
    } <= set(ESTIMATORS)
    assert not {
        "GraphClassifier",
        "SemiSupervisedClassifier",
        "SemiSupervisedRegressor",
        "MethodInfo",
    } & set(ESTIMATORS)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimator_has_an_example(name):
    import sskernels.learners as learners

    cls = getattr(learners, name)
    doc = inspect.getdoc(cls) or ""
    assert "\nExamples\n--------\n" in doc, f"{name}'s docstring has no Examples section"
    examples = doctest.DocTestParser().get_examples(doc.split("\nExamples\n--------\n", 1)[1])
    assert examples, f"{name}'s Examples section has no doctest"
    assert any(name in ex.source for ex in examples), f"{name}'s examples do not use {name}"


@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimator_parameters_are_documented(name):
    validate = pytest.importorskip(
        "numpydoc.validate", reason="numpydoc is not installed (docs/requirements.txt)"
    ).validate
    import sskernels.learners as learners

    cls = getattr(learners, name)
    errors = [
        f"{code}: {message}"
        for code, message in validate(f"{cls.__module__}.{name}")["errors"]
        if code in ("PR01", "PR02")
    ]
    assert not errors, f"{name}: " + "; ".join(errors)
