"""Figures: error rate (or accuracy) against the number of labeled points, one panel per data
set (or spec) and metric.

The figure shows ``100 - accuracy`` or the accuracy (mean over splits, with the std as error
bars) for every method that has the panel's metric.  It is drawn from the
same records as the tables; matplotlib is needed (``pip install
sskernels[plot]``).

A point (method, labeled-set size) at which at least :data:`ONE_CLASS_SHARE` of the
splits predict one class for every unlabeled point (the fit's report notes a "constant
prediction"; on a binary task known as such, also a "class collapse": the other class
predicted on under a fifth of its share of the labeled points; :func:`one_class_points`) is
marked with a black cross: its accuracy is (nearly) the share of one class among the
unlabeled points, not learning.
"""

from __future__ import annotations

import io

import pandas as pd

from sskernels.errors import UserError

#: a point is "one-class" when at least this share of its splits predict one class
ONE_CLASS_SHARE = 0.5
#: the fit report's note of a fit that gives every unlabeled point one class (or target)
ONE_CLASS_NOTE = "constant prediction"
#: the note of a fit that predicts a class on under a fifth of its share of the labeled points:
#: on a binary task, (nearly) one class for every unlabeled point
COLLAPSE_NOTE = "class collapse"


def predicts_one_class(report, n_classes=None):
    """Whether one record's fit report notes that every unlabeled point got the same class
    (on a binary task, ``n_classes=2``, also that a class collapsed: the other one got nearly
    every point).

    Parameters
    ----------
    report : dict or None
        The record's fit report (``report`` column: ``{"notes": [...]}`` or None); a note
        containing :data:`ONE_CLASS_NOTE` (or, with ``n_classes=2``, :data:`COLLAPSE_NOTE`)
        marks it.
    n_classes : int, default=None
        The task's number of classes, when known; a collapsed class counts only for 2.

    Returns
    -------
    bool
        True when a note says so; False for None.

    Examples
    --------
    >>> from sskernels.experiment.figures import predicts_one_class
    >>> collapse = {"notes": ["degenerate: class collapse: class 1 predicted on under a fifth "
    ...                       "of its share of the labeled points"]}
    >>> predicts_one_class(collapse), predicts_one_class(collapse, n_classes=2)
    (False, True)
    >>> predicts_one_class({"notes": ["degenerate: constant prediction: every unlabeled "
    ...                               "point gets class 0"]}), predicts_one_class(None)
    (True, False)
    """
    notes = report.get("notes", ()) if isinstance(report, dict) else ()
    keys = (ONE_CLASS_NOTE, COLLAPSE_NOTE) if n_classes == 2 else (ONE_CLASS_NOTE,)
    return any(key in str(n) for n in notes for key in keys)


