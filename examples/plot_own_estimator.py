"""
=====================================================
Benchmark your own estimator
=====================================================

Any scikit-learn-compatible classifier that takes ``-1`` for the unlabeled points can be
compared with the package's learners on the same labeled splits.  This example writes one
in a few lines — *seeded k-means*, whose centroids start at the labeled points' class means
and whose labeled points never change class — and compares it, and the plain nearest
centroid of the labeled points, with the harmonic function, the consistency method (its
``alpha`` selected on the labeled points) and scikit-learn's ``LabelSpreading``, over ten
random splits of 50 labeled digits (scikit-learn's bundled 8 x 8 digits, 1,797 images).
"""

# %%
# The estimator
# -------------
# The conventions of ``sklearn.semi_supervised``, which every sskernels learner follows:
# ``fit(X, y)`` with ``y == -1`` for unlabeled points, ``classes_`` the labels seen,
# ``transduction_`` the label of every training point, ``predict`` for new points, and the
# constructor only stores its parameters (``BaseEstimator`` then gives ``get_params``,
# ``set_params`` and ``clone``).

import matplotlib.pyplot as plt
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_digits
from sklearn.preprocessing import MinMaxScaler
from sklearn.semi_supervised import LabelSpreading

from sskernels.learners import Consistency, HarmonicFunction, SelectOnLabeled


class SeededKMeans(ClassifierMixin, BaseEstimator):
    """k-means with one centroid per class, seeded and clamped by the labeled points.

    ``n_iter=0`` is the nearest centroid of the labeled points (supervised).
    """

    def __init__(self, n_iter=20):
        self.n_iter = n_iter

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        labeled = y != -1
        self.classes_, y_enc = np.unique(y[labeled], return_inverse=True)
        assign = np.full(len(y), -1)
        assign[labeled] = y_enc
        self.centroids_ = np.array([X[assign == k].mean(axis=0) for k in range(self.classes_.size)])
        for _ in range(self.n_iter):
            nearest = self._nearest(X)
            new = np.where(labeled, assign, nearest)  # labeled points stay put
            self.centroids_ = np.array(
                [X[new == k].mean(axis=0) for k in range(self.classes_.size)]
            )
        self.transduction_ = self.classes_[np.where(labeled, assign, self._nearest(X))]
        return self

    def _nearest(self, X):
        d = ((X[:, None, :] - self.centroids_[None, :, :]) ** 2).sum(axis=2)
        return np.argmin(d, axis=1)

    def predict(self, X):
        return self.classes_[self._nearest(np.asarray(X, dtype=float))]


# %%
# The contenders
# --------------
# Factories, so every split gets fresh, unfitted estimators.  ``SelectOnLabeled`` with no
# grid uses the estimator's default one (consistency: ``alpha`` over 0.1, 0.5, 0.9, 0.99,
# ties to the largest).

METHODS = {
    "nearest centroid\n(yours, n_iter=0)": lambda: SeededKMeans(n_iter=0),
    "seeded k-means\n(yours)": lambda: SeededKMeans(n_iter=20),
    "HarmonicFunction": lambda: HarmonicFunction(),
    "Consistency\n(alpha selected)": lambda: SelectOnLabeled(Consistency(), random_state=0),
    "sklearn\nLabelSpreading": lambda: LabelSpreading(kernel="knn", n_neighbors=7),
}

X, y = load_digits(return_X_y=True)
X = MinMaxScaler().fit_transform(X)

# %%
# Ten splits of 50 labeled points
# -------------------------------
# The same splits for every method; accuracy on the unlabeled points (transductive).

N_SPLITS, N_LABELED = 10, 50
acc = {name: [] for name in METHODS}
for seed in range(N_SPLITS):
    labeled = np.random.default_rng(seed).choice(len(y), N_LABELED, replace=False)
    y_partial = np.full_like(y, -1)
    y_partial[labeled] = y[labeled]
    u = y_partial == -1
    for name, make in METHODS.items():
        pred = make().fit(X, y_partial).transduction_
        acc[name].append(100 * np.mean(pred[u] == y[u]))

for name, a in acc.items():
    print(f"{name.replace(chr(10), ' '):40s} {np.mean(a):5.1f} ± {np.std(a):4.1f} %")

# %%
# The bar chart
# -------------
# Mean and standard deviation over the splits; the dots are the splits.

fig, ax = plt.subplots(figsize=(10, 4.6))
names = list(METHODS)
means = [np.mean(acc[n]) for n in names]
colours = ["tab:gray", "tab:gray", "tab:blue", "tab:blue", "tab:olive"]
ax.bar(
    range(len(names)),
    means,
    yerr=[np.std(acc[n]) for n in names],
    color=colours,
    capsize=4,
    alpha=0.8,
)
for k, n in enumerate(names):
    ax.plot(np.full(N_SPLITS, k) + np.linspace(-0.2, 0.2, N_SPLITS), acc[n], ".", color="k", ms=4)
    ax.text(k, 2, f"{means[k]:.1f} %", ha="center", color="w", fontweight="bold")
ax.set_xticks(range(len(names)), names)
ax.set_ylim(0, 100)
ax.set_ylabel("transductive accuracy (%)")
ax.set_title(
    f"digits (n = {len(y)}), {N_LABELED} labels, {N_SPLITS} random splits: "
    "grey yours, blue sskernels, olive scikit-learn"
)
fig.tight_layout()
plt.show()

# %%
# From the command line
# ---------------------
# The experiment runner can run such a class beside the registered methods, on a spec's
# data, splits and record keeping: put it in an importable module and name it by its
# import path, either in a spec (``estimator: "mypkg.module:SeededKMeans"``) or on the
# command line, ``sskernels run SPEC --with mypkg.module:SeededKMeans`` (see the
# project's documentation for the exact spec fields).  Its parameters are passed as given:
# no graph and no default selection are added to a user's estimator.
