"""The ``notes`` column: each fallback or degenerate-fit note of a cell's records with the
number of splits it fired in, and a ``notes`` cell split back into its entries.
"""

from __future__ import annotations

import re


def _record_notes(row):
    """The notes of one record row: ``report["notes"]`` (a missing report: no notes)."""
    rep = row.get("report")
    if isinstance(rep, dict):
        notes = rep.get("notes") or []
    else:
        notes = row.get("notes")
        notes = notes if isinstance(notes, (list, tuple)) else []
    return [str(n) for n in notes]


def _notes(g):
    """``"note xK/N; ..."``: each note of a cell's records and the number K of its N splits
    it fired in (first-seen order); empty when no record has a note."""
    if "report" not in g.columns and "notes" not in g.columns:
        return ""
    one = g.drop_duplicates(["split"])
    counts = {}
    for _, r in one.iterrows():
        for note in dict.fromkeys(_record_notes(r)):
            counts[note] = counts.get(note, 0) + 1
    n = len(one)
    return "; ".join(f"{note} x{k}/{n}" for note, k in counts.items())


_NOTE_SPLIT = re.compile(r"; (?=(?:fallback|degenerate): )")


def split_notes(text):
    """The entries of a ``notes`` cell (``"note xK/N"`` each); [] for an empty cell.

    Parameters
    ----------
    text : str
        The cell (anything else than a non-blank string is empty).

    Returns
    -------
    list of str
        The entries: the cell split at each ``"; "`` that precedes ``"fallback: "`` or
        ``"degenerate: "``.
    """
    if not isinstance(text, str) or not text.strip():
        return []
    return _NOTE_SPLIT.split(text.strip())
