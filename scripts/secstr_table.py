"""The SecStr scale table (``make table-secstr``).

Runs ``configs/scale/secstr_<L>.yaml`` (the SSL-book SecStr set, 83,679 points, official
splits) like ``sskernels run`` does — same records, resume and summary — and writes
``results/scale/secstr.{csv,md}`` in the summary schema with, beside the methods' accuracy
and seconds per split, one ``seconds`` row per label-independent stage of the run (the k-NN
graph, with the search used and its recall; the spectrum, with its solver and residual) and
the run's peak resident memory.  The stage figures are those of the run that computed the
records; a run that computes nothing for a spec (its records resumed, or restored from the
archive) keeps the ones recorded (``stages.json`` in the run's output folder, kept by the
archive), or shows none.

**A pipeline, not one spec after the other.**  The k-NN graph of the specs with graph
methods (ours) is built first, its exact search's row blocks on ``--jobs`` threads; then the
specs without label-independent work (the peer, scikit-learn's LabelSpreading, which builds
its own graph in every fit) start in a thread of this process on worker processes of their
own, beside our spectrum (one BLAS thread, kept single-threaded so that the eigenvectors do
not depend on ``--jobs``) and our fits.  Run one after the other the table took 333 s, of
which 100 s with one of the two cores idle (our spectrum).  No number changes: every spec
runs the code and the state it runs alone; only its seconds share the machine with the
other spec's (the table says so).  Memory is then the sum of both: the ``peak memory`` row
is the largest sum of the resident memory of this process and all its worker processes,
sampled every 0.25 s.  scikit-learn's ``working_memory`` is 32 MB in every process of the
table (``SKLEARN_WORKING_MEMORY``, unless set): the peer's k-NN search otherwise computes its
distances in chunks of 1 GB, two of them at once with the peer on two workers (the summed
peak was 6.2 GB, and the page faults cost the peer 10 % of its time); the neighbours, hence
its labels, are the same (checked on full SecStr: identical transductions at 32 MB and
1 GB).  Our own exact search already caps its chunks at 32 MB (sskernels.graph.search).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def _stage_rows(spec, first, stages):
    from sskernels.experiment.tables import summary_row

    rows = []
    nan = np.nan
    for label, key, metric in (
        ("stage: k-NN graph", "graph_seconds", "seconds"),
        ("stage: spectrum", "spectrum_seconds", "seconds"),
        ("stage: graph + spectrum (warm-up, all methods)", "warm_seconds", "seconds"),
        ("peak memory of the table run, all processes (MB)", "peak_mb", "MB"),
        (f"wall time of {spec.name} (s)", "wall_seconds", "seconds"),
        ("wall time of the table, every spec (s)", "table_seconds", "seconds"),
    ):
        value = stages.get(key)
        if value is None:
            continue
        row = summary_row(
            spec, first, label, metric, np.array([float(value)]), nan, nan, decimals=2
        )
        row["notes"] = stages.get(
            key.replace("seconds", "detail").replace("peak_mb", "peak_detail"), ""
        )
        rows.append(row)
    return rows


def _graph_stages(points=None):
    """Seconds and details of the k-NN graph and spectrum memoized in this process (those of
    ``points`` only, when given)."""
    from sskernels.graph import cached_graphs, fingerprint, search_summary

    fp = None if points is None else fingerprint(points)
    out = {}
    for key, g in cached_graphs():
        if fp is not None and key[0] != fp:
            continue
        info = dict(getattr(g, "knn_info", None) or {})
        if info.get("seconds") is not None:
            # wall time where the builder measured it (NN-descent searches on two threads:
            # its CPU seconds are about twice its wall seconds), else the recorded seconds
            wall = info.get("wall_seconds")
            out["graph_seconds"] = out.get("graph_seconds", 0.0) + float(
                info["seconds"] if wall is None else wall
            )
            # the search, its tie handling and (approximate search) its recall on a sample
            out["graph_detail"] = search_summary({"weights": key[2], **info})
            if wall is not None:
                out["graph_detail"] += (
                    f"; {float(wall):.1f} s wall ({float(info['seconds']):.1f}"
                    f" s CPU), the index's own search "
                    f"{float(info.get('search_seconds', float('nan'))):.1f}"
                    f" s wall"
                )
        spec = g.computed_spectrum
        if spec is not None and spec.seconds is not None:
            out["spectrum_seconds"] = out.get("spectrum_seconds", 0.0) + spec.seconds
            out["spectrum_detail"] = f"{spec.values.size} pairs by {spec.solver}" + (
                "" if spec.residual is None else f", residual {spec.residual:.1e}"
            )
    return out


def _name_memory_section(md):
    """The summary writer heads every metric's section as an accuracy-like value on the
    unlabeled points; say what the MB rows are instead."""
    from sskernels.experiment.records import atomic_write_text

    lines = Path(md).read_text().splitlines()
    lines = [
        "peak resident memory (MB): the largest sum over this process and all its worker "
        "processes during the table's run (one value per run, not per split)"
        if line.startswith("MB (%) on the unlabeled points")
        else line
        for line in lines
    ]
    # the writer's closing "seconds per split" table of the MB rows has no values: drop it
    text = "\n".join(lines)
    blocks = text.split("\n\n")
    empty = [
        i
        for i in range(len(blocks) - 1)
        if blocks[i] == "seconds per split (fit + predict, mean)"
        and all(r.endswith("| nan |") for r in blocks[i + 1].splitlines()[2:])
    ]
    blocks = [b for i, b in enumerate(blocks) if i not in empty and i - 1 not in empty]
    atomic_write_text(md, "\n\n".join(blocks).rstrip("\n") + "\n")


class TreeMemory:
    """The largest summed resident memory (MB) of this process and its descendants, sampled
    every ``interval`` seconds in a thread (Linux ``/proc``; None where there is none)."""

    def __init__(self, interval=0.25):
        import threading

        self.interval, self.peak_mb = interval, None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _tree_mb():
        import os

        parent, rss = {}, {}
        page = os.sysconf("SC_PAGE_SIZE")
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as fh:
                    stat = fh.read()
                with open(f"/proc/{d}/statm") as fh:
                    rss[int(d)] = int(fh.read().split()[1]) * page
            except (OSError, ValueError, IndexError):
                continue
            parent[int(d)] = int(stat[stat.rindex(")") + 2 :].split()[1])
        tree, todo = set(), [os.getpid()]
        while todo:
            p = todo.pop()
            tree.add(p)
            todo.extend(c for c, pp in parent.items() if pp == p and c not in tree)
        return sum(rss.get(p, 0) for p in tree) / 2**20

    def _run(self):
        while not self._stop.is_set():
            mb = self._tree_mb()
            self.peak_mb = mb if self.peak_mb is None else max(self.peak_mb, mb)
            self._stop.wait(self.interval)

    def __enter__(self):
        import os

        if os.path.isdir("/proc"):
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        return False


def _graph_builders(spec):
    """The k-NN graph builders of ``spec``'s graph methods (empty for the peers)."""
    from sskernels.experiment.plan import method_params
    from sskernels.learners.registry import make_method

    out = []
    for m in spec.methods:
        est = make_method(m.name, **method_params(spec, m))
        builder = getattr(est, "graph_builder", None)
        if builder is not None and not getattr(est, "_precomputed", False):
            out.append(builder())
    return out


