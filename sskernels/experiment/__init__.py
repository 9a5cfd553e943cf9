"""Experiments: a spec's data prepared and split, its tasks planned, scheduled on an executor
and recorded, and the records summarized into the papers' tables.

The modules, by job (imports go downward only; ``tests/test_layering.py``):

* :mod:`~sskernels.experiment.splits` and :mod:`~sskernels.experiment.tasks` (with
  :mod:`~sskernels.experiment.oracle`): the worker side, the code a record's numbers come
  from;
* :mod:`~sskernels.experiment.records` and :mod:`~sskernels.experiment.archive`: the store
  (record keys, atomic writes, committed archives);
* :mod:`~sskernels.experiment.plan`: each method's estimator and record key;
  :mod:`~sskernels.experiment.preparation`: the data, checked and split;
* :mod:`~sskernels.experiment.worker`: warm-up, artifacts and one stamped record, for every
  executor; :mod:`~sskernels.experiment.executors` (local processes) and
  :mod:`~sskernels.experiment.dask_backend` (a Dask cluster);
* :mod:`~sskernels.experiment.runner`: plans and schedules a run;
  :mod:`~sskernels.experiment.collect`: records as a frame, read back without running;
* :mod:`~sskernels.experiment.tables`, :mod:`~sskernels.experiment.figures`,
  :mod:`~sskernels.experiment.bound`, :mod:`~sskernels.experiment.floors`: summaries.

The names below are the public API (imported on first use, so that importing the worker
side loads nothing of the scheduler).

Examples
--------
>>> from sskernels.experiment import prepare, run_spec
>>> from sskernels.spec import parse_spec
>>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
...                    "splits": {"n_splits": 2, "n_labeled": [10]}, "methods": ["harmonic"],
...                    "output": "/tmp/sskernels-doctest-experiment"})
>>> df = run_spec(spec, progress=False, reuse=False)
>>> sorted(df["metric"].unique()), len(df)
(['accuracy'], 2)
"""

from __future__ import annotations

import importlib

#: public name -> the module that defines it
_EXPORTS = {
    "Prepared": "sskernels.experiment.preparation",
    "prepare": "sskernels.experiment.preparation",
    "load_data": "sskernels.experiment.preparation",
    "setting_labels": "sskernels.experiment.preparation",
    "MethodRun": "sskernels.experiment.plan",
    "build": "sskernels.experiment.plan",
    "method_params": "sskernels.experiment.plan",
    "method_runs": "sskernels.experiment.plan",
    "method_code": "sskernels.experiment.plan",
    "record_keys": "sskernels.experiment.plan",
    "warm_graphs": "sskernels.experiment.worker",
    "run_record": "sskernels.experiment.worker",
    "Executor": "sskernels.experiment.executors",
    "LocalExecutor": "sskernels.experiment.executors",
    "make_executor": "sskernels.experiment.executors",
    "run_spec": "sskernels.experiment.runner",
    "run_specs": "sskernels.experiment.runner",
    "pending_tasks": "sskernels.experiment.runner",
    "load_records": "sskernels.experiment.collect",
    "records_frame": "sskernels.experiment.collect",
    "best_on_average": "sskernels.experiment.collect",
    "regression_metrics": "sskernels.experiment.tasks",
    "unlabeled_alignment": "sskernels.experiment.tasks",
    "make_splits": "sskernels.experiment.splits",
    "atomic_write_text": "sskernels.experiment.records",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
