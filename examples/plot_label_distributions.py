"""
=====================================================
Label distributions of the consistency method
=====================================================

The consistency method (Zhou et al. 2004; Liu et al. eq. (3)) propagates nonnegative label
mass, one column per class, so each point's scores normalized to sum 1 are a distribution
over the classes: ``label_distributions_`` for the training points and ``predict_proba``
for new points, as scikit-learn's ``LabelSpreading`` gives for the same iteration.  This
example draws them on three overlapping Gaussian clusters with two labels per class, and
checks whether the largest probability tells right from wrong labels.
"""

# %%
# Three clusters, two labels each
# -------------------------------

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgb
from sklearn.datasets import make_blobs

from sskernels.learners import Consistency

X, y = make_blobs(
    n_samples=300, centers=[[0, 0], [3, 0.5], [1.5, 2.6]], cluster_std=0.8, random_state=0
)


def partial_labels(seed, per_class=2):
    rng = np.random.default_rng(seed)
    labeled = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), per_class, replace=False) for c in range(3)]
    )
    y_partial = np.full_like(y, -1)
    y_partial[labeled] = y[labeled]
    return y_partial


y_partial = partial_labels(0)
unlabeled = y_partial == -1
model = Consistency(alpha=0.9).fit(X, y_partial)
P = model.label_distributions_  # (300, 3), rows sum to 1
print("rows sum to 1:", np.allclose(P.sum(axis=1), 1.0))
print(
    "argmax of label_distributions_ is transduction_:",
    np.array_equal(model.classes_[P.argmax(axis=1)], model.transduction_),
)

# %%
# New points
# ----------
# ``predict_proba`` applies the method's out-of-sample rule (the fixed-point equation at
# the new point) and normalizes the induced scores per row; a new point that no graph point
# reaches gets the labeled class frequencies.

xx, yy = np.meshgrid(np.linspace(-3, 6, 150), np.linspace(-3, 5.5, 140))
grid = np.column_stack([xx.ravel(), yy.ravel()])
P_grid = model.predict_proba(grid)

# %%
# Is the largest probability informative?
# ---------------------------------------
# Over ten splits, the largest entry of ``label_distributions_`` at each unlabeled point,
# for the points labeled right and those labeled wrong.

right, wrong = [], []
for seed in range(10):
    yp = partial_labels(seed)
    m = Consistency(alpha=0.9).fit(X, yp)
    u = yp == -1
    top = m.label_distributions_[u].max(axis=1)
    ok = m.transduction_[u] == y[u]
    right.extend(top[ok])
    wrong.extend(top[~ok])

# %%
# The figure
# ----------
# Colours mix the three class colours by the probabilities: a pure colour is a certain
# point, a greyish one is torn between classes.

COLOURS = np.array([to_rgb(c) for c in ("tab:blue", "tab:orange", "tab:green")])
fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
ax = axes[0]
ax.scatter(X[unlabeled, 0], X[unlabeled, 1], c=P[unlabeled] @ COLOURS, s=18, edgecolor="none")
ax.scatter(
    X[~unlabeled, 0], X[~unlabeled, 1], c=COLOURS[y[~unlabeled]], s=170, marker="*", edgecolor="k"
)
acc = 100 * np.mean(model.transduction_[unlabeled] == y[unlabeled])
ax.set_title(f"label_distributions_ (alpha = 0.9)\ntransductive accuracy {acc:.1f} %", fontsize=10)

ax = axes[1]
ax.imshow(
    (P_grid @ COLOURS).reshape(xx.shape + (3,)),
    origin="lower",
    aspect="auto",
    extent=(xx.min(), xx.max(), yy.min(), yy.max()),
)
cs = ax.contour(
    xx, yy, P_grid.max(axis=1).reshape(xx.shape), levels=[0.5, 0.7, 0.9], colors="k", linewidths=0.7
)
ax.clabel(cs, fontsize=7)
ax.scatter(X[:, 0], X[:, 1], c=COLOURS[y], s=9, edgecolor="w", linewidth=0.4)
ax.set_title(
    "predict_proba on new points (dots: the data, true classes)\ncontours: largest probability",
    fontsize=10,
)

ax = axes[2]
bins = np.linspace(1 / 3, 1, 21)
ax.hist(
    [right, wrong],
    bins=bins,
    color=["tab:green", "tab:red"],
    density=True,
    label=[f"labeled right ({len(right)})", f"labeled wrong ({len(wrong)})"],
)
ax.set_xlabel("largest entry of label_distributions_")
ax.set_ylabel("density")
ax.set_title("unlabeled points of 10 splits", fontsize=10)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# The wrongly labeled points carry less certain distributions on the whole, yet many are
# confident: these are normalized label masses, not calibrated probabilities — a point
# deep in the wrong cluster of an unlucky split is confidently wrong.  The harmonic
# function offers the same two (its scores are the probabilities that a random walk first
# reaches a labeled point of each class).
