"""Provenance per method: a record's code key covers the code its method runs and nothing else.

Checked against independent evidence: edits made to a copy of the package (a docstring, a
comment, a numerical constant in a solver, a learner) and the files a fit really executes
(traced with ``sys.setprofile``), which must all lie inside the statically found closure.
"""

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_wine

from sskernels import provenance as prov
from sskernels.experiment.tasks import TASK_MODULES, method_code_modules
from sskernels.learners.registry import METHODS, make_method

#: the methods checked: every registered classification method (scikit-learn's peers have
#: no code of ours) and kernel SVMs over three kernel learners of different families
BUILT = {
    name: (name, {})
    for name, m in METHODS.items()
    if m.task == "classification" and getattr(m.factory, "cls", None) is not None
}
BUILT.update(
    {
        "kernel-svm/tsk": ("kernel-svm", {"kernel": "tsk"}),
        "kernel-svm/label-aware": ("kernel-svm", {"kernel": "label-aware"}),
        "kernel-svm/cluster-kernel": ("kernel-svm", {"kernel": "cluster-kernel"}),
    }
)


def roots(key):
    name, params = BUILT[key]
    return method_code_modules(make_method(name, **params))


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("pkg") / "sskernels"
    shutil.copytree(prov.PACKAGE_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def keys(root):
    return {k: prov.code_key(roots(k), root) for k in BUILT}


def closures(root=None):
    return {k: prov.closure(roots(k), root) for k in BUILT}


def changed_by(path, old, new):
    """The methods whose code key changes when ``old`` becomes ``new`` in ``path`` (a file
    of the package copy; restored afterwards)."""
    root = next(p for p in path.parents if p.name == "sskernels")
    before = keys(root)
    text = path.read_text()
    assert text.count(old) >= 1, (path, old)
    path.write_text(text.replace(old, new, 1))
    try:
        after = keys(root)
    finally:
        path.write_text(text)
    return {k for k in BUILT if before[k] != after[k]}


# ---------------------------------------------------------------------------- normalization


def test_docstrings_comments_and_formatting_do_not_count(package_copy):
    module = package_copy / "learners" / "spectral.py"
    before = keys(package_copy)
    digest = prov.module_digest("sskernels.learners.spectral", package_copy)
    original = module.read_text()
    try:
        text = original.replace('"""', '"""An edited docstring. ', 1)  # the module's
        text = text.replace("\n    def ", "\n    # a new comment\n\n    def ", 3)
        text = text.replace("(", "( ", 5)  # formatting: no AST change
        module.write_text(text)
        assert prov.module_digest("sskernels.learners.spectral", package_copy) == digest
        assert keys(package_copy) == before
    finally:
        module.write_text(original)


def test_a_numerical_change_in_a_solver_recomputes_exactly_its_importers(package_copy):
    """solvers/cone.py: the methods whose closure holds it change key, no other does; and
    every method whose fit executes cone.py (traced) is among them."""
    holders = {k for k, mods in closures(package_copy).items() if "sskernels.solvers.cone" in mods}
    changed = changed_by(package_copy / "solvers" / "cone.py", "1e-", "2e-")
    assert changed == holders
    assert "harmonic" not in changed and "consistency" not in changed and "laprls" not in changed
    assert {"osk", "label-aware", "kernel-svm/label-aware"} <= changed
    runs_cone = {k for k, files in executed_files().items() if "solvers/cone.py" in files}
    assert runs_cone and runs_cone <= changed


def test_an_edit_of_provenance_itself_recomputes_nothing(package_copy):
    """provenance.py finds and hashes closures and computes no number: a code change in it
    (here the size of its parse cache) keeps every method's key, though every task imports it."""
    assert "sskernels.provenance" in prov.imports("sskernels.experiment.tasks", package_copy)
    assert not any("sskernels.provenance" in mods for mods in closures(package_copy).values())
    assert changed_by(package_copy / "provenance.py", "maxsize=4096", "maxsize=4097") == set()


def builds_graph(key):
    """Whether a method's estimator takes a graph: an object among its parameters has a
    ``graph`` parameter (independent of the import closures)."""
    name, params = BUILT[key]
    return any(
        "graph" in o.get_params(deep=False)
        for o in prov.walk_params(make_method(name, **params))
        if hasattr(o, "get_params") and not isinstance(o, type)
    )


@pytest.mark.parametrize(
    "module, edit_, expected",
    [
        # a leaf family: the propagation methods alone
        (
            "learners/propagation.py",
            ("ALPHAS, WIDE_B_SCALES", "ALPHAS, WIDE_B_SCALES  # x\n_E = 1"),
            {"harmonic", "consistency"},
        ),
        # Liu et al.'s family: RSK and TSK, and a kernel SVM's learner is TSK unless the spec
        # names another (the default is imported by name when used: a kernel SVM on another
        # learner's kernel does not hold spectral.py); OSK and DSK subclass the shared
        # classifier of spectral_base.py, not this family
        (
            "learners/spectral.py",
            ("_LPS = LRU(", "_LPS = LRU(1 + "),
            {"rsk", "tsk", "kernel-svm", "kernel-svm/tsk"},
        ),
        # the shared spectral classifier: Liu et al.'s family and the spectral transforms
        (
            "learners/spectral_base.py",
            ("ZERO_TOL = ", "ZERO_TOL = 1 * "),
            {"rsk", "tsk", "osk", "dsk", "kernel-svm", "kernel-svm/tsk"},
        ),
        # the graph package: exactly the methods that build a graph (not the kernel SVMs on
        # Wang et al.'s kernels, the self-consistent labeling or the supervised SVM)
        ("graph/exact.py", ("_BLOCK = ", "_BLOCK = 1 * "), "graph builders"),
        # the kernel SVM: every method that runs an SVM on a learned kernel
        (
            "learners/kernel_machines.py",
            ("C_GRID = ", "C_GRID = 1 * "),
            {"kernel-svm", "kernel-svm/tsk", "kernel-svm/label-aware", "kernel-svm/cluster-kernel"},
        ),
        # the memo of fitted kernel learners: the kernel SVMs and the self-consistent labeling
        (
            "learners/fitted.py",
            ("_FITTED = LRU(", "_FITTED = LRU(1 + "),
            {
                "kernel-svm",
                "kernel-svm/tsk",
                "kernel-svm/label-aware",
                "kernel-svm/cluster-kernel",
                "self-consistent",
            },
        ),
        # the registry builds the estimators and its catalog names the methods: in no record's
        # code key (the estimator built is, as its parameters), so a new method leaves every key
        ("learners/registry.py", ("GRAPH_KEYS = ", "_Q = 1\nGRAPH_KEYS = "), set()),
        ("learners/catalog.py", ("_P = ", "_Q = 1\n_P = "), set()),
    ],
)
def test_a_change_in_one_learner_recomputes_only_its_own_methods(
    package_copy, module, edit_, expected
):
    if expected == "graph builders":
        # and DSK: its module (spectral_transforms.py) holds the order-constrained kernel too,
        # a graph learner
        expected = {k for k in BUILT if builds_graph(k)} | {"dsk"}
        # the supervised SVM and the kernel SVMs on Wang et al.'s kernels build none
        assert {"svm", "kernel-svm/label-aware", "kernel-svm/cluster-kernel"}.isdisjoint(expected)
        assert {"harmonic", "tsk", "kernel-svm/tsk"} <= expected
    assert changed_by(package_copy / module, *edit_) == expected


def test_reexports_are_followed_to_the_defining_module(tmp_path):
    root = tmp_path / "sskernels"
    (root / "fam").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "fam" / "__init__.py").write_text(
        "from .a import A\nfrom sskernels.fam.b import B\nOWN = 1\n"
    )
    (root / "fam" / "a.py").write_text("A = 1\n")
    (root / "fam" / "b.py").write_text("from . import a\nB = a.A\n")
    (root / "user.py").write_text(
        "from sskernels.fam import B\n\ndef f():\n    from sskernels.fam.a import A\n    return A\n"
    )
    (root / "owner.py").write_text("from sskernels.fam import OWN\n")
    assert prov.closure(["sskernels.user"], root) == (
        "sskernels.fam.a",
        "sskernels.fam.b",
        "sskernels.user",
    )
    # a name defined in the __init__ itself: the __init__ and what it imports
    assert prov.closure(["sskernels.owner"], root) == (
        "sskernels.fam",
        "sskernels.fam.a",
        "sskernels.fam.b",
        "sskernels.owner",
    )


