"""The examples of ``sskernels/graph/descent.py`` that build a graph, run as written there.

They are not doctests: the first ``build`` of a process waits for numba to compile
pynndescent (about 20 s with numba's cache warm, two minutes cold), which made that module's
doctest the slowest of the suite.  Here the compilation is paid once, with the other
NN-descent tests, on the pytest-xdist worker of their group (``tests/test_descent.py``).
"""

import numpy as np
import pytest

pytest.importorskip("pynndescent")

# the worker that compiles pynndescent for tests/test_descent.py (pyproject's --dist loadgroup)
pytestmark = pytest.mark.xdist_group("numba-pynndescent")

from sskernels.graph.descent import DescentGraph  # noqa: E402


def test_the_module_example():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (150, 3)), rng.normal(8, 1, (150, 3))])
    g = DescentGraph(n_neighbors=5, recall_sample=50).build(X)
    assert (g.knn_info["method"], g.n, g.knn_info["recall"] >= 0.9) == ("nndescent", 300, True)


def test_the_class_example():
    X = np.random.default_rng(1).normal(size=(200, 4))
    g = DescentGraph(n_neighbors=4, recall_sample=0).build(X)
    same = DescentGraph(4, recall_sample=0).build(X)
    assert (g.W.shape, bool((g.W != g.W.T).nnz == 0), g is same) == ((200, 200), True, True)
