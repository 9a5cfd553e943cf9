"""A method's ``paper_row:`` names the row of the spec's paper table
(``paper: {table: ...}``) that its results are compared with (``paper:`` is its old name,
still read).  Labels are for display only: without ``paper_row:`` a method is compared with
the row of the same name only when the paper table has exactly that row, and with none
otherwise; ``paper_row: null`` says "no paper row" explicitly.  A ``paper_row:`` that is not
a row of the paper table, or a label (given, or the method's name) that matches a row only
in letter case (``- tsk`` against the row ``TSK``), is a one-line error at load
(:func:`paper_row`): never a silent miss of a paper value.  A user's estimator
(``estimator:``) has no paper row unless it names one.
"""

from __future__ import annotations

import difflib


def paper_rows(paper):
    """The rows (methods) of a spec's paper tables (``table`` and ``time_table``) as a set.

    None when the spec names no paper table.

    Parameters
    ----------
    paper : PaperSpec
        The spec's ``paper:`` (its ``table`` and ``time_table``).

    Returns
    -------
    set of str or None
        The method rows of the named tables, or None.
    """
    from sskernels.paper_tables import paper_table

    names = [t for t in (paper.table, paper.time_table) if t]
    if not names:
        return None
    return {str(m) for t in names for m in paper_table(t)["method"].dropna()}


def _closest(value, rows):
    """The row that differs from ``value`` only in letter case, else the closest by
    :func:`difflib.get_close_matches`, else None."""
    same = [r for r in sorted(rows) if r.lower() == str(value).lower()]
    if same:
        return same[0]
    close = difflib.get_close_matches(str(value), sorted(rows), n=1, cutoff=0.6)
    return close[0] if close else None


def paper_row(v, where, raw, label, rows, table, user=False):
    """The paper row of one method entry ``raw`` (a spec's mapping), or None.

    ``v`` is the spec's validator (its ``fail`` raises the one-line SpecError), ``where``
    the entry's field (``methods[2]``), ``rows`` :func:`paper_rows` of the spec (None: no
    paper table), ``table`` the paper table's name (for the message), ``user`` whether the
    entry is a user's estimator (no row by default).

    Parameters
    ----------
    v : object
        The spec's validator.
    where : str
        The entry's field.
    raw : dict
        The method entry as a mapping.
    label : str
        The method's label.
    rows : set of str or None
        The paper table's rows (:func:`paper_rows`); None for no paper table.
    table : str or None
        The paper table's name.
    user : bool, default=False
        Whether the entry is a user's estimator.

    Returns
    -------
    str or None
        The paper row: the ``paper_row:`` given, else the label when it is a row (not for
        a user's estimator), else None.

    Raises
    ------
    SpecError
        If both ``paper_row`` and ``paper`` are given, the row is not a row of the paper
        table, or the label matches a row only in letter case.
    """
    if "paper_row" in raw and "paper" in raw:
        v.fail(f"{where}.paper", "paper_row or its old name paper, not both", raw["paper"])
    field_ = "paper_row" if "paper_row" in raw else "paper" if "paper" in raw else None
    if field_ is not None:
        value = raw[field_]
        if value is None:  # paper_row: null, no paper row
            return None
        v.string(value, f"{where}.{field_}")
        if rows is not None and value not in rows:
            close = _closest(value, rows)
            hint = (
                f"did you mean paper_row: {close}?" if close else "rows: " + ", ".join(sorted(rows))
            )
            v.fail(
                f"{where}.{field_}",
                f"a row of the paper table {table} ({hint}; paper_row: null for none)",
                value,
            )
        return value
    if user or rows is None:
        return None
    if label in rows:
        return label
    same = [r for r in sorted(rows) if r.lower() == label.lower()]
    if same:  # never a silent miss of the row the spec most likely means
        field_ = "label" if "label" in raw else "name"
        v.fail(
            f"{where}.{field_}",
            f"a label that is exactly a row of the paper table {table}, "
            f"or an explicit paper_row (the label {label!r} matches the row {same[0]!r} "
            f"only in letter case: did you mean paper_row: {same[0]}? paper_row: null "
            "for none)",
            label,
        )
    return None
