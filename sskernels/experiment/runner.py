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
from sskernels.solvers import SolverError
from sskernels.spec import method_key


@dataclass
class Prepared:
    spec: object
    X: object              # the points the learners see (labeled + unlabeled)
    y: np.ndarray          # encoded 0..c-1
    classes: np.ndarray
    settings: list         # [(setting label, [labeled index arrays])]
    X_test: object = None  # held-out unseen points (splits.holdout > 0)
    y_test: np.ndarray = None
    graph_seconds: float = 0.0

    @property
    def n_splits(self):
        return len(self.settings[0][1])


def load_data(spec):
    """The spec's data set, preprocessed: ``(X, y)`` and the official splits if any."""
    from sskernels import data

    d = spec.dataset
    if d.file is not None:
        ds = data.load_file(d.file, format=d.format, label=d.label, preprocess=spec.preprocess)
    else:
        ds = data.load_dataset(d.name, preprocess=spec.preprocess)
    return ds


def holdout_split(y, fraction, seed):
    """Seeded stratified split into (seen, unseen) indices; unseen is ``fraction`` of the points."""
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.size)
    seen, unseen = train_test_split(idx, test_size=fraction, random_state=seed, stratify=y)
    return np.sort(seen), np.sort(unseen)


def prepare(spec, n_splits=None):
    ds = load_data(spec)
    classes, y = np.unique(np.asarray(ds.y), return_inverse=True)
    s = spec.splits
    X, X_test, y_test, official = ds.X, None, None, ds.splits
    if s.holdout > 0:
        if s.protocol == "official":
            raise UserError(f"{spec.path}: field 'splits.holdout': expected 0 with official splits")
        seen, unseen = holdout_split(y, s.holdout, s.seed)
        X, X_test, y_test, y = ds.X[seen], ds.X[unseen], y[unseen], y[seen]
    settings = []
    try:
        for n_lab in s.n_labeled:
            splits = make_splits(y, s.protocol, n_splits or s.n_splits, n_lab, s.seed,
                                 official=official)
            label = (f"official {len(splits[0])} labeled" if s.protocol == "official"
                     else f"{n_lab} labeled")
            settings.append((label, splits))
    except ValueError as exc:
        raise UserError(f"{spec.path}: field 'splits': {exc}") from None
    return Prepared(spec, X, y, classes, settings, X_test, y_test)


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
#: fitted attributes recorded as the parameters a method selected on the labeled points
SELECTED = ("beta_", "C_", "gamma_A_", "gamma_I_", "kernel_width_", "width_", "mu_")


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
    mi, gi, si = task
    prep = _STATE
    spec = prep.spec
    method = spec.methods[mi]
    setting, splits = prep.settings[gi]
    labeled = splits[si]
    y_partial = np.full(prep.y.size, -1)
    y_partial[labeled] = prep.y[labeled]
    unl = y_partial == -1
    try:
        est = make_method(method.name, **method_params(spec, method))
        t0 = time.perf_counter()
        est.fit(prep.X, y_partial)
        pred = np.asarray(est.transduction_)
        metrics = {"accuracy": 100.0 * float(np.mean(pred[unl] == prep.y[unl]))}
        if prep.X_test is not None and get_method(method.name).inductive:
            pred_test = np.asarray(est.predict(prep.X_test))
            metrics["inductive accuracy"] = 100.0 * float(np.mean(pred_test == prep.y_test))
        seconds = time.perf_counter() - t0
    except (ValueError, TypeError, SolverError) as exc:
        raise UserError(f"{spec.path}: methods[{mi}] ({method.label}), split {si}: {exc}") from None
    selected = {k: getattr(est, k) for k in SELECTED if hasattr(est, k)}
    return {
        "key": method_key(spec, method), "spec": spec.name, "table": spec.table or "",
        "dataset": spec.paper.dataset or spec.dataset.display, "setting": setting,
        "method": method.label, "method_name": method.name, "paper": method.paper,
        "split": si, "n_labeled": int(labeled.size), "n_unlabeled": int(unl.sum()),
        "metrics": metrics, "seconds": seconds, "selected": selected,
    }


def run_spec(spec, jobs=1, progress=True, n_splits=None, console=None):
    """Run (or resume) a spec; returns the records as a DataFrame."""
    global _STATE
    prep = prepare(spec, n_splits=n_splits)
    todo, done = [], []
    for mi, method in enumerate(spec.methods):
        key = method_key(spec, method)
        for gi, (setting, splits) in enumerate(prep.settings):
            for si in range(len(splits)):
                rec = read_record(spec.output, method.label, setting, si, key=key)
                if rec is None:
                    todo.append((mi, gi, si))
                else:
                    done.append(rec)
    # One BLAS thread everywhere (parent and workers): the numbers then do not depend on
    # --jobs or on the machine's core count.  Spectra with near-degenerate eigenvalues, and
    # LPs with a face of optima (TSK), are otherwise sensitive to the summation order.
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        if todo:
            prep.graph_seconds = warm_graphs(prep)
            from sskernels.experiment.records import write_graph_seconds

            write_graph_seconds(spec.output, prep.graph_seconds)
        _STATE = prep
        try:
            done.extend(_execute(todo, spec, jobs, progress, console))
        finally:
            _STATE = None
    df = records_frame(done, spec, prep.n_splits)
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
                                              "split", "seconds", "n_labeled")},
                         "metric": metric, "value": value, "order": order[r["method"]]})
    df = pd.DataFrame(rows)
    if not df.empty:
        df = df.sort_values(["n_labeled", "order", "split"]).reset_index(drop=True)
    return df


def setting_labels(spec):
    """The settings' labels, without loading the data (official splits: read from records)."""
    s = spec.splits
    if s.protocol == "official":
        return None
    return [f"{n} labeled" for n in s.n_labeled]


def load_records(spec, n_splits=None):
    """The records already written for a spec (current keys only), as a DataFrame."""
    import json
    from pathlib import Path

    from sskernels.experiment.records import _safe

    n = n_splits or spec.splits.n_splits
    recs = []
    for method in spec.methods:
        key = method_key(spec, method)
        labels = setting_labels(spec)
        if labels is None:
            root = Path(spec.output) / "records" / _safe(method.label)
            paths = sorted(root.glob("*/split_*.json")) if root.is_dir() else []
            labels = sorted({json.loads(p.read_text()).get("setting") for p in paths[:1]} - {None})
        for setting in labels:
            for si in range(n):
                rec = read_record(spec.output, method.label, setting, si, key=key)
                if rec is not None:
                    recs.append(rec)
    return records_frame(recs, spec, n)
