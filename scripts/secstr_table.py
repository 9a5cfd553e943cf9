"""The SecStr scale table (``make table-secstr``, issue #13 item 4).

Runs ``configs/scale/secstr_<L>.yaml`` (the SSL-book SecStr set, 83,679 points, official
splits) like ``sskernels run`` does — same records, resume and summary — and writes
``results/scale/secstr.{csv,md}`` in the summary schema with, beside the methods' accuracy
and seconds per split, one ``seconds`` row per label-independent stage of the run (the k-NN
graph, with the search used and its recall; the spectrum, with its solver and residual) and
the run's peak resident memory (this process and its worker processes, MB).  The stage
figures are those of the run that computed the graph; a resumed run that computes nothing
keeps the ones recorded (``stages.json`` in the run's output folder).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np


def _stage_rows(spec, first, stages):
    from sskernels.experiment.tables import _row

    rows = []
    nan = np.nan
    for label, key, metric in (("stage: k-NN graph", "graph_seconds", "seconds"),
                               ("stage: spectrum", "spectrum_seconds", "seconds"),
                               ("stage: graph + spectrum (warm-up, all methods)",
                                "warm_seconds", "seconds"),
                               (f"peak memory after {spec.name} (MB)", "peak_mb", "MB"),
                               (f"wall time of {spec.name} (s)", "wall_seconds", "seconds")):
        value = stages.get(key)
        if value is None:
            continue
        row = _row(spec, first, label, metric, np.array([float(value)]), nan, nan, decimals=2)
        row["notes"] = stages.get(key.replace("seconds", "detail").replace("peak_mb",
                                                                          "peak_detail"), "")
        rows.append(row)
    return rows


def _graph_stages():
    """Seconds and details of the k-NN graph and spectrum memoized in this process."""
    from sskernels.graph import cache_items, search_summary

    out = {}
    for key, g in cache_items():
        info = dict(getattr(g, "knn_info", None) or {})
        if info.get("seconds") is not None:
            out["graph_seconds"] = out.get("graph_seconds", 0.0) + float(info["seconds"])
            # the search, its tie handling and (approximate search) its recall on a sample
            out["graph_detail"] = search_summary({"weights": key[2], **info})
        spec = g._spectrum
        if spec is not None and spec.seconds is not None:
            out["spectrum_seconds"] = out.get("spectrum_seconds", 0.0) + spec.seconds
            out["spectrum_detail"] = (f"{spec.values.size} pairs by {spec.solver}"
                                      + ("" if spec.residual is None else
                                         f", residual {spec.residual:.1e}"))
    return out


def _name_memory_section(md):
    """The summary writer heads every metric's section as an accuracy-like value on the
    unlabeled points; say what the MB rows are instead."""
    from sskernels.experiment.records import atomic_write_text

    lines = Path(md).read_text().splitlines()
    lines = ["peak resident memory (MB) of this process or of its worker processes, whichever "
             "is larger, after each spec's run (one value per run, not per split)"
             if line.startswith("MB (%) on the unlabeled points") else line for line in lines]
    atomic_write_text(md, "\n".join(lines) + "\n")


def _fresh(records, stages_file):
    """Whether this run computed records (any newer than the recorded stages)."""
    import os

    newest = max((os.path.getmtime(p) for p in
                  (Path(stages_file).parent / "records").rglob("*.json")), default=0.0)
    return newest > os.path.getmtime(stages_file)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="*", default=["configs/scale/secstr_100.yaml",
                                                 "configs/scale/secstr_100_peer.yaml"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--splits", type=int, default=None)
    ap.add_argument("--out", default="results/scale/secstr")
    args = ap.parse_args(argv)

    import pandas as pd

    from sskernels.experiment.records import atomic_write_text, read_graph_seconds
    from sskernels.experiment.runner import WorkerPool, run_spec
    from sskernels.experiment.tables import split_rows, summarize, write_splits, write_table
    from sskernels.graph import clear_cache
    from sskernels.spec import load_spec

    frames, per_split = [], []
    with WorkerPool(args.jobs) as workers:
        for path in args.specs:
            spec = load_spec(path)
            clear_cache()                        # the stages below are this spec's own
            t0 = time.perf_counter()
            records = run_spec(spec, jobs=args.jobs, progress=False, n_splits=args.splits,
                               workers=workers)
            wall = time.perf_counter() - t0
            summary = summarize(records, spec)
            write_table(summary, str(Path(spec.output) / "summary"), title=spec.name)
            stages_file = Path(spec.output) / "stages.json"
            if stages_file.exists() and not _fresh(records, stages_file):
                stages = json.loads(stages_file.read_text())     # a resumed run: as recorded
            else:
                stages = _graph_stages()
                own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
                stages.update(wall_seconds=wall, peak_mb=max(own, kids) / 1024.0,
                              peak_detail=f"largest so far of this process ({own / 1024:.0f} "
                                          f"MB) and of its workers ({kids / 1024:.0f} MB)")
                if stages.get("graph_seconds") is not None:
                    stages["warm_seconds"] = read_graph_seconds(spec.output)
                atomic_write_text(stages_file, json.dumps(stages, indent=1))
            first = records.iloc[0]
            summary = pd.concat([summary, pd.DataFrame(_stage_rows(spec, first, stages))],
                                ignore_index=True)
            frames.append(summary)
            per_split.append(split_rows(records, spec))
            print(f"{spec.name}: {wall:.1f} s", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_table(pd.concat(frames, ignore_index=True), str(out),
                title="SecStr (SSL book, 83,679 points): ours beside scikit-learn's "
                      "LabelSpreading, with the time of each stage and the peak memory")
    write_splits(pd.concat(per_split, ignore_index=True), str(out))
    _name_memory_section(f"{out}.md")
    print(f"wrote {out}.csv and {out}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
