"""The verdict columns: ``matched`` (ours within the paper's printed ±, ours rounded to the
paper's decimals), the paper's standard error, and a reachability bound's verdict
"beyond our reading".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: the decimals a paper prints (every paper table here: 2) and to which ours is rounded before
#: it is compared with the paper's value (:func:`within_spread`: one rounding rule everywhere)
PAPER_DECIMALS = 2
#: a verdict "beyond our reading": the bound below the paper by more than this many combined
#: standard errors (:func:`beyond_reading`)
BEYOND_SE = 2.0


def within_spread(ours, paper_mean, paper_std):
    """Matched: ``|ours - paper| <= the paper's printed ±``, ours rounded to the paper's decimals.

    Ours is rounded to the paper's printed decimals (:data:`PAPER_DECIMALS`) first, so that a
    value the paper would print the same counts the same everywhere (a float tolerance of
    1e-9 for the boundary).  False where the paper prints no ± (NaN), and where either mean
    is NaN.

    Parameters
    ----------
    ours : float
        Our mean.
    paper_mean : float
        The paper's value.
    paper_std : float
        The paper's printed ±.

    Returns
    -------
    bool
        Whether ours is within the paper's ±.
    """
    if pd.isna(paper_mean) or pd.isna(paper_std) or pd.isna(ours):
        return False
    return bool(
        abs(round(float(ours), PAPER_DECIMALS) - float(paper_mean)) <= float(paper_std) + 1e-9
    )


def paper_se(paper_std, spread, paper_n):
    """The paper's standard error of its mean.

    Its ± where it reads as one (``spread`` ``se``), else ``± / sqrt(n)`` over its
    ``paper_n`` splits (the ± itself, conservatively, where n is unknown).

    Parameters
    ----------
    paper_std : float
        The paper's printed ±.
    spread : str
        How it reads: ``"std"`` or ``"se"`` (:func:`paper_spread`).
    paper_n : float
        The paper's number of splits (NaN or 0: unknown).

    Returns
    -------
    float
        The standard error; NaN where the paper prints no ±.
    """
    if pd.isna(paper_std):
        return np.nan
    if spread == "se" or pd.isna(paper_n) or not paper_n:
        return float(paper_std)
    return float(paper_std) / np.sqrt(float(paper_n))


def beyond_reading(paper_mean, bound, bound_se, p_se):
    """``True`` where a reachability bound stays below the paper's value by more than it can miss.

    The bound is the best a grid can do with the test labels choosing; it stays below the
    paper's value by more than :data:`BEYOND_SE` combined standard errors,
    ``sqrt(bound_se^2 + paper_se^2)``: no parameter of that grid reaches it under our
    reading (data, graph, preprocessing, splits and the method's reading held fixed), even
    allowing for the paper's own sampling error.  ``None`` without a standard error (of the
    bound; the paper's counts as 0 where it has none).

    Parameters
    ----------
    paper_mean : float
        The paper's value.
    bound : float
        The bound: the mean over splits of each split's best candidate.
    bound_se : float
        The bound's standard error over the splits.
    p_se : float
        The paper's standard error (:func:`paper_se`; NaN: 0).

    Returns
    -------
    bool or None
        The verdict; None when ``paper_mean``, ``bound`` or ``bound_se`` is NaN.
    """
    if pd.isna(paper_mean) or pd.isna(bound) or pd.isna(bound_se):
        return None
    combined = np.sqrt(float(bound_se) ** 2 + (0.0 if pd.isna(p_se) else float(p_se)) ** 2)
    return bool(float(paper_mean) - float(bound) > BEYOND_SE * combined)
