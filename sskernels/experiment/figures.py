"""Figures: error rate against the number of labeled points, one panel per data set and metric.

The figure shows ``100 - accuracy`` (mean over splits, with the std as error
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


def error_curves(records, metrics=None, title=None):
    """A matplotlib figure of error rate (%) against labeled points; returns it."""
    plt = _pyplot()
    metrics = metrics or list(dict.fromkeys(records["metric"]))
    datasets = list(dict.fromkeys(records["dataset"]))
    fig, axes = plt.subplots(len(datasets), len(metrics), squeeze=False,
                             figsize=(4.8 * len(metrics), 3.6 * len(datasets)))
    for i, ds in enumerate(datasets):
        for j, metric in enumerate(metrics):
            ax = axes[i][j]
            sub = records[(records["dataset"] == ds) & (records["metric"] == metric)]
            for method, g in sub.groupby("method", sort=False):
                stats = g.groupby("n_labeled")["value"].agg(["mean", "std"]).sort_index()
                ax.errorbar(stats.index, 100.0 - stats["mean"], yerr=stats["std"].fillna(0.0),
                            marker="o", ms=3, capsize=2, label=method)
            kind = "inductive" if metric.startswith("inductive") else "transductive"
            ax.set_title(f"{ds}: {kind}")
            ax.set_xlabel("labeled points")
            ax.set_ylabel("error rate (%)")
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
