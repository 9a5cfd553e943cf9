"""The degeneration notes of a fit: a constant prediction, and a class that collapses.

The harmonic function flattens as the unlabeled points outnumber the labeled ones (Nadler,
Srebro & Zhou 2009): one class takes the region of another.  A fit in which a class is
predicted far below its share of the labeled points is noted as degenerate
(``learners/base.py``: ``collapsed_classes``), so that such a result is shown, not averaged.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from sskernels.graph import KNNGraph
from sskernels.learners.base import COLLAPSE_P, COLLAPSE_RATIO, collapsed_classes
from sskernels.learners.propagation import Consistency, HarmonicFunction

COLLAPSE = "degenerate: class collapse: class {} predicted on under a fifth"


def _tail(l_c, l, x):
    """P(Binomial(l, x) >= l_c) by its sum (independent of scipy.stats)."""
    return sum(comb(l, j) * x**j * (1 - x) ** (l - j) for j in range(l_c, l + 1))


def _rule(lab, pred):
    lab, pred = np.asarray(lab), np.asarray(pred)
    l, N = lab.sum(), pred.sum()
    return [
        c
        for c in range(lab.size)
        if lab[c] > 0
        and pred[c] / N < COLLAPSE_RATIO * lab[c] / l
        and _tail(int(lab[c]), int(l), (pred[c] + 1) / (N + 1)) < COLLAPSE_P
    ]


def test_collapsed_classes_is_the_rule_written_out_with_an_independent_binomial_tail():
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(300):
        c = int(rng.integers(2, 6))
        lab = rng.integers(0, 25, size=c)
        lab[0] = max(lab[0], 1)
        pred = rng.integers(0, 400, size=c) * (rng.random(c) < 0.7)
        pred[-1] += 1
        expected = _rule(lab, pred)
        assert collapsed_classes(lab, pred) == expected, (lab, pred)
        found += bool(expected)
    assert 30 < found < 270  # both outcomes are exercised


def test_a_class_with_few_labels_is_not_flagged_by_chance_but_many_labels_are():
    # 2 of 10 labels, 3 % predicted: plausible (the tail is about 0.035)
    assert collapsed_classes([2, 8], [30, 970]) == []
    # 20 of 100 labels, 3 % predicted: not
    assert collapsed_classes([20, 80], [30, 970]) == [0]
    # at a third of the labeled share the class is not collapsed, whatever the counts
    assert collapsed_classes([2000, 8000], [66700, 933300]) == []


def _flattening_blobs():
    """20,000 points of five 10-d Gaussian blobs (centres N(0, 1.2^2)), 100 random labels:
    the harmonic function gives class 3's region away (measured: 77.6 %, class 3 on 0.8 % of
    the unlabeled points against 15 % of the labels); consistency does not (90.1 %)."""
    rng = np.random.default_rng(2)
    centres = rng.normal(scale=1.2, size=(5, 10))
    y = rng.integers(0, 5, 20000)
    X = centres[y] + rng.normal(size=(20000, 10))
    lab = rng.choice(20000, 100, replace=False)
    partial = np.full(20000, -1)
    partial[lab] = y[lab]
    return X, y, partial


@pytest.fixture(scope="module")
def blobs():
    return _flattening_blobs()


def test_the_flattened_harmonic_function_is_noted_and_consistency_is_not(blobs):
    X, y, partial = blobs
    unl = partial == -1
    h = HarmonicFunction(graph=KNNGraph(n_neighbors=10)).fit(X, partial)
    share = np.mean(h.transduction_[unl] == 3)
    assert share < 0.2 * np.mean(partial[~unl] == 3)
    assert h.fit_report_.degenerate == [COLLAPSE.format(3) + " of its share of the labeled points"]
    assert np.mean(h.transduction_[unl] == y[unl]) < 0.8
    c = Consistency(graph=KNNGraph(n_neighbors=10)).fit(X, partial)
    assert c.fit_report_.degenerate == []
    assert np.mean(c.transduction_[unl] == y[unl]) > 0.88


def test_a_constant_prediction_gets_its_own_note_only():
    y = np.array([0, -1, -1, -1, -1, -1, -1, 1])
    h = HarmonicFunction(graph="precomputed")
    W = np.zeros((8, 8))
    for i in range(6):  # a chain from the class-0 label ...
        W[i, i + 1] = W[i + 1, i] = 1.0
    W[6, 7] = W[7, 6] = 1e-6  # ... that the class-1 label barely touches
    h.fit(W, y)
    assert (h.transduction_[1:7] == 0).all()
    assert h.fit_report_.degenerate == [
        "degenerate: constant prediction: every unlabeled point gets class 0"
    ]
