"""scripts/kscl_claims.py and the figures' one-class marks, on synthetic record frames.

A curve whose splits predict one class rises along the unbalanced sequence because
the share of that class among the unlabeled points rises: such a curve must fail a
claim of improvement, while a curve that learns passes.  No data and no run needed.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sskernels.experiment.figures import ONE_CLASS_SHARE, one_class_points

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("kscl_claims", ROOT / "scripts" / "kscl_claims.py")
claims = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(claims)

#: the unbalanced sequence on 2-spiral (97 points a class): per-class labeled counts
SEQUENCE = [(10, 10), (10, 20), (10, 30), (10, 40)]
ONE = {
    "notes": ["degenerate: constant prediction: every unlabeled point gets class 0"],
    "solvers": ["projected-newton"],
}
N_SPLITS = 30


def share_of_class_0(counts, sizes=(97, 97)):
    unl = np.asarray(sizes) - np.asarray(counts)
    return 100 * unl[0] / unl.sum()


def records(method, values, one_class_splits=0, metrics=("accuracy",)):
    """Long-format records of one method along SEQUENCE: ``values[i]`` gives split j's
    accuracy at point i (a callable of j, or a number); the first ``one_class_splits`` splits
    of every point (an int, or one per point) note a constant prediction."""
    k = one_class_splits if np.ndim(one_class_splits) else [one_class_splits] * len(SEQUENCE)
    rows = []
    for i, counts in enumerate(SEQUENCE):
        for j in range(N_SPLITS):
            v = values[i](j) if callable(values[i]) else values[i]
            for metric in metrics:
                rows.append(
                    {
                        "dataset": "two-spirals",
                        "method": method,
                        "setting": f"{counts[0]}/{counts[1]} labeled",
                        "n_labeled": sum(counts),
                        "split": j,
                        "metric": metric,
                        "value": v,
                        "report": ONE if j < k[i] else {"solvers": ["x"]},
                    }
                )
    return pd.DataFrame(rows)


def one_class_curve(method="r = 100"):
    """Every split predicts class 0: accuracy = class 0's share of the unlabeled points."""
    return records(method, [share_of_class_0(c) for c in SEQUENCE], N_SPLITS)


def learning_curve(method="r = 1", start=60.0, step=6.0):
    """A curve that learns: rising means, split-to-split noise, no constant prediction."""
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 3, size=(len(SEQUENCE), N_SPLITS))
    return records(
        method, [lambda j, i=i: start + step * i + noise[i, j] for i in range(len(SEQUENCE))]
    )


def test_the_one_class_curve_rises_with_the_class_share():
    # the premise: the means rise strictly, so a test of the means alone would pass it
    c = claims.summarize(one_class_curve())["r = 100"]
    np.testing.assert_allclose(c["mean"], [50.0, 53.05, 56.49, 60.42], atol=0.01)
    assert np.all(np.diff(c["mean"]) > 0)
    assert c["flag"].all() and (c["one_class"] == N_SPLITS).all()


def test_a_one_class_curve_fails_an_improvement_claim():
    c = claims.summarize(one_class_curve())
    ok, why = claims.improves(c["r = 100"])
    assert not ok and "one class" in why and "10/10 (30/30 splits)" in why
    ours, holds, numbers = claims.improvement_claim(c)
    assert holds == "no"
    assert "improves for 0 of 1 r" in ours and "rising but one-class" in ours
    assert "50.0*" in numbers and "30/30 at 10/40" in numbers


def test_a_learning_curve_passes_and_the_one_class_one_is_not_counted():
    c = claims.summarize(pd.concat([learning_curve(), one_class_curve()], ignore_index=True))
    assert claims.improves(c["r = 1"]) == (True, "increasing, no one-class point")
    ours, holds, _ = claims.improvement_claim(c)
    assert holds == "yes"
    assert ours.startswith("improves for 1 of 2 r (r = 1)") and "not counted: r = 100" in ours


def test_a_curve_that_does_not_rise_fails_without_any_one_class_point():
    c = claims.summarize(learning_curve(step=-2.0))["r = 1"]
    assert claims.improves(c) == (False, "not increasing")


def test_a_point_is_one_class_from_half_of_its_splits_on():
    k = int(np.ceil(ONE_CLASS_SHARE * N_SPLITS))
    below = records("r = 20", [60, 62, 64, 66], [k - 1, 0, 0, 0])
    at = records("r = 20", [60, 62, 64, 66], [k, 0, 0, 0])
    assert claims.improves(claims.summarize(below)["r = 20"])[0]
    ok, why = claims.improves(claims.summarize(at)["r = 20"])
    assert not ok and f"10/10 ({k}/{N_SPLITS} splits)" in why


