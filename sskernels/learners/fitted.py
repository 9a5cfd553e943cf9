"""The memo of fitted kernel learners shared by the learners that fit one inside their own fit.

An SVM on a learned kernel (:class:`~sskernels.learners.KernelSVM`) fits its kernel learner
once per split and C candidate, and the self-consistent labeling on a learned kernel
(:class:`~sskernels.learners.SelfConsistentLabeling`) once per split: :func:`_fitted_learner`
memoizes those fits by the data, the labels and the learner's parameters
(:func:`sskernels.hashing.params_key`) and hands every caller a private copy.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
from sklearn.base import clone

from sskernels.hashing import fingerprint, params_key
from sskernels.learners.base import UNLABELED
from sskernels.memo import LRU

#: fitted kernel learners, by (data, labels, learner parameters); a few entries.  What is
#: stored is never handed out: every caller gets its own copy (:func:`_private_copy`)
_FITTED = LRU(2)


def _is_graph(value):
    """Whether ``value`` is a :class:`sskernels.graph.Graph` (or a subclass), known by its
    class's name and module: this module does not import the graph package, so that the
    records of the learners without a graph do not depend on its code."""
    return any(
        c.__name__ == "Graph" and c.__module__ == "sskernels.graph.graphs"
        for c in type(value).__mro__
    )


def _private_copy(learner):
    """A deep copy of a fitted learner that shares with it only what no one may change: its
    read-only arrays (a memoized spectrum's, a learned kernel's) and the memoized graphs
    (:func:`sskernels.graph.get_graph`; label-independent, shared by design)."""
    memo, seen, stack = {}, set(), [learner.__dict__]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        for v in obj.values() if isinstance(obj, dict) else obj:
            if _is_graph(v) or (isinstance(v, np.ndarray) and not v.flags.writeable):
                memo[id(v)] = v
            elif isinstance(v, (tuple, list, dict)):
                stack.append(v)
            elif dataclasses.is_dataclass(v) and not isinstance(v, type):
                stack.append(vars(v))
    return copy.deepcopy(learner, memo)


def _fitted_learner(template, X, labeled, y_enc, with_kernel=False):
    """``clone(template)`` fitted on ``X`` with the encoded partial labels (memoized).

    The C selection fits the kernel learner once with all labels; the final
    fit of the selected SVM then finds the same fit here instead of redoing it
    (for TSK with beta selected: the whole beta cross-validation).  The key is
    the content of ``X``, the labeled positions, their encoded classes and a
    digest of the learner's (unfitted) parameters (:func:`sskernels.hashing.params_key`).  Every call
    returns a private copy of the stored fit (:func:`_private_copy`): two estimators never
    share a fitted learner.  ``with_kernel``: the caller reads ``kernel_``; a learner that
    memoizes it (read-only) computes it once, in the stored fit, and its copies share it.
    """
    learner = clone(template)
    key = (
        fingerprint(X),
        fingerprint(np.asarray(labeled)),
        fingerprint(np.asarray(y_enc)),
        params_key(learner),
    )
    hit = _FITTED.lookup(key)
    if hit is None:
        y_fit = np.full(X.shape[0], UNLABELED, dtype=int)
        y_fit[labeled] = y_enc
        hit = _FITTED.store(key, learner.fit(X, y_fit))
    if with_kernel and getattr(hit, "_memoizes_kernel", False):
        hit.kernel_  # noqa: B018 (memoized in the stored fit, read-only)
    return _private_copy(hit)


def clear_cache():
    """Forget the memoized kernel-learner fits."""
    _FITTED.clear()
