"""
=====================================================
The spectrum a transductive spectral kernel learns
=====================================================

A spectral kernel is ``K = V diag(mu) V^T`` over eigenvectors of the normalized graph
Laplacian (Liu et al. 2009, Thm. 1 and eq. (9)).  The transductive spectral kernel (TSK)
learns the coefficients ``mu`` by a linear program over the m smallest eigenpairs
(eq. (12)/(14)), under the decay constraints ``mu_t >= eta mu_{t+1}`` of eq. (8).  This
example draws the Laplacian spectrum of scikit-learn's wine data (178 points) before
learning, and the coefficients ``mu_`` that TSK learns from 20 labeled points after, beside
the fixed transform of the regularized spectral kernel (RSK, eq. (4)).
"""

# %%
# The graph and its spectrum (no labels involved)
# -----------------------------------------------
# The default graph of every graph learner: 6 nearest neighbours, Hein-Maier weights
# (Liu et al. eq. (2)), on the min-max scaled features.  ``Graph.spectrum()`` gives the
# eigenpairs of the normalized Laplacian ``L_sym`` in ascending order (all of them here:
# the data set is small).

import matplotlib.pyplot as plt
import numpy as np

from sskernels.data import load_dataset
from sskernels.graph import KNNGraph
from sskernels.learners import RegularizedSpectralKernel, TransductiveSpectralKernel

d = load_dataset("sklearn-wine", preprocess="minmax")
graph = KNNGraph(n_neighbors=6).build(d.X)
spectrum = graph.spectrum()
print(
    f"{spectrum.values.size} eigenvalues in [{spectrum.values.min():.3f}, "
    f"{spectrum.values.max():.3f}]"
)

# %%
# Learning ``mu`` from 20 labels
# ------------------------------
# ``n_components=10`` (Liu et al.'s m for wine), ``eta=2`` (their decay factor) and
# ``beta=10`` (the trade-off of eq. (11)/(12), which the paper does not state; the
# package's specs select it on the labeled points, see the ``SelectOnLabeled`` example).
# ``skip_constant=True`` exempts the eigenvector with ``lambda = 0`` from the decay
# constraints (Zhu et al.'s improved order constraints), a variant of eq. (14): on some
# splits eq. (14) as printed puts most of the weight on that near-constant eigenvector,
# and the class with the most labels then wins.  This split is one of them.

rng = np.random.default_rng(3)
labeled = rng.choice(len(d.y), 20, replace=False)
y = np.full(len(d.y), -1)
y[labeled] = d.y[labeled]
unlabeled = y == -1

tsk = TransductiveSpectralKernel(n_components=10, eta=2, beta=10).fit(d.X, y)
tsk_skip = TransductiveSpectralKernel(n_components=10, eta=2, beta=10, skip_constant=True).fit(
    d.X, y
)
rsk = RegularizedSpectralKernel(alpha=0.99, n_components=10).fit(d.X, y)


def accuracy(model):
    return 100 * np.mean(model.transduction_[unlabeled] == d.y[unlabeled])


for name, model in [
    ("TSK, eq. (14)", tsk),
    ("TSK, skip_constant", tsk_skip),
    ("RSK, alpha 0.99", rsk),
]:
    print(f"{name:20s} accuracy {accuracy(model):5.1f} %  mu = {np.round(model.mu_, 3)}")

# %%
# Before and after
# ----------------
# Left: the whole spectrum of ``L_sym``; the ten eigenvalues TSK works with (the smallest
# with ``lambda != 1``, its fitted ``eigenvalues_``) are marked.  Right: the learned
# coefficients ``mu_`` over those ten eigenvectors, each divided by its largest value so
# the shapes compare (RSK's ``theta_t = (1 - alpha) / (1 - alpha + alpha lambda_t)`` is a
# fixed function of ``lambda``; TSK's depends on the labels).

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.3))
t_all = np.arange(1, spectrum.values.size + 1)
ax1.plot(t_all, spectrum.values, ".", color="0.5", ms=4, label="eigenvalues of L_sym")
pos = np.searchsorted(spectrum.values, tsk.eigenvalues_)
ax1.plot(
    pos + 1, tsk.eigenvalues_, "o", mfc="none", mec="tab:red", ms=8, label="the m = 10 used by TSK"
)
ax1.set_xlabel("index t (ascending)")
ax1.set_ylabel("lambda_t")
ax1.set_title("Before: the Laplacian spectrum (wine, 6-NN graph)")
ax1.legend(loc="lower right")

t = np.arange(1, tsk.mu_.size + 1)
width = 0.27
for k, (name, model, colour) in enumerate(
    [
        (f"TSK, eq. (14) ({accuracy(tsk):.1f} %)", tsk, "tab:red"),
        (f"TSK, skip_constant ({accuracy(tsk_skip):.1f} %)", tsk_skip, "tab:purple"),
        (f"RSK, alpha 0.99 ({accuracy(rsk):.1f} %)", rsk, "tab:green"),
    ]
):
    ax2.bar(t + (k - 1) * width, model.mu_ / model.mu_.max(), width, color=colour, label=name)
ax2.set_xticks(t)
ax2.set_xlabel("eigenvector t (lambda_t ascending)")
ax2.set_ylabel("mu_t / max mu")
ax2.set_title("After: learned spectral coefficients mu_ (20 labels)")
ax2.legend(title="transductive accuracy", fontsize=8)
fig.tight_layout()
plt.show()

# %%
# TSK's coefficients halve from one eigenvector to the next where the decay constraint is
# tight, and stop where the labels no longer pay for more eigenvectors; the objective
# ``lambda^T mu`` does not price ``mu_1`` (``lambda_1 = 0``), which is how eq. (14) can
# load the constant eigenvector.  RSK at Liu et al.'s ``alpha = 0.99`` leans on that
# eigenvector even more (``theta_1 = 1`` against 0.40 for the next), and on this split the
# class with the most labels absorbs most of the others.  The learned kernel itself is
# ``tsk.kernel_`` (178 x 178), and ``tsk.kernel(X_new, None)`` extends it to new points
# (eq. (16)-(18)).