def test_one_class_points_count_each_split_once_whatever_the_metrics():
    rec = records(
        "r = 20", [60, 62, 64, 66], [30, 3, 0, 0], metrics=("accuracy", "inductive accuracy")
    )
    pts = one_class_points(rec)
    assert pts["n"].tolist() == [N_SPLITS] * 4
    assert pts["one_class"].tolist() == [30, 3, 0, 0]
    assert pts["flag"].tolist() == [True, False, False, False]
    # records without fit reports: nothing is flagged
    assert not one_class_points(rec.drop(columns="report"))["flag"].any()


def test_r_above_one_does_not_win_with_a_one_class_curve():
    above = one_class_curve("r = 100")  # higher means, but one class
    below = records("r = 1/5", [45.0, 46.0, 47.0, 48.0])
    c = claims.summarize(pd.concat([above, below], ignore_index=True))
    wins, text = claims.r_above_beats_below(c)
    assert wins is False and "excluded: r = 100" in text
    # a learning r > 1 curve above the r < 1 one wins
    c = claims.summarize(pd.concat([learning_curve("r = 20"), below], ignore_index=True))
    wins, text = claims.r_above_beats_below(c)
    assert wins is True and text.startswith("best r > 1: 20") and "r < 1: 1/5" in text
    # no r < 1 curve: nothing to compare
    assert claims.r_above_beats_below(claims.summarize(learning_curve("r = 20")))[0] is None


def test_c_insensitivity_fails_when_a_point_moves_and_passes_for_a_small_shift():
    base = learning_curve("r = 20")
    small = base.assign(method="r = 20, C1 = C2 = 5", value=base["value"] + 0.5)
    large = base.assign(
        method="r = 20, C1 = C2 = 20",
        value=base["value"] + np.where(base["n_labeled"] == 50, 3.0, 0.0),
    )
    rec = pd.concat([base, small, large], ignore_index=True)
    ok, text = claims.c_insensitive(rec, cs=(5,))
    assert ok and "moves at 0 of 4" in text  # significant (paired) but 0.5 points
    ok, text = claims.c_insensitive(rec, cs=(5, 20))
    assert not ok and "C = 20: change +0.0, +0.0, +0.0, +3.0" in text


def test_the_figure_marks_one_class_points_only():
    pytest.importorskip("matplotlib")
    from sskernels.experiment.figures import error_curves

    rec = pd.concat([learning_curve(), one_class_curve()], ignore_index=True)
    fig = error_curves(rec, ["accuracy"], accuracy=True)
    ax = fig.axes[0]
    n_lines = len(ax.get_lines())  # the marks add no line
    assert n_lines == len(
        error_curves(rec.assign(report=None), ["accuracy"], accuracy=True).axes[0].get_lines()
    )
    marks = [col for col in ax.collections if col.get_label().startswith("one class")]
    assert len(marks) == 1
    xy = marks[0].get_offsets()
    np.testing.assert_allclose(xy[:, 0], [20, 30, 40, 50])
    np.testing.assert_allclose(xy[:, 1], [share_of_class_0(c) for c in SEQUENCE])
    labels = ax.get_legend_handles_labels()[1]
    assert labels.count(f"one class predicted (>= {ONE_CLASS_SHARE:.0%} of splits)") == 1
    # a figure without one-class points has no mark
    fig = error_curves(learning_curve(), ["accuracy"], accuracy=True)
    assert not [c for c in fig.axes[0].collections if c.get_label().startswith("one class")]


def test_a_collapsed_class_point_breaks_an_improvement_claim():
    """r = 10 on 2-spiral: a learning-like rise, but at 10/10 most splits predict class 1 on
    under a fifth of its labeled share (a "class collapse" note, not a constant prediction):
    the point is one-class and the curve supports no improvement claim."""
    collapse = {
        "notes": [
            "degenerate: class collapse: class 1 predicted on under a fifth "
            "of its share of the labeled points"
        ],
        "solvers": ["x"],
    }
    rec = learning_curve("r = 10", start=51.5, step=4.3)
    first = (rec["setting"] == "10/10 labeled") & (rec["split"] < 24)
    rec.loc[first, "report"] = pd.Series([collapse] * int(first.sum()), index=rec.index[first])
    assert not one_class_points(rec)["flag"].any()  # the task's classes unknown
    pts = one_class_points(rec, n_classes=2)
    assert pts["one_class"].tolist() == [24, 0, 0, 0] and pts["flag"].tolist()[0]
    both = pd.concat([learning_curve(), rec], ignore_index=True).assign(n_classes=2)
    c = claims.summarize(both)
    ok, why = claims.improves(c["r = 10"])
    assert not ok and "10/10 (24/30 splits)" in why
    ours, holds, _ = claims.improvement_claim(c)
    assert holds == "yes" and ours.startswith("improves for 1 of 2 r (r = 1)")
    assert "not counted: r = 10" in ours
