"""The lab book's tables, rendered from the committed CSVs (``results/README.md``).

A table of the lab book that quotes a summary CSV is not typed: it sits between two markers,

    <!-- generated: NAME (python -m paper.labbook; edit the renderer, not the table) -->
    ...
    <!-- end generated: NAME -->

and ``python -m paper.labbook`` (``make labbook``, run by ``make tables``) rewrites every such
block from the CSV it names (:data:`BLOCKS`).  ``python -m paper.labbook --check`` exits 1 and
names each block whose text differs from its CSV (a number edited by hand, or a table
regenerated without the lab book); ``tests/test_labbook.py`` runs that check.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"dataset": ["a", "a"], "method": ["m", "m"],
...                    "metric": ["error", "alignment"], "mean": [12.345, 0.5],
...                    "paper_mean": [10.0, 0.6], "matched": [False, True]})
>>> print(error_alignment(df, [("m, oracle [paper]", "m", True)]))
| data set | m, oracle [paper] |
|---|---|
| a | 12.35 / 0.500✓ [10.00 / 0.60] |
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
LABBOOK = ROOT / "results" / "README.md"
MARK = re.compile(r"<!-- generated: (?P<name>[\w-]+) [^>]*-->\n(?P<body>.*?)"
                  r"<!-- end generated: (?P=name) -->", re.S)


def _mark(row, metric):
    """``✓`` when the cell is within the paper's spread (the CSV's ``matched``)."""
    return "✓" if str(row.get(metric, {}).get("matched", "")) == "True" else ""


def _cells(df):
    """``{(dataset, method): {metric: row}}`` of a summary frame."""
    out: dict = {}
    for rec in df.to_dict("records"):
        out.setdefault((rec["dataset"], rec["method"]), {})[rec["metric"]] = rec
    return out


def error_alignment(df, columns):
    """A data set x column table of ``error / alignment`` (✓: within the paper's spread), the
    paper's pair in brackets where the column asks for it.

    Parameters
    ----------
    df : pandas.DataFrame
        A summary CSV of the shared schema (metrics ``error`` and ``alignment``).
    columns : list of tuple
        ``(header, method label, show the paper's values)``.

    Returns
    -------
    str
        The Markdown table.
    """
    cells = _cells(df)
    lines = ["| data set | " + " | ".join(h for h, _, _ in columns) + " |",
             "|---" * (len(columns) + 1) + "|"]
    for ds in dict.fromkeys(df["dataset"]):
        row = [ds]
        for _, method, paper in columns:
            c = cells.get((ds, method))
            if not c:
                row.append("–")
                continue
            err, al = c.get("error"), c.get("alignment")
            text = (f"{err['mean']:.2f}{_mark(c, 'error')}" if err else "–") + " / " + (
                f"{al['mean']:.3f}{_mark(c, 'alignment')}" if al else "–")
            if paper and err is not None and pd.notna(err.get("paper_mean")):
                pal = al.get("paper_mean") if al else None
                text += f" [{err['paper_mean']:.2f} / " + (
                    "–" if pal is None or pd.isna(pal) else f"{pal:.2f}") + "]"
            row.append(text)
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def mean_std_paper(df, metric="accuracy"):
    """A method x data set table of ``mean ± std (paper, Δ ±d)`` (methods and data sets in the
    CSV's order; no paper value: ``mean ± std``)."""
    df = df[df["metric"] == metric]
    sets = list(dict.fromkeys(df["dataset"]))
    cells = {(r["method"], r["dataset"]): r for r in df.to_dict("records")}
    lines = ["| method | " + " | ".join(sets) + " |", "|---" * (len(sets) + 1) + "|"]
    for method in dict.fromkeys(df["method"]):
        row = [method]
        for ds in sets:
            r = cells.get((method, ds))
            if r is None:
                row.append("–")
                continue
            text = f"{r['mean']:.2f} ± {r['std']:.2f}"
            if pd.notna(r.get("paper_mean")):
                d = r["mean"] - r["paper_mean"]
                text += f" ({r['paper_mean']:.2f}, Δ {'+' if d >= 0 else '−'}{abs(d):.2f})"
            row.append(text)
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def claims_table(path):
    """The ``claim / ours / holds`` table of a claims CSV (``scripts/kscl_claims.py``)."""
    df = pd.read_csv(path)
    lines = ["| claim (Sec. 6) | ours | holds |", "|---|---|---|"]
    lines += [f"| {r['claim (Sec. 6)']} | {r['ours']} | {r['holds']} |"
              for r in df.to_dict("records")]
    return "\n".join(lines)


def _wang(table):
    return pd.read_csv(ROOT / "results" / "wang2015" / f"{table}.csv")


P = " (oracle; Sec. 4.3.2: p Laplacian eigenvectors)"
O = " (oracle: best test accuracy)"

#: every generated block of the lab book: name -> renderer (no argument, returns Markdown)
BLOCKS = {
    "kscl-claims": lambda: claims_table(ROOT / "results" / "kscl" / "claims.csv"),
    "liu2009-table3": lambda: mean_std_paper(
        pd.read_csv(ROOT / "results" / "liu2009" / "table3.csv")),
    "wang2015-table2-protocols": lambda: error_alignment(_wang("table2"), [
        ("baseline, Sec. 4.1 oracle [paper]", "alignf baseline" + O, True),
        ("baseline, Sec. 4.3.2 (the paper's protocol)", "alignf baseline" + P, False),
        ("label-aware, Sec. 4.1 oracle [paper]", "alignf label-aware" + O, True),
        ("label-aware, Sec. 4.3.2", "alignf label-aware" + P, False)]),
    "wang2015-table2": lambda: error_alignment(_wang("table2"), [
        ("baseline, ours", "alignf baseline", False),
        ("label-aware, ours", "alignf label-aware", False),
        ("baseline, oracle [paper]", "alignf baseline" + O, True),
        ("label-aware, oracle [paper]", "alignf label-aware" + O, True)]),
    "wang2015-table3": lambda: error_alignment(_wang("table3"), [
        ("one width, ours", "alignf label-aware, one width (Table 2)", False),
        ("7 widths, ours", "alignf label-aware, 7 widths", False),
        ("one width, oracle [paper]", "alignf label-aware, one width (Table 2)" + O, True),
        ("7 widths, oracle [paper]", "alignf label-aware, 7 widths" + O, True),
        ("7 widths, Sec. 4.3.2", "alignf label-aware, 7 widths" + P, False),
        ("eigenvectors only, 7 widths, ours",
         "alignf eigenvectors only, 7 widths (not in the paper)", False)]),
    "wang2015-table1": lambda: error_alignment(_wang("table1"), [
        ("spectral graph kernel, oracle [paper]", "spectral graph kernel" + O, True),
        ("label-aware, oracle [paper]", "label-aware (ours)" + O, True),
        ("cluster kernel, oracle [paper]", "cluster kernel (linear)" + O, True),
        ("diffusion kernel, oracle [paper]", "diffusion kernel" + O, True),
        ("max-alignment kernel, oracle [paper]", "max-alignment kernel" + O, True),
        ("RBF SVM, ours (extra)", "RBF SVM (not in the paper)", False)]),
}


def render(text):
    """``text`` with every generated block rewritten from its CSV; raises KeyError for a block
    name without a renderer."""
    def fill(m):
        name = m.group("name")
        if name not in BLOCKS:
            raise KeyError(f"results/README.md: generated block {name!r} has no renderer "
                           f"(paper.labbook.BLOCKS)")
        head = m.group(0).split("\n", 1)[0]
        return f"{head}\n{BLOCKS[name]()}\n<!-- end generated: {name} -->"
    return MARK.sub(fill, text)


def stale(text):
    """The names of the blocks of ``text`` whose content differs from their CSV."""
    fresh = {m.group("name"): m.group(0) for m in MARK.finditer(render(text))}
    return [m.group("name") for m in MARK.finditer(text) if fresh[m.group("name")] != m.group(0)]


def main(argv=None):
    """``python -m paper.labbook [--check] [FILE]``: rewrite (or check) the generated blocks."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    path = Path(args[0]) if args else LABBOOK
    text = path.read_text()
    if check:
        bad = stale(text)
        for name in bad:
            print(f"{path}: generated block {name!r} differs from its CSV; run "
                  f"`python -m paper.labbook`", file=sys.stderr)
        return 1 if bad else 0
    new = render(text)
    if new != text:
        path.write_text(new)
    print(f"{path}: {len(MARK.findall(new))} generated block(s) rendered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