def _needs_spectrum(spec):
    """Whether a method of ``spec`` computes a spectrum of its graph (its class overrides
    the graph learners' ``_precompute_graph``), wrappers (selection, extra points) unwrapped:
    a spectrum the memoized graph carries for another spec (the 1.27 M-point graph loaded from
    ``--artifacts`` with SKL_KTA's 210 pairs) is no stage of this one."""
    from sskernels.experiment.plan import method_params
    from sskernels.learners.graph_base import GraphSemiSupervisedClassifier
    from sskernels.learners.registry import make_method

    for m in spec.methods:
        est = make_method(m.name, **method_params(spec, m))
        while hasattr(est, "estimator"):
            est = est.estimator
        hook = getattr(type(est), "_precompute_graph", None)
        if hook is not None and hook is not GraphSemiSupervisedClassifier._precompute_graph:
            return True
    return False


def _build_graphs(prep, jobs):
    """Build (memoized, for the run that follows) the graphs of ``prep``'s spec, their
    exact search on ``jobs`` threads as the runner's warm-up does; returns the seconds."""
    from threadpoolctl import threadpool_limits

    from sskernels.experiment.worker import graph_points
    from sskernels.graph import graphs_used
    from sskernels.graph.search import search_threads

    t0 = time.perf_counter()
    with threadpool_limits(1), search_threads(max(1, int(jobs))), graphs_used():
        for builder in _graph_builders(prep.spec):
            builder.build(graph_points(prep))  # with a data set's extra points
    return time.perf_counter() - t0