def one_class_points(records, by=("method", "n_labeled"), n_classes=None):
    """Per point (``by``): how many of its splits predict one class, from the fit reports.

    ``one_class`` (splits predicting one class), ``n`` (splits), ``share`` and ``flag``
    (``share >= ONE_CLASS_SHARE``).  ``records`` is the long format of ``load_records`` (one
    row per split and metric; each split is counted once per point).  Records without a
    ``report`` column count as not one-class.

    Parameters
    ----------
    records : pandas.DataFrame
        Records in long format (:func:`~sskernels.experiment.collect.load_records`).
    by : sequence of str, default=("method", "n_labeled")
        The columns that define a point.
    n_classes : int, default=None
        The task's number of classes when known (:func:`predicts_one_class`).

    Returns
    -------
    pandas.DataFrame
        One row per point: the ``by`` columns, then ``one_class``, ``n``, ``share`` and
        ``flag``.
    """
    by = list(by)
    keep = by + ["split"]
    df = records.drop_duplicates(keep) if "split" in records else records
    one = (
        df["report"].map(lambda r: predicts_one_class(r, n_classes))
        if "report" in df
        else pd.Series(False, index=df.index)
    )
    out = (
        one.groupby([df[k] for k in by], sort=False)
        .agg(["sum", "size"])
        .rename(columns={"sum": "one_class", "size": "n"})
        .reset_index()
    )
    out["one_class"] = out["one_class"].astype(int)
    out["share"] = out["one_class"] / out["n"]
    out["flag"] = out["share"] >= ONE_CLASS_SHARE
    return out


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise UserError("figures need matplotlib: pip install 'sskernels[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def error_curves(records, metrics=None, title=None, accuracy=False):
    """A matplotlib figure of error rate (or ``accuracy``) in % against labeled points.

    One panel row per ``panel`` (a column the caller may set, e.g. one per spec
    when two specs share a data set; default the data set), one column per
    metric.  The x-axis is the number of labeled points; settings named
    otherwise (per-class counts such as ``"10/20 labeled"``) label the ticks.  Each method
    is a curve of the mean over splits with the std as error bars; a one-class point
    (:func:`one_class_points`) is marked with a black cross.

    Parameters
    ----------
    records : pandas.DataFrame
        Records in long format (:func:`~sskernels.experiment.collect.load_records`).
    metrics : list of str, default=None
        The metrics, one column each; None: every metric of ``records``, in order of first
        appearance.
    title : str, default=None
        The figure's title; none when None or empty.
    accuracy : bool, default=False
        Plot the accuracy instead of the error rate (``100 - accuracy``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    UserError
        When matplotlib is not installed.
    """
    plt = _pyplot()
    metrics = metrics or list(dict.fromkeys(records["metric"]))
    key = "panel" if "panel" in records else "dataset"
    panels = list(dict.fromkeys(records[key]))
    fig, axes = plt.subplots(
        len(panels), len(metrics), squeeze=False, figsize=(4.8 * len(metrics), 3.6 * len(panels))
    )
    for i, panel in enumerate(panels):
        for j, metric in enumerate(metrics):
            ax = axes[i][j]
            sub = records[(records[key] == panel) & (records["metric"] == metric)]
            marked = False
            for method, g in sub.groupby("method", sort=False):
                stats = g.groupby("n_labeled")["value"].agg(["mean", "std"]).sort_index()
                y = stats["mean"] if accuracy else 100.0 - stats["mean"]
                ax.errorbar(
                    stats.index,
                    y,
                    yerr=stats["std"].fillna(0.0),
                    marker="o",
                    ms=3,
                    capsize=2,
                    label=method,
                )
                one = one_class_points(g, by=("n_labeled",)).set_index("n_labeled")
                flagged = one.index[one["flag"]]
                if len(flagged):  # a scatter, not a line: the curves stay get_lines()
                    ax.scatter(
                        flagged,
                        y.loc[flagged],
                        marker="x",
                        s=40,
                        c="black",
                        linewidths=1.2,
                        zorder=5,
                        label=None
                        if marked
                        else f"one class predicted (>= {ONE_CLASS_SHARE:.0%} of splits)",
                    )
                    marked = True
            ticks = sub.drop_duplicates("n_labeled").sort_values("n_labeled")
            names = [str(s).removesuffix(" labeled") for s in ticks["setting"]]
            if any(n != str(k) for n, k in zip(names, ticks["n_labeled"])):
                ax.set_xticks(ticks["n_labeled"].tolist(), names)
            kind = "inductive" if metric.startswith("inductive") else "transductive"
            ax.set_title(f"{panel}: {kind}")
            ax.set_xlabel("labeled points")
            ax.set_ylabel("accuracy (%)" if accuracy else "error rate (%)")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def write_figure(fig, path):
    """Save a figure as PNG atomically.

    The PNG (110 dpi) goes through a temporary file beside ``path`` and a rename; the
    parent folder is created if needed, and the figure is closed afterwards.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (:func:`error_curves`).
    path : str or pathlib.Path
        The PNG file to write.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(path)
    _pyplot().close(fig)


def setting_dots(summary, metric="accuracy", title=None, accuracy=False, highlight=()):
    """A matplotlib figure of a single-setting table: one panel per data set, a dot per row.

    For tables with one labeled-set size per data set (Liu et al.'s Table 3), where a curve
    against the number of labeled points would put every method at one x: each panel lists
    every row of its data set (the user's too) top to bottom in table order, the mean over
    splits as a dot with the std as a bar, and the paper's value, where the row has one, as
    a red diamond.  Rows named in ``highlight`` (``--with`` labels) are drawn in orange with
    bold labels.

    Parameters
    ----------
    summary : pandas.DataFrame
        Schema rows (:func:`~sskernels.experiment.tables.summarize`).
    metric : str, default="accuracy"
        The metric whose rows are drawn.
    title : str, default=None
        The figure's title; none when None or empty.
    accuracy : bool, default=False
        Show accuracy instead of the error rate (``100 - accuracy``; the paper's value too).
    highlight : sequence of str, default=()
        Method labels to highlight.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    UserError
        When matplotlib is not installed, or no row has ``metric``.
    """
    plt = _pyplot()
    rows = summary[summary["metric"] == metric]
    if rows.empty:
        raise UserError(f"figure: no rows of metric {metric!r} to plot")
    flip = metric == "accuracy" and not accuracy
    panels = list(dict.fromkeys(rows["dataset"]))
    height = max(len(rows[rows["dataset"] == p]) for p in panels)
    fig, axes = plt.subplots(
        1,
        len(panels),
        squeeze=False,
        sharey=False,
        figsize=(3.6 * len(panels) + 2.4, 0.32 * height + 1.6),
    )
    for ax, panel in zip(axes[0], panels):
        sub = rows[rows["dataset"] == panel].reset_index(drop=True)
        y = list(range(len(sub)))[::-1]
        mean = 100.0 - sub["mean"] if flip else sub["mean"]
        paper = 100.0 - sub["paper_mean"] if flip else sub["paper_mean"]
        mine = sub["method"].isin(list(highlight))
        ys = pd.Series(y)
        for rows_, color, label in (
            (~mine, "tab:blue", "ours (± std)"),
            (mine, "tab:orange", "yours (± std)"),
        ):
            if rows_.any():
                ax.errorbar(
                    mean[rows_],
                    ys[rows_],
                    xerr=sub["std"][rows_].fillna(0.0),
                    fmt="o",
                    ms=4,
                    color=color,
                    capsize=2,
                    lw=1,
                    label=label,
                )
        has = paper.notna()
        if has.any():
            ax.scatter(
                paper[has],
                [v for v, h in zip(y, has) if h],
                marker="D",
                s=22,
                facecolors="none",
                edgecolors="tab:red",
                zorder=4,
                label="paper",
            )
        ax.set_yticks(y, sub["method"].astype(str).tolist(), fontsize=7)
        for label, m in zip(ax.get_yticklabels(), mine):
            if m:
                label.set_fontweight("bold")
                label.set_color("tab:orange")
        setting = ", ".join(dict.fromkeys(sub["setting"].astype(str)))
        ax.set_title(f"{panel} ({setting})", fontsize=9)
        ax.set_xlabel(
            ("error rate" if flip else metric) + (" (%)" if metric in ("accuracy", "error") else "")
        )
        ax.grid(alpha=0.3, axis="x")
    axes[0][0].legend(fontsize=7, loc="best")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
