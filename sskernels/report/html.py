"""The report as HTML: pandas' Styler for the tables, matplotlib for the plots (PNG images
inlined as data URIs), one Jinja template for the page; no script and no file from the
network, so the page works offline and from a mail attachment.

:func:`render_body` gives the report's content with its own style sheet (scoped under
``.ssk-report``), which the docs' Results pages embed as it is; :func:`render_report` wraps
it in a whole page.
"""

from __future__ import annotations

import base64
import datetime as _dt
import io
import math
import re
import warnings

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from sskernels.report.build import ALPHA, MIN_SPLITS, PAIRED_TEST, direction, leaderboards
from sskernels.report.verdicts import VERDICT_TEXT, VERDICTS

#: colours: the user's rows, and the paper's value in the plots
USER_COLOUR = "#d9480f"
PAPER_COLOUR = "#1c7ed6"


def _env():
    return Environment(
        loader=PackageLoader("sskernels.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def slug(text):
    """An HTML id from ``text``.

    Examples
    --------
    >>> slug("liu2009/table3 accuracy")
    'liu2009-table3-accuracy'
    """
    return re.sub(r"[^A-Za-z0-9_]+", "-", str(text)).strip("-") or "x"


def _fmt(v, digits=2):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    try:
        return f"{float(v):.{digits}f}"
    except (TypeError, ValueError):
        return str(v)


def _pm(mean, std, digits=2, suffix=""):
    m = _fmt(mean, digits)
    if not m:
        return ""
    s = _fmt(std, digits)
    return f"{m} ± {s}{suffix}" if s else m


def _folded(text, what):
    """``text`` (items joined by "; ") folded in a ``<details>``; "" for none."""
    items = [t.strip() for t in str(text or "").split("; ") if t.strip()]
    if not items:
        return Markup("")
    lis = Markup("").join(Markup("<li>{}</li>").format(t) for t in items)
    return Markup("<details><summary>{} {}</summary><ul>{}</ul></details>").format(
        len(items), what if len(items) > 1 else what.rstrip("s"), lis
    )


def results_frame(rows):
    """The displayed columns of one suite's rows (escaped text, folded notes) and the CSS
    classes of their cells.

    Parameters
    ----------
    rows : pandas.DataFrame
        Summary rows with ``user``, ``verdict`` and ``evidence``
        (:attr:`sskernels.report.build.ReportData.rows`).

    Returns
    -------
    shown : pandas.DataFrame
        Columns ``data set, setting, method, metric, ours (mean ± std), splits, paper,
        Δ, verdict, s/split, notes``.
    classes : pandas.DataFrame
        The same shape: each cell's classes (``user`` on a user's row, ``verdict-V`` on the
        verdict and Δ cells, ``num`` on numbers).
    """
    digits = [3 if m in ("rmse", "mse") else 2 for m in rows["metric"]]
    paper = [
        _pm(m, s, d, " se" if sp == "se" else "")
        for m, s, d, sp in zip(rows["paper_mean"], rows["paper_std"], digits, rows["paper_spread"])
    ]
    delta = [
        ("" if not _fmt(v, d) else f"{float(v):+.{d}f}")
        for v, d in zip(rows["mean"] - pd.to_numeric(rows["paper_mean"], errors="coerce"), digits)
    ]
    verdicts = [
        Markup('<span title="{}">{}</span>').format(e, VERDICT_TEXT.get(v, v)) if v else ""
        for v, e in zip(rows["verdict"], rows["evidence"])
    ]
    notes = [
        _folded(n, "notes") + _folded(s, "selections") if (n or s) else ""
        for n, s in zip(rows["notes"], rows["selected"])
    ]
    shown = pd.DataFrame(
        {
            "data set": [escape(x) for x in rows["dataset"]],
            "setting": [escape("" if pd.isna(x) else x) for x in rows["setting"]],
            "method": [
                Markup('<span class="method">{}</span>{}').format(
                    m, Markup(' <span class="badge">yours</span>') if u else ""
                )
                for m, u in zip(rows["method"], rows["user"])
            ],
            "metric": [escape(x) for x in rows["metric"]],
            "ours (mean ± std)": [
                _pm(m, s, d) for m, s, d in zip(rows["mean"], rows["std"], digits)
            ],
            "splits": [_fmt(n, 0) for n in rows["n_splits"]],
            "paper": paper,
            "Δ": delta,
            "verdict": verdicts,
            "s/split": [_fmt(s, 3) for s in rows["seconds"]],
            "notes": notes,
        }
    )
    classes = pd.DataFrame("", index=shown.index, columns=shown.columns)
    for col in ("ours (mean ± std)", "splits", "paper", "Δ", "s/split"):
        classes[col] = "num"
    for i, (v, u) in enumerate(zip(rows["verdict"], rows["user"])):
        if v:
            classes.iat[i, shown.columns.get_loc("verdict")] = f"verdict verdict-{v}"
            classes.iat[i, shown.columns.get_loc("Δ")] = f"num verdict-{v}"
        if u:
            classes.iloc[i] = classes.iloc[i] + " user"
    if not rows["seconds"].notna().any():
        shown, classes = shown.drop(columns="s/split"), classes.drop(columns="s/split")
    return shown, classes


def wide_frame(rows, metric):
    """One suite's rows of one metric at a glance: a row per method, a column per data set
    (and setting), each cell ours (mean ± std) over the paper's value, classed by its
    verdict.

    Parameters
    ----------
    rows : pandas.DataFrame
        One suite's summary rows with ``user``, ``verdict`` and ``evidence``.
    metric : str
        The metric shown.

    Returns
    -------
    shown, classes : pandas.DataFrame
        The cells (the method's name first) and their CSS classes.
    """
    r = rows[rows["metric"] == metric]
    several = r["table"].nunique() > 1
    # escaped here: the Styler writes column labels as they are
    col = [
        str(
            escape(
                (f"{t}: " if several else "")
                + str(d)
                + (f", {s}" if str(s) not in ("", "nan") else "")
            )
        )
        for t, d, s in zip(r["table"], r["dataset"], r["setting"])
    ]
    r = r.assign(wide_col=col)
    methods = list(dict.fromkeys(r["method"]))
    columns = list(dict.fromkeys(col))
    digits = 3 if metric in ("rmse", "mse") else 2
    users = set(r.loc[r["user"], "method"])
    shown = pd.DataFrame("", index=methods, columns=["method", *columns], dtype=object)
    classes = pd.DataFrame("", index=methods, columns=shown.columns, dtype=object)
    for m in methods:
        shown.at[m, "method"] = Markup('<span class="method">{}</span>{}').format(
            m, Markup(' <span class="badge">yours</span>') if m in users else ""
        )
    for x in r.itertuples():
        ours = _pm(x.mean, x.std, digits)
        paper = _pm(x.paper_mean, x.paper_std, digits, " se" if x.paper_spread == "se" else "")
        tip = VERDICT_TEXT.get(x.verdict, "") + (f": {x.evidence}" if x.evidence else "")
        shown.at[x.method, x.wide_col] = Markup('<span class="ours">{}</span>').format(ours) + (
            Markup('<br><span class="paper" title="{}">paper {}</span>').format(tip, paper)
            if paper
            else ""
        )
        classes.at[x.method, x.wide_col] = "num" + (f" verdict-{x.verdict}" if x.verdict else "")
    for m in users:
        classes.loc[m] = classes.loc[m] + " user"
    return shown.reset_index(drop=True), classes.reset_index(drop=True)


def styled_table(shown, classes, uid, attributes=""):
    """An HTML table of ``shown`` by pandas' Styler: cell classes from ``classes``, no
    index, the id ``T_<uid>``."""
    st = (
        shown.style.hide(axis="index")
        .set_td_classes(classes)
        .set_uuid(uid)
        .set_table_attributes(attributes)
    )
    return Markup(st.to_html(doctype_html=False))


#: the plots' image format (PNG: a fifth of the SVG's size with one point per split), its
#: resolution, and the colours a PNG is reduced to (a palette image: a third of the size)
PLOT_FORMAT, PLOT_DPI, PLOT_COLOURS = "png", 100, 64


def _data_uri(fig, fmt=PLOT_FORMAT):
    buf = io.BytesIO()
    meta = {"Software": None} if fmt == "png" else {"Date": None}
    with warnings.catch_warnings():
        # a panel with many rows: constrained layout gives up and bbox_inches="tight" keeps it
        warnings.filterwarnings("ignore", "constrained_layout not applied")
        fig.savefig(buf, format=fmt, bbox_inches="tight", dpi=PLOT_DPI, metadata=meta)
    data = buf.getvalue()
    if fmt == "png":
        try:
            from PIL import Image
        except ImportError:
            pass
        else:
            small = io.BytesIO()
            Image.open(io.BytesIO(data)).convert("RGB").quantize(PLOT_COLOURS).save(
                small, format="png", optimize=True
            )
            data = min(data, small.getvalue(), key=len)
    mime = "image/png" if fmt == "png" else "image/svg+xml"
    return f"data:{mime};base64," + base64.b64encode(data).decode()


def split_figure(rows, splits, suite, metric, max_panels=None):
    """One figure per suite and metric: a panel per data set, each row's per-split values
    (points, a box where there are enough) and the paper's value (mean ± its spread, a blue
    bar); the user's rows in orange.

    Parameters
    ----------
    rows, splits : pandas.DataFrame
        :attr:`~sskernels.report.build.ReportData.rows` and ``.splits``.
    suite, metric : str
        Which figure.
    max_panels : int, default=None
        At most this many panels (None: every data set).

    Returns
    -------
    str or None
        A ``data:`` URI of the image (:data:`PLOT_FORMAT`), or None without per-split
        values or without matplotlib.
    """
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        return None
    s = splits[(splits["suite"] == suite) & (splits["metric"] == metric)]
    r = rows[(rows["suite"] == suite) & (rows["metric"] == metric)]
    if s.empty:
        return None
    several = r["table"].nunique() > 1
    groups = list(dict.fromkeys(zip(r["table"], r["dataset"], r["setting"].fillna(""))))
    groups = [g for g in groups if ((s["table"] == g[0]) & (s["dataset"] == g[1])).any()]
    if max_panels:
        groups = groups[:max_panels]
    if not groups:
        return None
    ncol = min(3, len(groups))
    nrow = math.ceil(len(groups) / ncol)
    # one row order for every panel (the suite's), labelled once per row of panels
    methods = list(dict.fromkeys(r["method"]))[::-1]
    users = set(r.loc[r["user"].astype(bool), "method"])
    ypos = {m: y for y, m in enumerate(methods)}
    # boxplot's orientation= is matplotlib 3.10's; vert=False before (deprecated since)
    mpl = tuple(int(x) for x in re.findall(r"\d+", matplotlib.__version__)[:2])
    horizontal = {"orientation": "horizontal"} if mpl >= (3, 10) else {"vert": False}
    with matplotlib.rc_context({"svg.fonttype": "none", "font.size": 8}):
        fig = Figure(
            figsize=(2.6 * ncol + 2.4, (0.24 * len(methods) + 0.9) * nrow), layout="constrained"
        )
        axes = fig.subplots(nrow, ncol, squeeze=False, sharey=True)
        for ax, (table, dataset, setting) in zip(axes.flat, groups):
            g = r[
                (r["table"] == table)
                & (r["dataset"] == dataset)
                & (r["setting"].fillna("") == setting)
            ]
            sg = s[
                (s["table"] == table)
                & (s["dataset"] == dataset)
                & (s["setting"].fillna("") == setting)
            ]
            for m in dict.fromkeys(g["method"]):
                y = ypos[m]
                v = sg.loc[sg["method"] == m, "value"]
                colour = USER_COLOUR if m in users else "#495057"
                if len(v) >= 5:
                    ax.boxplot(
                        v,
                        positions=[y],
                        **horizontal,
                        widths=0.6,
                        showfliers=False,
                        medianprops={"color": colour},
                        boxprops={"color": colour},
                        whiskerprops={"color": colour},
                        capprops={"color": colour},
                    )
                jitter = ((pd.Series(range(len(v))) % 5) - 2) * 0.06
                ax.scatter(
                    v, y + jitter.to_numpy(), s=8, color=colour, alpha=0.7, zorder=3, linewidths=0
                )
                p = g[g["method"] == m].iloc[0]
                pm = pd.to_numeric(pd.Series([p.get("paper_mean")]), errors="coerce")[0]
                if not math.isnan(pm):
                    ps = pd.to_numeric(pd.Series([p.get("paper_std")]), errors="coerce")[0]
                    ax.errorbar(
                        [pm],
                        [y + 0.32],
                        xerr=None if math.isnan(ps) else [ps],
                        fmt="D",
                        ms=4,
                        color=PAPER_COLOUR,
                        capsize=2,
                        zorder=4,
                    )
            title = f"{dataset}" + (f", {setting}" if setting else "")
            ax.set_title(f"{table}: {title}" if several else title, fontsize=9)
            ax.set_xlabel(metric)
            ax.grid(axis="x", alpha=0.3)
        axes[0, 0].set_yticks(
            range(len(methods)), [m if len(m) <= 48 else m[:46] + "…" for m in methods]
        )
        axes[0, 0].set_ylim(-0.7, len(methods) - 0.3)
        for row in axes:
            for lbl, m in zip(row[0].get_yticklabels(), methods):
                if m in users:
                    lbl.set_color(USER_COLOUR)
                    lbl.set_fontweight("bold")
        for ax in list(axes.flat)[len(groups) :]:
            ax.set_visible(False)
        return _data_uri(fig)


def _leaderboard_view(board):
    t = board.table
    return {
        "suite": board.suite,
        "metric": board.metric,
        "id": slug(f"lb {board.suite} {board.metric}"),
        "better": "higher" if direction(board.metric) > 0 else "lower",
        "datasets": board.datasets,
        "rows": [
            {
                "method": m,
                "position": int(r["position"]),
                "rank": f"{r['rank']:.2f}",
                "datasets": int(r["datasets"]),
                "wins": int(r["wins"]),
                "ties": int(r["ties"]),
                "losses": int(r["losses"]),
                "untested": int(r["untested"]),
                "user": bool(r["user"]),
            }
            for m, r in t.iterrows()
        ],
        "pairs": [
            {
                "method": a,
                "user": bool(t.at[a, "user"]),
                "cells": [board.pairs.at[a, b] if a != b else "·" for b in t.index],
            }
            for a in t.index
        ],
        "columns": list(t.index),
    }


def report_context(data, title="sskernels report", plots=True, max_panels=None, heading=True):
    """The template's variables for ``data`` (a
    :class:`~sskernels.report.build.ReportData`)."""
    from sskernels.provenance import summary_header

    boards = leaderboards(data)
    suites = []
    for suite in data.suites:
        r = data.rows[data.rows["suite"] == suite].reset_index(drop=True)
        shown, classes = results_frame(r)
        glance = []
        for metric in dict.fromkeys(r["metric"]):
            w, wc = wide_frame(r, metric)
            glance.append(
                {
                    "metric": metric,
                    "table": styled_table(
                        w,
                        wc,
                        slug(f"wide {suite} {metric}"),
                        f'class="glance" data-suite="{escape(suite)}" data-metric="{escape(metric)}"',
                    ),
                }
            )
        counts = r.loc[r["verdict"] != "", "verdict"].value_counts()
        figures = []
        if plots:
            for metric in dict.fromkeys(r["metric"]):
                uri = split_figure(data.rows, data.splits, suite, metric, max_panels)
                if uri:
                    figures.append({"metric": metric, "uri": uri})
        suites.append(
            {
                "name": suite,
                "id": slug(suite),
                "sources": sorted(set(r["source"])),
                "glance": glance,
                "table": styled_table(
                    shown,
                    classes,
                    slug(f"res {suite}"),
                    f'class="results" data-suite="{escape(suite)}"',
                ),
                "users": sorted(set(r.loc[r["user"], "method"])),
                "verdicts": [
                    (v, VERDICT_TEXT[v], int(counts.get(v, 0)))
                    for v in VERDICTS
                    if counts.get(v, 0)
                ],
                "leaderboards": [_leaderboard_view(b) for b in boards.get(suite, [])],
                "figures": figures,
            }
        )
    prov = data.provenance
    return {
        "title": title,
        "suites": suites,
        "users": sorted(set(data.rows.loc[data.rows["user"], "method"])),
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "made_by": summary_header(),
        "paired_test": PAIRED_TEST,
        "alpha": ALPHA,
        "min_splits": MIN_SPLITS,
        "verdict_legend": [(v, VERDICT_TEXT[v]) for v in VERDICTS],
        "sources": data.sources,
        "provenance": (
            styled_table(
                prov.apply(lambda c: c.map(lambda v: escape(str(v)))),
                pd.DataFrame("", index=prov.index, columns=prov.columns),
                "provenance",
                'class="plain"',
            )
            if not prov.empty
            else None
        ),
        "plots": plots,
        "has_matplotlib": _has_matplotlib(),
        "heading": heading,
    }


def _has_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def render_body(data, **kwargs):
    """The report's content (with its style sheet), for a page of its own or the docs.

    Parameters
    ----------
    data : ReportData
        :func:`sskernels.report.build.load`'s.
    **kwargs
        ``title``, ``plots`` (False: no figures), ``max_panels``, ``heading`` (False: no
        title heading, for a page that has its own) (:func:`report_context`).

    Returns
    -------
    markupsafe.Markup
        The HTML fragment.
    """
    return Markup(_env().get_template("body.html.j2").render(**report_context(data, **kwargs)))


def render_report(data, **kwargs):
    """A whole self-contained HTML page of the report (:func:`render_body` in a document).

    Parameters
    ----------
    data : ReportData
        :func:`sskernels.report.build.load`'s.
    **kwargs
        As :func:`render_body`.

    Returns
    -------
    str
        The page.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sskernels.report.build import load
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "t.csv").write_text(
    ...     "table,dataset,setting,method,metric,mean,std,se,n_splits\\n"
    ...     "demo,wine,10 labeled,a,accuracy,90,1,0.5,4\\n"
    ...     "demo,wine,10 labeled,Mine,accuracy,80,2,1,4\\n")
    >>> page = render_report(load([d], highlight=["Mine"]), plots=False)
    >>> page.startswith("<!DOCTYPE html>"), 'data-method="Mine"' in page, "http" in page
    (True, True, False)
    """
    title = kwargs.get("title", "sskernels report")
    body = render_body(data, **kwargs)
    return _env().get_template("report.html.j2").render(title=title, body=body)