# ---------------------------------------------------------------------------- soundness


def executed_files():
    """``{method: {package files a fit executed}}`` (a function called in them), traced with
    ``sys.setprofile`` while each method is built and fitted on 60 wine points with 12 labels
    through the task body."""
    from types import SimpleNamespace

    from sskernels.experiment.plan import method_runs
    from sskernels.experiment.tasks import run_task

    X, y = load_wine(return_X_y=True)
    idx = np.r_[0:20, 59:79, 130:150]
    X = (X[idx] - X[idx].mean(0)) / X[idx].std(0)
    y = y[idx] - y[idx].min()
    X.setflags(write=False)
    labeled = np.r_[0:4, 20:24, 40:44]
    out = {}
    pkg = str(prov.PACKAGE_DIR)
    for key, (name, params) in BUILT.items():
        method = SimpleNamespace(
            name=name, params={**params, **SMALL.get(name, {})}, label=key, paper=None
        )
        spec = SimpleNamespace(
            methods=[method],
            graph=SimpleNamespace(
                k=6, weights="hein-maier", sigma=None, metric="euclidean", method="auto"
            ),
            name="t",
            table=None,
            paper=SimpleNamespace(dataset=None),
            dataset=SimpleNamespace(display="wine"),
            metrics=("alignment",),
        )
        prep = SimpleNamespace(
            spec=spec,
            X=X,
            y=y,
            classes=np.arange(3),
            task="classification",
            settings=[("12 labeled", [labeled])],
            X_test=None,
            runs=method_runs(spec),
        )
        files = set()

        def profile(frame, event, arg):
            f = frame.f_code.co_filename
            if event == "call" and f.startswith(pkg):
                files.add(  # noqa: B023 (traced within the iteration)
                    Path(f)
                    .relative_to(prov.PACKAGE_DIR.parent)
                    .as_posix()
                    .removeprefix("sskernels/")
                )

        sys.setprofile(profile)
        try:
            run_task((0, 0, 0), prep)
        finally:
            sys.setprofile(None)
        out[key] = files
    return out


