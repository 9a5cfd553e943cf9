"""Run a spec: every method on every split, records written as they finish.

Label-independent work is done once per run: the data set is loaded once, and
each graph and its Laplacian spectrum are built in the parent process before
any split runs (:func:`warm_graphs`).  Worker processes (``--jobs``) are
spawned, not forked (a fork after BLAS or HiGHS started their threads can
deadlock), and receive the prepared data and the built graphs once, at start,
through :func:`sskernels.graph.get_graph`'s cache; each split then only does
the label-dependent work.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sskernels.errors import UserError
from sskernels.experiment.records import read_record, write_record
from sskernels.experiment.splits import make_splits
from sskernels.learners.registry import get_method, make_method
from sskernels.spec import method_key


@dataclass
class Prepared:
    spec: object
    X: object
    y: np.ndarray          # encoded 0..c-1
    classes: np.ndarray
    splits: list
    graph_seconds: float = 0.0

    @property
    def setting(self):
        s = self.spec.splits
        if s.protocol == "official":
            return f"official {len(self.splits[0])} labeled"
        return f"{s.n_labeled} labeled"


def load_data(spec):
    """The spec's data set, preprocessed: ``(X, y)`` and the official splits if any."""
    from sskernels import data

    d = spec.dataset
    if d.file is not None:
        ds = data.load_file(d.file, format=d.format, label=d.label, preprocess=spec.preprocess)
    else:
        ds = data.load_dataset(d.name, preprocess=spec.preprocess)
    return ds


def prepare(spec, n_splits=None):
    ds = load_data(spec)
    classes, y = np.unique(np.asarray(ds.y), return_inverse=True)
    s = spec.splits
    try:
        splits = make_splits(y, s.protocol, n_splits or s.n_splits, s.n_labeled, s.seed,
                             official=ds.splits)
    except ValueError as exc:
        raise UserError(f"{spec.path}: field 'splits': {exc}") from None
    return Prepared(spec, ds.X, y, classes, splits)


def method_params(spec, method):
    """Constructor parameters: the spec's graph for graph-based methods, then the method's own."""
    params = {}
    if get_method(method.name).uses_graph:
        g = spec.graph
        params.update(n_neighbors=g.k, weights=g.weights, sigma=g.sigma, metric=g.metric)
    params.update(method.params)
    return params


def warm_graphs(prep):
    """Build every graph and spectrum the methods will ask for; returns the seconds spent."""
    t0 = time.perf_counter()
    for i, method in enumerate(prep.spec.methods):
        est = make_method(method.name, **method_params(prep.spec, method))
        if hasattr(est, "_graph"):
            try:
                graph = est._graph(prep.X)
                m = getattr(est, "n_components", "absent")
                if m != "absent":
                    graph.spectrum(m)
            except ValueError as exc:
                raise UserError(f"{prep.spec.path}: methods[{i}] ({method.label}): {exc}") from None
    return time.perf_counter() - t0


_STATE: Prepared | None = None


def _init_worker(state, graphs):
    global _STATE
    from threadpoolctl import threadpool_limits

    from sskernels.graph import cache_put

    # one BLAS thread per worker: the workers already use the cores
    threadpool_limits(1)
    _STATE = state
    for key, graph in graphs:
        cache_put(key, graph)


def _run_task(task):
    mi, si = task
    prep = _STATE
    spec = prep.spec
    method = spec.methods[mi]
    labeled = prep.splits[si]
    y_partial = np.full(prep.y.size, -1)
    y_partial[labeled] = prep.y[labeled]
    unl = y_partial == -1
    try:
        est = make_method(method.name, **method_params(spec, method))
        t0 = time.perf_counter()
        est.fit(prep.X, y_partial)
        pred = np.asarray(est.transduction_)
        seconds = time.perf_counter() - t0
    except (ValueError, TypeError) as exc:
        raise UserError(f"{spec.path}: methods[{mi}] ({method.label}): {exc}") from None
    selected = {k: getattr(est, k) for k in ("beta_",) if hasattr(est, k)}
    return {
        "key": method_key(spec, method), "spec": spec.name, "table": spec.table or "",
        "dataset": spec.paper.dataset or spec.dataset.display, "setting": prep.setting,
        "method": method.label, "method_name": method.name, "paper": method.paper,
        "split": si, "n_labeled": int(labeled.size), "n_unlabeled": int(unl.sum()),
        "metrics": {"accuracy": 100.0 * float(np.mean(pred[unl] == prep.y[unl]))},
        "seconds": seconds, "selected": selected,
    }


def run_spec(spec, jobs=1, progress=True, n_splits=None, console=None):
    """Run (or resume) a spec; returns the records as a DataFrame."""
    global _STATE
    prep = prepare(spec, n_splits=n_splits)
    todo, done = [], []
    for mi, method in enumerate(spec.methods):
        key = method_key(spec, method)
        for si in range(len(prep.splits)):
            rec = read_record(spec.output, method.label, si, key=key)
            if rec is None:
                todo.append((mi, si))
            else:
                done.append(rec)
    if todo:
        prep.graph_seconds = warm_graphs(prep)
    _STATE = prep
    try:
        done.extend(_execute(todo, spec, jobs, progress, console))
    finally:
        _STATE = None
    df = records_frame(done, spec, len(prep.splits))
    df.attrs["graph_seconds"] = prep.graph_seconds
    return df


def _execute(todo, spec, jobs, progress, console):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from rich.console import Console

    out = []
    bar_console = console or Console(stderr=True)
    bar = Progress(TextColumn(f"[bold]{spec.name}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=bar_console, transient=False,
                   disable=not progress or not todo or not bar_console.is_terminal)
    with bar:
        task = bar.add_task("run", total=len(todo))
        if jobs > 1 and len(todo) > 1:
            from sskernels.graph import cache_items

            ctx = mp.get_context("spawn")
            with ctx.Pool(min(jobs, len(todo)), initializer=_init_worker,
                          initargs=(_STATE, cache_items())) as pool:
                for rec in pool.imap_unordered(_run_task, todo):
                    write_record(spec.output, rec)
                    out.append(rec)
                    bar.advance(task)
        else:
            for t in todo:
                rec = _run_task(t)
                write_record(spec.output, rec)
                out.append(rec)
                bar.advance(task)
    return out


def records_frame(records, spec, n_splits):
    """Long-format records: one row per (method, split, metric), limited to the spec's splits."""
    rows = []
    order = {m.label: i for i, m in enumerate(spec.methods)}
    for r in records:
        if r["split"] >= n_splits or r["method"] not in order:
            continue
        for metric, value in r["metrics"].items():
            rows.append({**{k: r[k] for k in ("table", "dataset", "setting", "method", "paper",
                                              "split", "seconds")},
                         "metric": metric, "value": value, "order": order[r["method"]]})
    df = pd.DataFrame(rows)
    if not df.empty:
        df = df.sort_values(["order", "split"]).reset_index(drop=True)
    return df


def load_records(spec, n_splits=None):
    """The records already written for a spec (current keys only), as a DataFrame."""
    n = n_splits or spec.splits.n_splits
    recs = []
    for method in spec.methods:
        key = method_key(spec, method)
        for si in range(n):
            rec = read_record(spec.output, method.label, si, key=key)
            if rec is not None:
                recs.append(rec)
    return records_frame(recs, spec, n)
