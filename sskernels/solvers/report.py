"""What a fit did: which solvers ran, and every fallback or degenerate case, in one place.

Every estimator of the package exposes ``fit_report_`` (a :class:`FitReport`)
after ``fit``.  Solvers return a :class:`SolveInfo` beside their solution; the
estimator adds it to its report.  The experiment runner writes
``fit_report_.as_dict()`` into each record and the summaries count the notes, so
no fallback and no degenerate fit is ever averaged in without a word.

A note is one short line that starts with its kind:

* ``"fallback: ..."`` — another solver or rule than the documented one ran
  (e.g. ``"fallback: svm-dual highs->libsvm (time limit 10 s)"``);
* ``"degenerate: ..."`` — the fit is valid but trivial or ill-posed
  (e.g. ``"degenerate: zero kernel (mu = 0)"``, ``"degenerate: constant prediction"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("fallback", "degenerate")


@dataclass
class SolveInfo:
    """One solver call: the solver that produced the answer, and a fallback reason if any.

    ``solver`` names what actually produced the returned solution (``"highs-lp"``,
    ``"highs-qp"``, ``"libsvm"``, ``"nnls"``, ``"cg"``, ``"lstsq"``, ...);
    ``fallback`` is None when the documented first choice answered, else the reason
    the fallback ran (its note).  ``stats`` holds numbers worth recording
    (iterations, residual, duality gap).
    """

    solver: str
    fallback: str | None = None
    stats: dict = field(default_factory=dict)


@dataclass
class FitReport:
    """Solvers used and notes (fallbacks, degenerate cases) of one ``fit``."""

    solvers: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    #: ``{what: stats}`` of the solves added with ``keep_stats=True`` (iterative solvers,
    #: whose iterations and residuals belong with the result); empty for the others
    stats: dict = field(default_factory=dict)

    def add(self, info: SolveInfo, what: str = "", keep_stats: bool = False):
        """Record a solver call; a fallback becomes a ``"fallback: ..."`` note.

        With ``keep_stats`` its ``stats`` (iterations, residuals) go into the record too.

        Parameters
        ----------
        info : SolveInfo
            The solver call.
        what : str, default=""
            What was solved: the prefix of the fallback note and the key of the stats
            (``""``: the solver's name).
        keep_stats : bool, default=False
            Keep ``info.stats`` in :attr:`stats` under ``what``.

        Returns
        -------
        SolveInfo
            ``info`` itself.
        """
        if info.solver not in self.solvers:
            self.solvers.append(info.solver)
        if keep_stats:
            self.stats[what or info.solver] = info.stats
        if info.fallback:
            prefix = f"{what} " if what else ""
            self.note("fallback", f"{prefix}{info.fallback}")
        return info

    def note(self, kind: str, text: str):
        """Add the note ``"kind: text"`` (once: a repeated note is not added again).

        Parameters
        ----------
        kind : {"fallback", "degenerate"}
            The note's kind.
        text : str
            The note, one short line.

        Raises
        ------
        ValueError
            If ``kind`` is not one of :data:`KINDS`.
        """
        if kind not in KINDS:
            raise ValueError(f"note kind must be one of {KINDS}, got {kind!r}")
        line = f"{kind}: {text}"
        if line not in self.notes:
            self.notes.append(line)

    def merge(self, other: "FitReport | None", prefix: str = ""):
        """Take over another fit's solvers and notes (a nested learner's).

        Parameters
        ----------
        other : FitReport or None
            The other fit's report; None adds nothing.
        prefix : str, default=""
            Put before the text of each of its notes (after the kind).
        """
        if other is None:
            return
        for s in other.solvers:
            if s not in self.solvers:
                self.solvers.append(s)
        for line in other.notes:
            kind, _, text = line.partition(": ")
            self.note(kind, f"{prefix}{text}")

    @property
    def fallbacks(self):
        return [n for n in self.notes if n.startswith("fallback:")]

    @property
    def degenerate(self):
        return [n for n in self.notes if n.startswith("degenerate:")]

    def as_dict(self):
        out = {"solvers": list(self.solvers), "notes": list(self.notes)}
        if self.stats:  # only iterative solves: other records unchanged
            out["stats"] = {k: _plain(v) for k, v in self.stats.items()}
        return out


def _plain(value):
    """JSON-ready copy of a stats value (numpy scalars and arrays to Python numbers, lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    return value