#: parameters that keep a fit small (a smaller grid or fewer components; the same code)
SMALL = {
    "lapsvm": {"gamma_A": 1e-2, "gamma_I": 1e-2, "kernel_width": 1.0},
    "laprls": {"gamma_A": 1e-2, "gamma_I": 1e-2, "kernel_width": 1.0},
    "simplemkl": {"C": 10.0},
    "svm": {"C": 10.0},
    "self-consistent": {"C1": 1.0, "C2": 1.0},
}


def test_every_file_a_fit_executes_is_in_its_closure():
    """The static closure is sound: no method runs package code its key does not hold."""
    executed = executed_files()
    missing = {}
    for key, files in executed.items():
        held = {prov.module_path(m).removeprefix("sskernels/") for m in prov.closure(roots(key))}
        extra = files - held
        if extra:
            missing[key] = sorted(extra)
    assert not missing, missing
    # and the trace is not empty: the task body and the method's own module ran
    assert "experiment/tasks.py" in executed["tsk"] and "learners/spectral.py" in executed["tsk"]
    assert set(TASK_MODULES) <= set(prov.closure(roots("harmonic")))


def test_nndescent_records_are_keyed_by_the_cpu_numba_compiles_for(monkeypatch):
    """NN-descent's graph depends on the CPU numba compiles pynndescent for (its
    random-projection trees split on floating-point products): its methods' code keys carry
    that CPU and the libraries' versions; a method on the exact k-NN graph does not."""
    from sskernels.experiment import method_code
    from sskernels.spec import parse_spec

    def spec(method):
        return parse_spec(
            {
                "name": "d",
                "dataset": "sklearn-wine",
                "graph": {"k": 5, "method": method},
                "methods": ["harmonic"],
            }
        )

    descent, exact = spec("nndescent"), spec("exact")
    here = method_code(descent, 0), method_code(exact, 0)
    assert "compiled" in here[0]["modules"] and "compiled" not in here[1]["modules"]
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    monkeypatch.setenv("NUMBA_CPU_FEATURES", "+sse2")
    prov._jit_target.cache_clear()
    try:
        there = method_code(descent, 0), method_code(exact, 0)
    finally:
        monkeypatch.undo()
        prov._jit_target.cache_clear()
    assert there[0]["code"] != here[0]["code"]
    assert there[0]["modules"]["compiled"] != here[0]["modules"]["compiled"]
    assert there[1] == here[1]
    # the key covers the versions too
    assert prov.compiled_key(["sskernels.graph.descent"])["versions"][
        "pynndescent"
    ] == prov._version("pynndescent")
