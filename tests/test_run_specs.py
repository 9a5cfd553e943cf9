"""Several specs on one local worker pool (``sskernels run A B C --jobs 2``): each spec is
begun (data, resume, graphs) while the workers finish the one before, and its tasks queued
behind them (runner.run_specs).  The records must be those of the specs run one by one, a
spec that can reuse the running spec's records must still reuse them, and the queueing must
really happen before the running spec is drained.

The tests that run on real workers share one pool of two (:func:`pool`, for the module), as
the specs of one ``sskernels run`` do: each pool's two spawned workers cost seconds of
imports, and a worker loads each spec's state from that spec's own state file whatever it
ran before."""

import json

import pytest
from sskernels.experiment import runner
from sskernels.experiment.executors import LocalExecutor
from sskernels.experiment.runner import run_spec, run_specs
from sskernels.experiment.worker import artifact_items, run_record
from sskernels.spec import parse_spec


def _spec(tmp_path, name, methods, n_labeled=20):
    return parse_spec(
        {
            "name": name,
            "dataset": "sklearn-wine",
            "preprocess": "minmax",
            "graph": {"k": 6},
            "splits": {"n_splits": 3, "n_labeled": n_labeled, "seed": 3},
            "methods": methods,
            "output": str(tmp_path / name),
        },
        tmp_path / f"{name}.yaml",
    )


@pytest.fixture(scope="module")
def pool():
    """One local pool of two worker processes for the module's runs."""
    with LocalExecutor(2) as workers:
        yield workers


def _records(out):
    return {
        p.parent.name + "/" + p.name: json.loads(p.read_text())
        for p in sorted(out.rglob("split_*.json"))
    }


def test_overlapped_specs_give_the_records_of_specs_run_one_by_one(tmp_path, pool):
    methods = {
        "a": ["harmonic", "consistency"],
        "b": [
            "consistency",
            {"name": "tsk", "params": {"n_components": 10, "eta": 2, "beta": 1.0}},
        ],
        "c": ["harmonic"],
    }
    for name, m in methods.items():  # one by one, each on its own
        run_spec(_spec(tmp_path / "alone", name, m, n_labeled=15), progress=False, reuse=False)
    specs = [_spec(tmp_path / "overlap", name, m, n_labeled=15) for name, m in methods.items()]
    got = [
        (s.name, len(df))
        for s, df in run_specs(specs, jobs=2, progress=False, reuse=False, workers=pool)
    ]
    assert [g[0] for g in got] == ["a", "b", "c"] and all(n > 0 for _, n in got)
    for name in methods:
        alone = _records(tmp_path / "alone" / name)
        over = _records(tmp_path / "overlap" / name)
        assert alone.keys() == over.keys() and alone
        for k in alone:
            for field in ("metrics", "selected", "report", "key"):
                assert alone[k][field] == over[k][field], (name, k, field)


def test_a_spec_that_can_reuse_the_running_specs_records_still_reuses_them(tmp_path, pool):
    """b's consistency rows have a's keys: b is looked up again after a is drained (and
    queued only then), so it copies a's records instead of computing them anew."""
    a = _spec(tmp_path, "a", ["consistency", "harmonic"])
    b = _spec(tmp_path, "b", ["consistency"])
    list(run_specs([a, b], jobs=2, progress=False, workers=pool))
    recs = _records(tmp_path / "b")
    assert len(recs) == 3
    assert all(r["reused_from"] == {"spec": "a", "method": "consistency"} for r in recs.values())


class _HeldStream:
    """A stream of records, logging when each is taken; with ``hold``, the first record is
    handed out only once ``hold`` is set (the run held at a known point, not a race)."""

    def __init__(self, recs, log, hold=None):
        self.recs, self.log, self.hold = list(recs), log, hold

    def next(self, timeout=None):
        if not self.recs:
            raise AssertionError("no more records")
        if self.hold is not None:
            # b must be queued while a's first record is still pending; 60 s: a runner that
            # queues b only after draining a would never set it
            assert self.hold.wait(60), "the next spec was not queued while this one ran"
            self.hold = None
        self.log.append("record")
        return self.recs.pop(0)

    def close(self):
        self.log.append("closed")


def test_the_next_spec_is_queued_before_the_running_one_is_drained(tmp_path, monkeypatch):
    import threading

    log = []
    b_queued = threading.Event()
    a = _spec(tmp_path, "a", ["harmonic"])
    b = _spec(tmp_path, "b", ["consistency"])

    class Workers:
        local = True

        def artifacts(self):
            return artifact_items()

        def start(self, state, artifacts, tasks):
            log.append(("start", state.spec.name))
            recs = [run_record(t, state) for t in tasks]
            if state.spec.name == "b":
                b_queued.set()
                return _HeldStream(recs, log)
            return _HeldStream(recs, log, hold=b_queued)

    monkeypatch.setattr(runner, "write_record", lambda out, rec: rec)
    out = list(run_specs([a, b], jobs=2, progress=False, workers=Workers()))
    assert [s.name for s, _ in out] == ["a", "b"]
    # b's three tasks were queued before a's first record was taken
    assert log.index(("start", "b")) < log.index("record")
    assert log.count("record") == 6 and log.count("closed") == 2


def test_a_spec_looked_up_again_is_not_prepared_again(tmp_path, monkeypatch, pool):
    """The second look-up (keys met the running spec's) reads the records only: the data are
    not loaded again and the graphs not warmed again, so the spec's recorded warm-up seconds
    stay those of its real warm-up (a second warm-up hits the caches and measured ~0 s)."""
    calls = []
    real_prepare, real_warm = runner.prepare, runner.warm_graphs
    monkeypatch.setattr(
        runner,
        "prepare",
        lambda spec, **kw: calls.append(("prepare", spec.name)) or real_prepare(spec, **kw),
    )
    monkeypatch.setattr(
        runner,
        "warm_graphs",
        lambda prep: calls.append(("warm", prep.spec.name)) or real_warm(prep),
    )
    a = _spec(tmp_path, "a", ["consistency", "harmonic"])
    b = _spec(
        tmp_path,
        "b",
        [
            "consistency",
            "harmonic",
            {"name": "tsk", "params": {"n_components": 10, "eta": 2, "beta": 1.0}},
        ],
    )
    list(run_specs([a, b], jobs=2, progress=False, workers=pool))
    assert calls.count(("prepare", "b")) == 1 and calls.count(("warm", "b")) == 1
    recs = [json.loads(p.read_text()) for p in (tmp_path / "b").rglob("split_*.json")]
    reused = [r for r in recs if r.get("reused_from")]
    assert len(recs) == 9 and len(reused) == 6  # a's two methods copied, tsk computed
