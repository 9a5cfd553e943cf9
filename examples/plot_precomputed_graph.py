"""
=====================================================
Your own affinity matrix as a precomputed graph
=====================================================

Every graph learner takes ``graph="precomputed"``: ``fit(W, y)`` then reads ``W``, any
symmetric non-negative (n, n) affinity matrix, instead of building a k-NN graph from
features, and ``predict`` takes the (s, n) affinities of new points to the n graph points
(as scikit-learn's ``kernel="precomputed"``).  Here the affinity is an
epsilon-neighbourhood graph with Gaussian weights on two concentric circles, compared with
the default k-NN graph (:class:`~sskernels.graph.KNNGraph`, 6 neighbours, Hein-Maier
weights), both under the harmonic function with two labels per class.
"""

# %%
# An epsilon-ball Gaussian affinity
# ---------------------------------
# ``W_ij = exp(-||x_i - x_j||^2 / (2 s^2))`` for points closer than ``eps``, 0 otherwise,
# and a zero diagonal.  Unlike a k-NN graph, its number of neighbours follows the local
# density.

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_circles
from sklearn.metrics import pairwise_distances

from sskernels.graph import KNNGraph
from sskernels.learners import HarmonicFunction

EPS, S = 0.2, 0.1


def affinity(A, B):
    """Epsilon-ball Gaussian affinities between the rows of A and those of B."""
    D = pairwise_distances(A, B)
    return np.where(D < EPS, np.exp(-(D**2) / (2 * S**2)), 0.0)


X, y = make_circles(n_samples=300, noise=0.07, factor=0.5, random_state=0)
W = affinity(X, X)
np.fill_diagonal(W, 0.0)
print(f"neighbours per point: min {(W > 0).sum(1).min()}, max {(W > 0).sum(1).max()}")


def partial_labels(seed, per_class=2):
    rng = np.random.default_rng(seed)
    labeled = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), per_class, replace=False) for c in (0, 1)]
    )
    y_partial = np.full_like(y, -1)
    y_partial[labeled] = y[labeled]
    return y_partial


y_partial = partial_labels(0)
unlabeled = y_partial == -1

# %%
# Fitting on W
# ------------
# The same estimator, the affinity matrix in place of ``X``.  Points in a connected
# component of ``W`` without any labeled point cannot be reached by propagation; they would
# get the labeled class frequencies and be listed in ``unreached_`` (here the graph is
# connected enough that there are none).

own = HarmonicFunction(graph="precomputed").fit(W, y_partial)
knn = HarmonicFunction(graph=KNNGraph(n_neighbors=6)).fit(X, y_partial)
print("unreached points:", own.unreached_.size)

# A k-NN graph's own W, passed as precomputed, gives the same labels as fitting on X:
W_knn = KNNGraph(n_neighbors=6).build(X).W
same = HarmonicFunction(graph="precomputed").fit(W_knn, y_partial)
print(
    "precomputed k-NN W reproduces fit(X, y):",
    bool(np.array_equal(same.transduction_, knn.transduction_)),
)

# %%
# Several labeled splits
# ----------------------
# Two labeled points per class, ten random splits: the transductive accuracy of each graph.

acc = {"epsilon-ball (precomputed)": [], "6-NN (KNNGraph default)": []}
for seed in range(10):
    yp = partial_labels(seed)
    u = yp == -1
    a = HarmonicFunction(graph="precomputed").fit(W, yp).transduction_
    b = HarmonicFunction().fit(X, yp).transduction_
    acc["epsilon-ball (precomputed)"].append(100 * np.mean(a[u] == y[u]))
    acc["6-NN (KNNGraph default)"].append(100 * np.mean(b[u] == y[u]))

# %%
# The graphs, the decision regions and the accuracies
# ---------------------------------------------------
# For the precomputed model, the grid's "features" are its affinities to the 300 graph
# points; grid points with no graph point within ``eps`` have no affinity at all and are
# left blank.

xx, yy = np.meshgrid(np.linspace(-1.4, 1.4, 120), np.linspace(-1.4, 1.4, 120))
grid = np.column_stack([xx.ravel(), yy.ravel()])
W_grid = affinity(grid, X)
f_own = np.where(W_grid.sum(1) > 0, own.decision_function(W_grid), np.nan)
f_knn = knn.decision_function(grid)

fig, axes = plt.subplots(1, 3, figsize=(14, 4.4))
for ax, title, Wg, f, model in [
    (axes[0], "your W: epsilon-ball Gaussian", W, f_own, own),
    (axes[1], "KNNGraph(n_neighbors=6)", W_knn, f_knn, knn),
]:
    f = f.reshape(xx.shape)
    ax.contourf(
        xx,
        yy,
        np.where(np.isnan(f), np.nan, f > 0),
        levels=[-0.5, 0.5, 1.5],
        colors=["#cfe0f3", "#f9d9c3"],
    )
    i, j = sp.triu(sp.csr_matrix(Wg)).nonzero()
    ax.plot(
        np.vstack([X[i, 0], X[j, 0]]), np.vstack([X[i, 1], X[j, 1]]), color="0.6", lw=0.4, zorder=1
    )
    ax.scatter(
        X[unlabeled, 0],
        X[unlabeled, 1],
        s=8,
        zorder=2,
        c=np.where(y[unlabeled] == 1, "tab:orange", "tab:blue"),
    )
    lab = ~unlabeled
    ax.scatter(
        X[lab, 0],
        X[lab, 1],
        s=150,
        marker="*",
        edgecolor="k",
        zorder=3,
        c=np.where(y[lab] == 1, "tab:orange", "tab:blue"),
    )
    a = 100 * np.mean(model.transduction_[unlabeled] == y[unlabeled])
    ax.set_title(
        f"{title}\n{sp.triu(sp.csr_matrix(Wg)).nnz} edges, accuracy {a:.1f} %", fontsize=10
    )
    ax.set_aspect("equal")
ax = axes[2]
ax.boxplot(list(acc.values()), widths=0.5)
for k, v in enumerate(acc.values(), 1):
    ax.plot(np.full(len(v), k) + np.linspace(-0.08, 0.08, len(v)), v, ".", color="k")
ax.set_xticks([1, 2], ["epsilon-ball\n(precomputed)", "6-NN\n(default)"])
ax.set_ylabel("transductive accuracy (%)")
ax.set_title("10 random splits, 2 labels per class", fontsize=10)
fig.tight_layout()
plt.show()

# %%
# The choice of graph is the model: with an ``eps`` too small, isolated points appear
# (``unreached_``); too large, and the two circles are joined by many edges.  Any
# construction works as long as ``W`` is symmetric, finite and non-negative: a graph from
# domain knowledge, another metric, or a graph with no features behind it at all.  A
# learner that needs the features themselves (LapRLS, LapSVM: their kernel is an RBF on
# ``X``) refuses ``graph="precomputed"``.
