"""The validation of a spec's raw mapping into a :class:`~sskernels.spec.model.Spec`:
:func:`parse_spec`, top-level fields, data set, preprocessing, graph and splits in order (the
options of the splits and the metrics: :mod:`sskernels.spec.sections`; the readings:
:mod:`sskernels.spec.readings`; each method entry: :mod:`sskernels.spec_params`, its paper row:
:mod:`sskernels.spec_paper_rows`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sskernels.data.transforms import PREPROCESSINGS as PREPROCESS
from sskernels.spec.fields import NAME_RE, PROTOCOLS, SPLIT_FIELDS, TARGET_SCALES, TOP_FIELDS
from sskernels.spec.model import DatasetSpec, GraphSpec, MethodSpec, PaperSpec, Spec, SplitSpec
from sskernels.spec.readings import _readings, apply_reading
from sskernels.spec.sections import _check_splits_against_data, _metrics, _split_options
from sskernels.spec.validate import _V, _error
from sskernels.spec_limits import (
    MAX_LABELED,
    MAX_NEIGHBORS,
    MAX_SPLITS,
    SIGMA_MAX,
    SIGMA_MIN,
    SIGMA_REASON,
)
from sskernels.spec_paper_rows import paper_row, paper_rows
from sskernels.spec_params import method_entry


def parse_spec(
    raw, path="<spec>", check_names=True, reading=None, extra_methods=(), output_base=None
):
    """Validate a spec's raw mapping (a spec file's YAML, read) and build its :class:`Spec`.

    :func:`~sskernels.spec.load.load_spec` reads the file and calls it; the rules are those
    of :mod:`sskernels.spec`'s docstring.  A relative ``dataset.file`` or ``output`` is taken
    from the folder of ``path``.

    Parameters
    ----------
    raw : object
        The spec's content, a mapping of its fields.
    path : str or pathlib.Path, default="<spec>"
        The spec file, named in errors.
    check_names : bool, default=True
        Check the data set and method names against the registries (and the splits
        against the registered data set).
    reading : str, default=None
        The name of one of the spec's ``readings:``, whose overlay is applied
        (:func:`apply_reading`); None for the primary spec.
    extra_methods : sequence of tuple, default=()
        ``(field, entry)`` pairs of method entries added after the spec's own.
    output_base : str or pathlib.Path, default=None
        The folder a relative ``output`` is taken from; None for the folder of ``path``.

    Returns
    -------
    Spec
        The validated spec.

    Raises
    ------
    SpecError
        For any field that is not as expected.

    Examples
    --------
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10]},
    ...                    "methods": ["harmonic", {"name": "tsk", "params": {"beta": 1.0}}]})
    >>> [m.label for m in spec.methods], spec.splits.n_splits
    (['harmonic', 'tsk'], 2)
    >>> parse_spec({"name": "demo", "dataset": "sklearn-wine", "methods": ["harmonic"],
    ...             "splits": {"n_splits": 0}})
    Traceback (most recent call last):
    ...
    sskernels.errors.SpecError: <spec>: field 'splits.n_splits': expected an integer >= 1, got 0
    """
    v = _V(path)
    if not isinstance(raw, dict):
        raise _error(path, "(top level)", "a mapping of fields", type(raw).__name__)
    v.mapping(raw, "", TOP_FIELDS)
    readings = _readings(v, raw.get("readings"), raw.get("methods"))
    own = raw.get("reading")  # a whole spec that is one documented reading
    if own is not None:
        v.mapping(own, "reading", ("name", "quote"))
        own_name = v.string(own.get("name"), "reading.name")
        if not re.fullmatch(r"[A-Za-z0-9_\-]{1,60}", own_name):
            v.fail("reading.name", "a name of letters, digits, '_', '-'", own_name)
        v.string(own.get("quote"), "reading.quote")
        if readings:
            v.fail("readings", "no readings: in a spec that is itself a reading (reading:)")
    if reading is not None:
        if reading not in readings:
            v.fail(
                "readings",
                f"a reading named {reading!r} (the spec has {', '.join(readings) or 'none'})",
                reading,
            )
        raw = apply_reading(raw, readings[reading])
    name = v.string(raw.get("name", Path(str(path)).stem), "name")
    if not NAME_RE.fullmatch(name):
        v.fail(
            "name",
            "a name of letters, digits, '.', '_', '-' (no path separators, at most "
            "100 characters, not starting with '.')",
            name,
        )
    base_name = name
    if reading is not None:
        name = f"{name}.{reading}"

    ds = raw.get("dataset")
    if ds is None:
        v.fail("dataset", "a data set name or a mapping with 'name' or 'file'")
    if isinstance(ds, str):
        dataset = DatasetSpec(name=ds)
    else:
        v.mapping(ds, "dataset", ("name", "file", "format", "label"))
        if ("name" in ds) == ("file" in ds):
            v.fail("dataset", "exactly one of 'name' or 'file'")
        dataset = DatasetSpec(
            name=v.string(ds["name"], "dataset.name") if "name" in ds else None,
            file=v.string(ds["file"], "dataset.file") if "file" in ds else None,
            format=None
            if ds.get("format") is None
            else v.choice(ds["format"], "dataset.format", ("csv", "svmlight", "libsvm")),
            label=v.string(ds.get("label"), "dataset.label", optional=True),
        )
        if dataset.file is not None:
            f = Path(dataset.file)
            if not f.is_absolute():
                f = Path(path).parent / f
            dataset.file = str(f)
    if check_names and dataset.name is not None:
        from sskernels.data import dataset_names

        if dataset.name not in dataset_names():
            v.fail("dataset", f"a registered data set ({', '.join(dataset_names())})", dataset.name)
    task = "classification"
    if check_names and dataset.name is not None:
        from sskernels.data.registry import REGISTRY

        task = REGISTRY[dataset.name].task
    regression = task == "regression"

    preprocess = v.choice(raw.get("preprocess", "none"), "preprocess", PREPROCESS)

    g = v.mapping(raw.get("graph"), "graph", ("k", "weights", "sigma", "metric", "method"))
    from sskernels.graph import METRICS, WEIGHTS
    from sskernels.graph.descent import SEARCHES

    graph = GraphSpec(
        k=v.integer(g.get("k", 6), "graph.k", minimum=1, maximum=MAX_NEIGHBORS),
        weights=v.choice(g.get("weights", "hein-maier"), "graph.weights", WEIGHTS),
        sigma=v.number(
            g.get("sigma"),
            "graph.sigma",
            positive=True,
            optional=True,
            minimum=SIGMA_MIN,
            maximum=SIGMA_MAX,
            reason=SIGMA_REASON,
        ),
        metric=v.choice(g.get("metric", "euclidean"), "graph.metric", METRICS),
        method=v.choice(g.get("method", "auto"), "graph.method", SEARCHES),
    )

    s = v.mapping(raw.get("splits"), "splits", SPLIT_FIELDS)
    n_lab = s.get("n_labeled", 20)
    n_lab = n_lab if isinstance(n_lab, list) and n_lab else [n_lab]
    holdout = v.number(s.get("holdout", 0.0), "splits.holdout")
    if not 0.0 <= holdout < 1.0:
        v.fail("splits.holdout", "a fraction in [0, 1)", holdout)
    protocol = v.choice(s.get("protocol", "random"), "splits.protocol", PROTOCOLS)
    if holdout and protocol == "official":
        v.fail(
            "splits.holdout",
            "0 with protocol official (the data set's own splits name "
            "every point's role; none is left to hold out)",
            holdout,
        )
    per_class, cover = _split_options(v, s, protocol)
    if per_class is not None:
        n_labeled = [sum(counts) for counts in per_class]
    else:
        n_labeled = [
            v.integer(x, "splits.n_labeled", minimum=1, maximum=MAX_LABELED) for x in n_lab
        ]
    splits = SplitSpec(
        protocol=protocol,
        n_splits=v.integer(s.get("n_splits", 20), "splits.n_splits", minimum=1, maximum=MAX_SPLITS),
        n_labeled=n_labeled,
        seed=v.integer(s.get("seed", 0), "splits.seed", minimum=0, maximum=2**32 - 1),
        holdout=holdout,
        per_class=per_class,
        cover=cover,
    )
    if regression:
        if protocol != "random":
            v.fail(
                "splits.protocol",
                f"random (the only protocol of a regression data set, "
                f"{dataset.name}: n_labeled points drawn from its labeled pool)",
                protocol,
            )
        if holdout:
            v.fail(
                "splits.holdout",
                f"0 for a regression data set ({dataset.name}: the labeled "
                "pool's points that are not drawn are the test points)",
                holdout,
            )
    if check_names and not regression:
        _check_splits_against_data(v, splits, dataset)

    methods_raw = raw.get("methods")
    if not isinstance(methods_raw, list) or not methods_raw:
        v.fail("methods", "a non-empty list of methods", methods_raw)
    metrics = _metrics(v, raw.get("metrics"), regression, dataset.display)
    methods, labels, entries = [], set(), []
    for where, m in [(f"methods[{i}]", m) for i, m in enumerate(methods_raw)] + list(extra_methods):
        e = method_entry(v, where, m, metrics, holdout, graph, task, dataset.display, check_names)
        if e["label"] in labels:
            v.fail(f"{where}.label", "a label not used by another method of this spec", e["label"])
        labels.add(e["label"])
        entries.append((where, e["raw"], e["user"]))
        methods.append(
            MethodSpec(
                e["name"],
                e["label"],
                None,
                e["params"],
                e["select"],
                e["pick"],
                e["protocol"],
                e["grid"],
            )
        )

    p = v.mapping(raw.get("paper"), "paper", ("table", "dataset", "time_table"))
    paper = PaperSpec(
        table=v.string(p.get("table"), "paper.table", optional=True),
        dataset=v.string(p.get("dataset"), "paper.dataset", optional=True),
        time_table=v.string(p.get("time_table"), "paper.time_table", optional=True),
    )
    from sskernels.paper_tables import paper_table_names

    for fld in ("table", "time_table"):
        value = getattr(paper, fld)
        if value is not None and value not in paper_table_names():
            v.fail(f"paper.{fld}", f"one of {', '.join(paper_table_names())}", value)
    rows = paper_rows(paper)
    for method, (where, m, user) in zip(methods, entries):  # labels are for display only
        method.paper = paper_row(
            v, where, m, method.label, rows, paper.table or paper.time_table, user
        )
    if reading is not None and readings[reading].get("only"):  # --with's methods kept
        methods = [
            m
            for m, (where, _, _) in zip(methods, entries)
            if m.label in readings[reading]["only"] or not where.startswith("methods[")
        ]
    output = v.string(raw.get("output", f"results/runs/{base_name}"), "output")
    if "\x00" in output:
        v.fail("output", "a folder path", output)
    try:
        out_path = Path(output).expanduser()
    except RuntimeError:  # ~name of an unknown user
        v.fail("output", "a folder path (~ followed by a user's name: no such user)", output)
    if not out_path.is_absolute() and output_base is not None:  # a packaged spec
        out_path = Path(os.path.normpath(Path(output_base) / out_path))
        if not out_path.is_relative_to(Path.cwd()):
            v.fail(
                "output",
                "a relative folder that stays under the current directory (a "
                "packaged spec's output is taken from there)",
                output,
            )
    elif not out_path.is_absolute():  # one rule for every relative path: the spec's folder
        out_path = Path(path).parent / out_path
    if reading is not None:  # its own records, beside the primary spec's
        out_path = out_path.with_name(f"{out_path.name}.{reading}")
    output = str(out_path)
    table = v.string(raw.get("table"), "table", optional=True)
    target_scale = raw.get("target_scale")
    if target_scale is not None:
        if not regression:
            v.fail(
                "target_scale",
                f"no target_scale for a classification data set "
                f"({dataset.display} has labels, not targets)",
                target_scale,
            )
        v.choice(target_scale, "target_scale", TARGET_SCALES)
    return Spec(
        str(path),
        name,
        dataset,
        preprocess,
        graph,
        splits,
        methods,
        paper,
        output,
        table,
        metrics,
        task,
        target_scale,
        readings={k: r["quote"] for k, r in readings.items()},
        reading=reading if own is None else own["name"],
    )
