"""The package's layers, checked: no import cycle, and no import from a lower layer into a
higher one.

The layers are those of ``docs/architecture.md``, lowest first; a module may import its own
layer and the layers below.  The imports are read from the syntax trees
(:func:`sskernels.provenance.imports`: every ``import`` statement, those inside functions
included, re-exports followed to the defining module), so a lazy import counts as much as a
module-level one.  The last tests show that the check fails: a back-import and a cycle added
to a copy of the package are reported.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from sskernels import provenance as prov

#: the layers, lowest first: (name, module prefixes)
LAYERS = [
    (
        "foundation",
        (
            "sskernels",
            "sskernels.errors",
            "sskernels.faults",
            "sskernels.hashing",
            "sskernels.memo",
            "sskernels.provenance",
            "sskernels.paper_tables",
        ),
    ),
    ("kernels", ("sskernels.kernels",)),
    ("graph", ("sskernels.graph",)),
    ("solvers", ("sskernels.solvers",)),
    ("learners", ("sskernels.learners",)),
    ("data", ("sskernels.data",)),
    (
        "task body",
        (
            "sskernels.experiment.splits",
            "sskernels.experiment.oracle",
            "sskernels.experiment.tasks",
        ),
    ),
    (
        "spec",
        (
            "sskernels.spec_yaml",
            "sskernels.spec_limits",
            "sskernels.user_methods",
            "sskernels.spec_params",
            "sskernels.spec_paper_rows",
            "sskernels.spec_packaged",
            "sskernels.spec",
            "sskernels.suites",
        ),
    ),
    ("identity", ("sskernels.experiment.identity",)),
    (
        "store",
        (
            "sskernels.experiment.records",
            "sskernels.experiment.archive",
            "sskernels.experiment.artifacts",
        ),
    ),
    ("plan", ("sskernels.experiment.plan", "sskernels.experiment.preparation")),
    (
        "executors",
        (
            "sskernels.experiment.worker",
            "sskernels.experiment.dask_backend",
            "sskernels.experiment.executors",
        ),
    ),
    ("scheduler", ("sskernels.experiment.collect", "sskernels.experiment.runner")),
    (
        "reports",
        (
            "sskernels.experiment",
            "sskernels.experiment.tables",
            "sskernels.experiment.figures",
            "sskernels.experiment.floors",
            "sskernels.experiment.bound",
        ),
    ),
    ("report", ("sskernels.report",)),
    ("command line", ("sskernels.cli", "sskernels.__main__")),
]


def layer_of(module):
    """The index of ``module``'s layer (its longest matching prefix), or None."""
    best, index = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, index = len(p), i
    return index


def package_modules(root):
    """The dotted names of every module under the package folder ``root``."""
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append(".".join(parts))
    return out


def import_graph(root=None):
    """``{module: {modules it imports}}`` of the package at ``root`` (default: installed)."""
    root = Path(root) if root is not None else prov.PACKAGE_DIR
    return {m: set(prov.imports(m, root)) for m in package_modules(root)}


def back_imports(graph):
    """``[(module, imported, its layer, the imported one's layer)]`` going upward."""
    out = []
    for a, targets in graph.items():
        for b in targets:
            la, lb = layer_of(a), layer_of(b)
            if la is not None and lb is not None and lb > la:
                out.append((a, b, LAYERS[la][0], LAYERS[lb][0]))
    return sorted(out)


