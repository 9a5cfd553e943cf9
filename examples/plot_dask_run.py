"""
=====================================================
An experiment grid on a Dask cluster
=====================================================

The fits of an experiment — methods x labeled splits — are independent tasks, so they
spread over a `Dask <https://distributed.dask.org>`_ cluster as they are.  This example
starts a small ``LocalCluster`` (two single-threaded workers inside this process, to stay
light), sends the data to the workers once, maps one task per (method, split) over
them, gathers the transductive accuracies, checks them against a serial run and draws
the accuracy of each split.
"""

# %%
# The tasks
# ---------
# One task fits one method on one split and returns its accuracy on the unlabeled points.
# Everything a task needs is in its arguments: the data (scattered once), the method's
# name and the split's seed.

import time

import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster

from sskernels.data import load_dataset
from sskernels.learners import (
    Consistency,
    HarmonicFunction,
    SelectOnLabeled,
    TransductiveSpectralKernel,
)

N_SPLITS, N_LABELED = 10, 20
METHODS = {
    "harmonic": lambda: HarmonicFunction(),
    "consistency (alpha selected)": lambda: SelectOnLabeled(Consistency(), random_state=0),
    "TSK (beta selected)": lambda: SelectOnLabeled(
        TransductiveSpectralKernel(n_components=10, eta=2, skip_constant=True), random_state=0
    ),
}

d = load_dataset("sklearn-wine", preprocess="minmax")


def split(seed, n):
    return np.random.default_rng(seed).choice(n, N_LABELED, replace=False)


def run_task(data, method, seed):
    X, y = data
    labeled = split(seed, len(y))
    y_partial = np.full(len(y), -1)
    y_partial[labeled] = y[labeled]
    model = METHODS[method]().fit(X, y_partial)
    u = y_partial == -1
    return method, seed, 100 * float(np.mean(model.transduction_[u] == y[u]))


tasks = [(m, s) for m in METHODS for s in range(N_SPLITS)]

# %%
# On the cluster
# --------------
# ``processes=False`` keeps the two workers as threads of this process (quick to start,
# nothing to pickle); on a real cluster, ``Client("tcp://scheduler:8786")`` is the only
# change.  ``broadcast=True`` puts one copy of the data on every worker; the ``with``
# blocks close the client and the cluster at the end.

t0 = time.perf_counter()
with (
    LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster,
    Client(cluster) as client,
):
    data = client.scatter((d.X, d.y), broadcast=True)
    futures = client.map(
        run_task, [data] * len(tasks), [m for m, _ in tasks], [s for _, s in tasks], pure=False
    )
    results = client.gather(futures)
    n_workers = len(client.scheduler_info()["workers"])
print(f"{len(results)} tasks on {n_workers} workers in {time.perf_counter() - t0:.1f} s")

# %%
# The same numbers as a serial run
# --------------------------------
# The learners are deterministic (selection folds seeded, ties broken by a fixed rule), so
# the gathered numbers are those of a serial loop.  (The runner's Dask backend also pins
# every worker's BLAS to one thread, which keeps near-degenerate cases — close eigenvalues,
# linear programs with a face of optima — independent of the worker.)

serial = [run_task((d.X, d.y), m, s) for m, s in tasks]
print("identical to the serial run:", serial == results)

# %%
# Accuracy per split
# ------------------

acc = {m: np.full(N_SPLITS, np.nan) for m in METHODS}
for method, seed, a in results:
    acc[method][seed] = a

fig, ax = plt.subplots(figsize=(9, 4.8))
for (method, a), marker in zip(acc.items(), "osD"):
    ax.plot(
        np.arange(N_SPLITS),
        a,
        marker=marker,
        lw=1,
        label=f"{method}: {np.mean(a):.1f} ± {np.std(a):.1f} %",
    )
ax.set_xticks(range(N_SPLITS))
ax.set_xlabel("split (seed)")
ax.set_ylabel("transductive accuracy (%)")
ax.set_title(
    f"wine, {N_LABELED} labels per split: {len(tasks)} tasks on a Dask "
    f"LocalCluster of {n_workers} workers"
)
ax.legend(fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False)
fig.tight_layout()
plt.show()

# %%
# The experiment runner does this for whole specs: ``sskernels run SPEC... --backend dask
# --jobs 2`` starts a local cluster of single-threaded worker processes, and
# ``--scheduler tcp://host:8786`` uses a running one.  There the graphs and spectra are
# built once per data set on the cluster, the records are written by the driver alone
# (so an interrupted run resumes), and the numbers equal those of ``--jobs 1``; see
# ``docs/distributed.md``.
