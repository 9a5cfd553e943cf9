"""The checks of two sections of a spec: ``metrics:`` (:func:`_metrics`) and the options
of ``splits:`` (:func:`_split_options`, :func:`_per_class`), and the splits against what the
registry tells of a registered data set (:func:`_check_splits_against_data`).
"""

from __future__ import annotations

from sskernels.spec.fields import COVERS, EXTRA_METRICS, REGRESSION_METRICS
from sskernels.spec_limits import MAX_LABELED


def _metrics(v, raw, regression=False, dataset=None):
    """The extra metrics of ``metrics:`` in :data:`EXTRA_METRICS` order (``accuracy``, always
    recorded, may be listed); [] when absent.  A regression data set records
    :data:`REGRESSION_METRICS` (both, always): ``metrics:`` may list them, nothing else."""
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [raw]
    allowed = REGRESSION_METRICS if regression else ("accuracy",) + EXTRA_METRICS
    what = f" (the metrics of the regression data set {dataset})" if regression else ""
    if not isinstance(raw, list):
        v.fail("metrics", f"a list of metrics among {', '.join(allowed)}{what}", raw)
    for i, x in enumerate(raw):
        if not isinstance(x, str) or x not in allowed:
            v.fail(f"metrics[{i}]", f"one of {', '.join(allowed)}{what}", x)
    if regression:
        return [m for m in REGRESSION_METRICS if m in raw]
    return [m for m in EXTRA_METRICS if m in raw]


def _split_options(v, s, protocol):
    """``(per_class, cover)`` of the ``splits`` mapping ``s``: validated, None where the
    protocol does not use them (and refused where it was given anyway)."""
    per_class = cover = None
    if protocol == "per-class":
        if "n_labeled" in s:
            v.fail(
                "splits.n_labeled",
                "no n_labeled with protocol per-class (each setting's "
                "number of labeled points is the sum of its per_class counts)",
                s["n_labeled"],
            )
        if "per_class" not in s:
            v.fail(
                "splits.per_class",
                "labeled counts per class with protocol per-class, e.g. "
                "[[10, 10], [10, 20]] (one list per setting, classes in sorted label order)",
            )
        per_class = _per_class(v, s["per_class"])
    elif "per_class" in s:
        v.fail(
            "splits.per_class",
            f"no per_class with protocol {protocol} (per_class needs protocol: per-class)",
            s["per_class"],
        )
    if protocol == "class-first":
        cover = v.choice(s.get("cover", "classes"), "splits.cover", COVERS)
    elif "cover" in s:
        v.fail(
            "splits.cover",
            f"no cover with protocol {protocol} (cover needs protocol: class-first)",
            s["cover"],
        )
    return per_class, cover


def _per_class(v, raw):
    """A list of settings, each a list of counts (integers >= 1); a flat list of counts is
    one setting.  Two settings may not have the same total (records are keyed by it)."""
    fld = "splits.per_class"
    if not isinstance(raw, list) or not raw:
        v.fail(fld, "a non-empty list of counts per class, or a list of such lists", raw)
    if not any(isinstance(x, list) for x in raw):
        raw = [raw]
    settings, totals = [], {}
    for i, counts in enumerate(raw):
        where = f"{fld}[{i}]"
        if not isinstance(counts, list) or len(counts) < 2:
            v.fail(where, "a list of labeled counts, one per class (at least 2)", counts)
        counts = [
            v.integer(c, f"{where}[{j}]", minimum=1, maximum=MAX_LABELED)
            for j, c in enumerate(counts)
        ]
        total = sum(counts)
        if total in totals:
            v.fail(
                where,
                f"a total number of labeled points different from {fld}"
                f"[{totals[total]}]'s ({total}): records are keyed by that number",
                counts,
            )
        totals[total] = i
        settings.append(counts)
    return settings


def _check_splits_against_data(v, splits, dataset):
    """What the registry tells about a registered data set (n, classes, groups) against the
    split options, before any data loads; a data file carries no groups."""
    if dataset.name is None:
        if splits.cover == "groups":
            v.fail("splits.cover", "classes (a data file carries no subclasses (groups))", "groups")
        return
    from sskernels.data.registry import REGISTRY

    entry = REGISTRY[dataset.name]
    if splits.cover == "groups" and not entry.n_groups:
        with_groups = [e.name for e in REGISTRY.values() if e.n_groups]
        v.fail(
            "splits.cover",
            f"classes ({dataset.name} has no subclasses (groups); data sets "
            f"with groups: {', '.join(with_groups)})",
            "groups",
        )
    if splits.protocol == "class-first":
        k = max(entry.n_classes, entry.n_groups if splits.cover == "groups" else 0)
        for n in splits.n_labeled:
            if n < k:
                v.fail(
                    "splits.n_labeled",
                    f"at least {k} (protocol class-first takes one "
                    f"labeled point per {'subclass' if splits.cover == 'groups' else 'class'}"
                    f" of {dataset.name} first)",
                    n,
                )
    for i, counts in enumerate(splits.per_class or []):
        if len(counts) != entry.n_classes:
            v.fail(
                f"splits.per_class[{i}]",
                f"{entry.n_classes} counts, one per class of {dataset.name} in sorted label order",
                counts,
            )
    for n in splits.n_labeled:
        if splits.protocol in ("class-first", "per-class") and n >= entry.n:
            fld = "splits.per_class" if splits.per_class else "splits.n_labeled"
            v.fail(fld, f"fewer labeled points than the {entry.n} points of {dataset.name}", n)
