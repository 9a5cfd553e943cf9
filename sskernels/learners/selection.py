"""Hyper-parameter selection on the labeled points only.

The unlabeled points' labels are never looked at: a candidate value is scored
by cross-validation over the labeled points, where each fold's points are
hidden (treated as unlabeled) while the model is fitted on the others, and the
fold's predictions are compared with its hidden labels.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold


def labeled_folds(y_enc, n_folds=5, random_state=0):
    """Index folds over the labeled points (positions into ``y_enc``).

    Stratified when every class has at least ``n_folds`` labeled points, plain
    shuffled K-fold otherwise; ``n_folds`` is capped at the number of points.
    """
    n = len(y_enc)
    n_folds = max(2, min(n_folds, n))
    counts = np.bincount(y_enc)
    if counts.min() >= n_folds:
        cv = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
        return [test for _, test in cv.split(np.zeros(n), y_enc)]
    cv = KFold(n_folds, shuffle=True, random_state=random_state)
    return [test for _, test in cv.split(np.zeros(n))]


def select_on_labeled(candidates, predict_fold, y_enc, n_folds=5, random_state=0,
                      prefer="last", reverse=False):
    """Pick the candidate with the best cross-validated accuracy on the labeled points.

    ``predict_fold(candidate, train_pos, test_pos)`` returns encoded predictions
    for the labeled points at positions ``test_pos`` after fitting on
    ``train_pos`` (positions into ``y_enc``).  Ties go to the last of the tied
    candidates in the given order (``prefer="last"``) or the first.
    ``reverse=True`` swaps the roles: each fold in turn is the labeled set and
    the other folds are the validation set (the protocol of Mao & Tsang,
    Sec. 5.2: "only one fold is used for labeled examples, and the rest is
    the validation set").  Returns ``(best, scores)``.
    """
    folds = labeled_folds(y_enc, n_folds, random_state)
    all_pos = np.arange(len(y_enc))
    scores = []
    for cand in candidates:
        correct = total = 0
        for fold in folds:
            rest = np.setdiff1d(all_pos, fold)
            train, test = (fold, rest) if reverse else (rest, fold)
            correct += int(np.sum(predict_fold(cand, train, test) == y_enc[test]))
            total += test.size
        scores.append(correct / total)
    scores = np.asarray(scores)
    best_idx = np.flatnonzero(scores == scores.max())
    best = best_idx[-1] if prefer == "last" else best_idx[0]
    return candidates[best], scores
