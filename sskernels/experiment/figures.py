"""Figures: error rate (or accuracy) against the number of labeled points, one panel per data
set (or spec) and metric.

The figure shows ``100 - accuracy`` or the accuracy (mean over splits, with the std as error
bars) for every method that has the panel's metric.  It is drawn from the
same records as the tables; matplotlib is needed (``pip install
sskernels[plot]``).
"""

from __future__ import annotations

import io

from sskernels.errors import UserError


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
    otherwise (per-class counts such as ``"10/20 labeled"``) label the ticks.
    """
    plt = _pyplot()
    metrics = metrics or list(dict.fromkeys(records["metric"]))
    key = "panel" if "panel" in records else "dataset"
    panels = list(dict.fromkeys(records[key]))
    fig, axes = plt.subplots(len(panels), len(metrics), squeeze=False,
                             figsize=(4.8 * len(metrics), 3.6 * len(panels)))
    for i, panel in enumerate(panels):
        for j, metric in enumerate(metrics):
            ax = axes[i][j]
            sub = records[(records[key] == panel) & (records["metric"] == metric)]
            for method, g in sub.groupby("method", sort=False):
                stats = g.groupby("n_labeled")["value"].agg(["mean", "std"]).sort_index()
                y = stats["mean"] if accuracy else 100.0 - stats["mean"]
                ax.errorbar(stats.index, y, yerr=stats["std"].fillna(0.0),
                            marker="o", ms=3, capsize=2, label=method)
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
    """Save a figure as PNG atomically."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(path)
    _pyplot().close(fig)