class Beside:
    """Run ``specs`` one after the other in a thread, each on worker processes of its own
    (``jobs``); ``join()`` returns ``{spec path: (records, wall seconds)}`` or raises what
    the thread raised; ``fresh[spec path]`` says whether the spec computed records."""

    def __init__(self, specs, jobs, n_splits):
        import threading

        self.specs, self.jobs, self.n_splits = specs, jobs, n_splits
        self.out, self.fresh, self.error = {}, {}, None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        if self.specs:
            self._thread.start()
        return self

    def _run(self):
        from sskernels.experiment import LocalExecutor, pending_tasks, prepare, run_spec

        try:
            with LocalExecutor(self.jobs) as workers:
                for spec in self.specs:
                    t0 = time.perf_counter()
                    prep = prepare(spec, n_splits=self.n_splits)
                    self.fresh[spec.path] = bool(pending_tasks(prep))
                    records = run_spec(
                        spec,
                        jobs=self.jobs,
                        progress=False,
                        n_splits=self.n_splits,
                        workers=workers,
                        prepared=prep,
                    )
                    self.out[spec.path] = (records, time.perf_counter() - t0)
                    print(f"{spec.name}: {self.out[spec.path][1]:.1f} s (beside)", flush=True)
        except BaseException as exc:  # re-raised by join() in the main thread
            self.error = exc

    def join(self):
        if self._thread.is_alive() or self._thread.ident is not None:
            self._thread.join()
        if self.error is not None:
            raise self.error
        return self.out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "specs",
        nargs="*",
        default=["configs/scale/secstr_100.yaml", "configs/scale/secstr_100_peer.yaml"],
    )
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--splits", type=int, default=None)
    ap.add_argument("--out", default="results/scale/secstr")
    ap.add_argument(
        "--share-graphs",
        action="store_true",
        help="keep the graphs (and spectra) between specs on the same points "
        "(secstr-extra: one 1.27 M-point graph for every label count); the "
        "stages are then reported by the spec that built them",
    )
    ap.add_argument(
        "--title",
        default="SecStr (SSL book, 83,679 points): ours beside "
        "scikit-learn's LabelSpreading, with the time of each "
        "stage and the peak memory",
    )
    ap.add_argument(
        "--artifacts",
        default=None,
        metavar="DIR",
        help="the graph store (sskernels run --artifacts): load the graphs and spectra an "
        "earlier run built on the same points, write those this run builds",
    )
    args = ap.parse_args(argv)
    # before any worker process is spawned (they read it when they import scikit-learn)
    import os

    os.environ.setdefault("SKLEARN_WORKING_MEMORY", "32")
    from sklearn import set_config

    set_config(working_memory=int(os.environ["SKLEARN_WORKING_MEMORY"]))

    import pandas as pd

    from sskernels.experiment.artifacts import open_store
    from sskernels.experiment.records import (
        atomic_write_text,
        read_graph_searches,
        read_graph_seconds,
        read_graph_store,
        write_graph_seconds,
    )
    from sskernels.experiment.worker import graph_points
    from sskernels.experiment import LocalExecutor, pending_tasks, prepare, run_spec
    from sskernels.experiment.tables import split_rows, summarize, write_splits, write_table
    from sskernels.graph import clear_cache, fingerprint
    from sskernels.spec import load_spec

    if args.artifacts:  # read by sskernels.experiment.artifacts.store_dir
        from sskernels.experiment.artifacts import ENV

        os.environ[ENV] = args.artifacts
    specs = [load_spec(path) for path in args.specs]
    ours = [s for s in specs if _graph_builders(s)]
    beside = Beside([s for s in specs if not _graph_builders(s)], args.jobs, args.splits)
    done, computed, preps, graph_stages, spectrum_before = {}, {}, {}, {}, {}
    held = {}  # per points: whether their graph held a spectrum before this table computed any
    t_all = time.perf_counter()
    with TreeMemory() as memory, LocalExecutor(args.jobs) as workers:
        for spec in ours:
            if not args.share_graphs:
                clear_cache()  # the stages below are this spec's own
            t0 = time.perf_counter()
            prep = preps[spec.path] = prepare(spec, n_splits=args.splits)
            fresh = bool(pending_tasks(prep))
            store = open_store(graph_points(prep), args.jobs) if fresh else None
            if store is not None:  # --artifacts: a graph an earlier run built, not rebuilt
                store.restore()
                store.mark()
            graph_s = _build_graphs(prep, args.jobs) if fresh else 0.0
            # a spectrum held before the table's first spec on these points ran (loaded with
            # its graph) is not this table's work; one a later spec (--share-graphs) finds
            # because its predecessor computed it is
            points = graph_points(prep)
            spectrum_before[spec.path] = held.setdefault(
                fingerprint(points), "spectrum_seconds" in _graph_stages(points)
            )
            if store is not None:  # and the graph built here, before the run's warm-up (which
                store.save()  # stores only what it builds or grows itself) finds it built
            if spec is ours[0]:
                beside.start()  # the peers: beside this spec's spectrum and fits
            records = run_spec(
                spec,
                jobs=args.jobs,
                progress=False,
                n_splits=args.splits,
                workers=workers,
                prepared=prep,
            )
            if fresh:  # the run's warm-up found the graph built: record both stages
                write_graph_seconds(
                    spec.output,
                    graph_s + (read_graph_seconds(spec.output) or 0.0),
                    read_graph_searches(spec.output),
                    artifacts=read_graph_store(spec.output),
                )
            done[spec.path] = (records, time.perf_counter() - t0)
            # this spec's stages now, while its graph is in the memo: a large graph (the
            # 1.27 M-point one with SKL_KTA's spectrum, loaded from --artifacts: 2.6 GB) is
            # evicted from the 2 GiB graph memo by the next spec's graphs
            graph_stages[spec.path] = _graph_stages(
                graph_points(prep) if args.share_graphs else None
            )
            if not _needs_spectrum(spec):
                for key in ("spectrum_seconds", "spectrum_detail"):
                    graph_stages[spec.path].pop(key, None)
            computed[spec.path] = fresh
            print(f"{spec.name}: {done[spec.path][1]:.1f} s", flush=True)
        if not ours:
            beside.start()
        done.update(beside.join())
        computed.update(beside.fresh)
    table_wall = time.perf_counter() - t_all

    frames, per_split = [], []
    for i, spec in enumerate(specs):
        records, wall = done[spec.path]
        summary = summarize(records, spec)
        write_table(summary, str(Path(spec.output) / "summary"), title=spec.name)
        stages_file = Path(spec.output) / "stages.json"
        if not computed[spec.path]:
            # nothing computed (every record resumed or restored from the archive): the
            # stages as recorded (the archive keeps stages.json), or none -- this run's
            # seconds are those of reading records, not of the spec
            stages = json.loads(stages_file.read_text()) if stages_file.exists() else {}
        else:
            stages = {}
            if spec in ours:
                stages = dict(graph_stages[spec.path])
                if args.share_graphs and spec is not ours[0]:
                    for key in ("graph_detail", "spectrum_detail"):
                        if key in stages:
                            stages[key] += " (built once, shared by the specs on these points)"
            stages.update(wall_seconds=wall)
            if stages.get("graph_seconds") is not None:
                stages["warm_seconds"] = read_graph_seconds(spec.output)
            loaded = (read_graph_store(spec.output) or {}).get("loaded") or []
            if loaded:  # --artifacts: the stages above are those of the run that built them
                if "spectrum_seconds" not in stages:
                    note = (
                        "graph loaded from the artifact store: the k-NN graph row is the "
                        "seconds of the run that built it"
                    )
                elif spectrum_before.get(spec.path):
                    note = (
                        "graph and spectrum loaded from the artifact store: the k-NN graph "
                        "and spectrum rows are the seconds of the run that built them"
                    )
                else:
                    note = (
                        "graph loaded from the artifact store (the k-NN graph row: the "
                        "seconds of the run that built it); the spectrum computed by this run"
                    )
                stages["warm_detail"] = note
                stages["wall_detail"] = note
            if i == 0:
                stages.update(
                    table_seconds=table_wall,
                    table_detail=(
                        "every spec of the table, those without graphs run beside "
                        "the first's spectrum and fits (scripts/secstr_table.py)"
                    ),
                    peak_mb=memory.peak_mb,
                    peak_detail=(
                        "the largest sum of the resident memory of this process and "
                        "all its worker processes (both specs' at once), sampled "
                        "every 0.25 s"
                    ),
                )
            atomic_write_text(stages_file, json.dumps(stages, indent=1))
        if spec not in ours and ours and "wall_seconds" in stages:
            stages["wall_detail"] = (
                f"run beside {ours[0].name}'s spectrum and fits (its "
                f"seconds share the two cores with them)"
            )
        first = records.iloc[0]
        summary = pd.concat(
            [summary, pd.DataFrame(_stage_rows(spec, first, stages))], ignore_index=True
        )
        frames.append(summary)
        per_split.append(split_rows(records, spec))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_table(pd.concat(frames, ignore_index=True), str(out), title=args.title)
    write_splits(pd.concat(per_split, ignore_index=True), str(out))
    _name_memory_section(f"{out}.md")
    print(f"wrote {out}.csv and {out}.md ({table_wall:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