def cycles(graph):
    """The import cycles: strongly connected components of more than one module (Tarjan)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return sorted(out)


def test_every_module_has_a_layer():
    assert [m for m in package_modules(prov.PACKAGE_DIR) if layer_of(m) is None] == []


def test_no_module_imports_a_higher_layer():
    assert back_imports(import_graph()) == []


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_worker_side_imports_nothing_of_the_scheduler():
    """The task body (a record's numbers) never imports the registry or the scheduler: a new
    method or a change of the scheduling leaves every record's key as it is."""
    graph = import_graph()
    for m in (
        "sskernels.experiment.tasks",
        "sskernels.experiment.splits",
        "sskernels.experiment.oracle",
    ):
        assert not {
            t
            for t in graph[m]
            if t.startswith("sskernels.experiment.") and layer_of(t) > layer_of(m)
        }, m
        assert not {"sskernels.learners.registry", "sskernels.learners.catalog"} & graph[m], m


# ------------------------------------------------------------------ the check can fail


@pytest.fixture
def package_copy(tmp_path):
    root = tmp_path / "sskernels"
    shutil.copytree(prov.PACKAGE_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _append(path, text):
    path.write_text(path.read_text() + text)


def test_a_back_import_fails_the_check(package_copy):
    # a lazy import, inside a function, of the runner from the k-NN search
    _append(
        package_copy / "graph" / "knn.py",
        "\n\ndef _peek():\n    from sskernels.experiment.runner import run_spec\n"
        "    return run_spec\n",
    )
    found = back_imports(import_graph(package_copy))
    assert ("sskernels.graph.knn", "sskernels.experiment.runner", "graph", "scheduler") in found


def test_a_cycle_fails_the_check(package_copy):
    # the fitted-learner memo importing the kernel SVM, which imports it
    _append(
        package_copy / "learners" / "fitted.py",
        "\n\nfrom sskernels.learners.kernel_machines import KernelSVM  # noqa: E402\n",
    )
    found = cycles(import_graph(package_copy))
    assert any(
        {"sskernels.learners.fitted", "sskernels.learners.kernel_machines"} <= set(c) for c in found
    ), found


def test_an_importlib_back_import_fails_the_check(package_copy):
    # importlib.import_module of a constant name is an import like any other
    _append(
        package_copy / "graph" / "knn.py",
        "\n\ndef _peek():\n    import importlib\n"
        "    return importlib.import_module('sskernels.experiment.runner')\n",
    )
    found = back_imports(import_graph(package_copy))
    assert ("sskernels.graph.knn", "sskernels.experiment.runner", "graph", "scheduler") in found


def test_an_import_by_a_computed_name_is_refused(package_copy):
    # a name computed at run time cannot be followed: refused, naming the module and line
    _append(
        package_copy / "graph" / "knn.py",
        "\n\ndef _peek(name):\n    import importlib\n"
        "    return importlib.import_module('sskernels.' + name)\n",
    )
    with pytest.raises(
        ValueError,
        match=r"sskernels\.graph\.knn \(line \d+\) imports a "
        r"module whose name is computed at run time",
    ):
        import_graph(package_copy)


# ------------------------------------------------------------ no family imports another

#: the learners' modules that are no family of their own: the bases, the protocol, the pieces
#: several families share, the selection and extra-points wrappers, the fitted-learner memo,
#: the registry (which imports every family) and the package's re-exports
SHARED_LEARNER_MODULES = {
    "sskernels.learners",
    "sskernels.learners.base",
    "sskernels.learners.graph_base",
    "sskernels.learners.protocol",
    "sskernels.learners.spectral_base",
    "sskernels.learners.embedding",
    "sskernels.learners.grids",
    "sskernels.learners.fitted",
    "sskernels.learners.selection",
    "sskernels.learners.extra_unlabeled",
    "sskernels.learners.registry",
    "sskernels.learners.catalog",
}


def family_imports(graph):
    """``[(family, family it imports)]``: one learner family's module importing another's
    (a default built by name, declared in ``_default_modules``, excepted)."""
    from sskernels.learners.kernel_machines import DEFAULT_KERNEL_LEARNER

    declared = {("sskernels.learners.kernel_machines", DEFAULT_KERNEL_LEARNER[0])}
    families = {
        m for m in graph if m.startswith("sskernels.learners.") and m not in SHARED_LEARNER_MODULES
    }
    return sorted(
        (a, b)
        for a in families
        for b in graph[a]
        if b in families and b != a and (a, b) not in declared
    )


def test_no_learner_family_imports_another():
    assert family_imports(import_graph()) == []


def test_a_family_importing_another_fails_the_check(package_copy):
    _append(
        package_copy / "learners" / "mkl.py",
        "\n\nfrom sskernels.learners.skl import C_GRID as _C  # noqa: E402\n",
    )
    found = family_imports(import_graph(package_copy))
    assert ("sskernels.learners.mkl", "sskernels.learners.skl") in found
