"""Faults of the machine are not defects: a full disk, a file-size limit, too little memory, a
folder that turns read-only between two records and a worker process killed mid-run each end
the run with one line naming the resource and where, their own exit code (sskernels.faults),
no traceback (``--debug`` shows it); the records written before stay readable, no temporary
file is left, and a rerun once the machine has room resumes to exactly the records of an
uninterrupted run.

Each fault is injected, not raced: a tmpfs of 48 KB (root only), ``RLIMIT_FSIZE`` and
``RLIMIT_AS`` set in the run's process, and a user's estimator (``faulty_ssk.Faulty``, a
1-NN on the labeled points) whose second fit turns the records folder read-only or kills its
own worker process, as the out-of-memory killer would.

A run under a resource limit (``RLIMIT_FSIZE``, ``RLIMIT_AS``) and the run whose local pool
loses a worker (its stderr holds what the workers print too) are real ``python -m sskernels``
processes.  The full disk and the read-only folder are faults of a folder, not of the
process: those runs, the reruns that resume and the reference run go through the same
command line in the test process (:func:`cli_helpers.run_in_process`, the environment a
subprocess would get), which saves an interpreter start and the package's code hashes per
run; a rerun with ``--jobs 2`` still spawns its two workers.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_in_process

from test_spec_cli import cli_env

FAULTY = '''
import multiprocessing as mp
import os
import signal
import subprocess
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import KNeighborsClassifier


def _call_number(folder):
    """This fit's number across every process of the run (a file created exclusively)."""
    i = 1
    while True:
        try:
            fd = os.open(Path(folder) / f"call_{i:04d}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            i += 1
            continue
        os.close(fd)
        return i


class Faulty(ClassifierMixin, BaseEstimator):
    """1-NN on the labeled points; with $FAULT set, its second fit injects the fault."""

    def fit(self, X, y):
        fault = os.environ.get("FAULT")
        if fault and _call_number(os.environ["FAULT_DIR"]) == 2:
            if fault == "readonly":
                target = os.environ["FAULT_TARGET"]
                if os.geteuid() == 0:        # root writes anywhere: a read-only mount
                    subprocess.run(["mount", "-o", "remount,ro", target], check=True)
                else:
                    for d in Path(target).rglob("*"):
                        if d.is_dir():
                            d.chmod(0o555)
            elif fault == "kill" and mp.parent_process() is not None:
                os.kill(os.getpid(), signal.SIGKILL)
        y = np.asarray(y)
        lab = y != -1
        self.knn_ = KNeighborsClassifier(n_neighbors=1).fit(X[lab], y[lab])
        self.classes_ = self.knn_.classes_
        self.transduction_ = self.knn_.predict(X)
        return self

    def predict(self, X):
        return self.knn_.predict(X)
'''

SPEC = """\
name: faults
dataset: sklearn-wine
preprocess: minmax
graph: {{k: 6}}
splits: {{protocol: random, n_splits: {splits}, n_labeled: 20, seed: 0}}
methods: {methods}
output: {output}
"""
METHODS = "[harmonic, consistency, {estimator: 'faulty_ssk:Faulty', label: Faulty}]"


@pytest.fixture(scope="module")
def user_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("faulty")
    (root / "faulty_ssk.py").write_text(FAULTY)
    return root


def write_spec(folder, output, splits=12, methods=METHODS):
    path = Path(folder) / "faults.yaml"
    path.write_text(SPEC.format(splits=splits, methods=methods, output=output))
    return path


def _env(tmp, user_dir, extra_env=None):
    env = cli_env(tmp)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(user_dir)])
    env.update(extra_env or {})
    return env


def run(args, tmp, user_dir, limits=None, extra_env=None):
    """``python -m sskernels ARGS`` in a process of its own, under ``limits``."""
    env = _env(tmp, user_dir, extra_env)

    def preexec():
        for what, value in (limits or {}).items():
            resource.setrlimit(what, (value, value))
        if resource.RLIMIT_FSIZE in (limits or {}):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, not a killed process

    return subprocess.run(
        [sys.executable, "-m", "sskernels", *map(str, args)],
        env=env,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=preexec if limits else None,
    )


def run_here(args, tmp, user_dir, extra_env=None):
    """``sskernels ARGS`` as :func:`run` without limits runs it, in this process."""
    return run_in_process(args, _env(tmp, user_dir, extra_env), tmp)


def records(out):
    """``{relative path: record}`` without the fit time: every record must be readable."""
    found = {}
    for p in sorted(Path(out, "records").rglob("split_*.json")):
        rec = json.loads(p.read_text())
        rec.pop("seconds")
        rec.pop("provenance")
        found[str(p.relative_to(out))] = rec
    return found


def temporaries(out):
    return sorted(p.name for p in Path(out).rglob("*.tmp"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory, user_dir):
    """The records of the uninterrupted run."""
    tmp = tmp_path_factory.mktemp("reference")
    res = run_here(["run", write_spec(tmp, tmp / "out"), "--no-progress"], tmp, user_dir)
    assert res.returncode == 0, res.stderr
    assert len(records(tmp / "out")) == 36
    return records(tmp / "out")


def one_line(stderr, code, *needles, resume=True):
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert "internal error" not in lines[0]
    assert ("rerun the same command to resume" in lines[0]) == resume


def resumed_equal(tmp, out, user_dir, reference, args=()):
    """The records left are readable and a subset of the reference; a rerun (nothing
    injected) completes them to exactly the reference, recomputing none of them."""
    before = records(out)
    assert before.items() <= reference.items()
    assert temporaries(out) == []
    res = run_here(["run", write_spec(tmp, out), "--no-progress", *args], tmp, user_dir)
    assert res.returncode == 0, res.stderr
    assert records(out) == reference
    return before


def _mount_tmpfs(path, size):
    path.mkdir()
    res = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({res.stderr.strip() or 'not root'})")
    return path


@pytest.fixture
def tmpfs(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("a tmpfs needs root (the file-size-limit test covers a full disk)")
    mnt = _mount_tmpfs(tmp_path / "small", "48k")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_is_one_line_naming_the_folder_and_a_rerun_resumes(
    tmpfs, tmp_path, user_dir, reference
):
    out = tmpfs / "out"
    res = run_here(["run", write_spec(tmp_path, out), "--no-progress"], tmp_path, user_dir)
    assert res.returncode == 3, res.stderr
    one_line(res.stderr, 3, "no space left on the device of", str(out / "records"))
    assert records(out)  # some records were written, all readable
    assert temporaries(out) == []
    moved = tmp_path / "moved"  # the folder moved to a disk with room
    shutil.copytree(out, moved)
    before = resumed_equal(tmp_path, moved, user_dir, reference)
    assert 0 < len(before) < 36
    res = run_here(
        ["--debug", "run", write_spec(tmp_path, out), "--no-progress"], tmp_path, user_dir
    )
    assert res.returncode == 3 and "Traceback" in res.stderr and "No space left" in res.stderr


def test_the_file_size_limit_is_a_full_disk_too(tmp_path, user_dir, reference):
    out = tmp_path / "out"
    res = run(
        ["run", write_spec(tmp_path, out), "--no-progress"],
        tmp_path,
        user_dir,
        limits={resource.RLIMIT_FSIZE: 1500},
    )
    assert res.returncode == 3, res.stderr
    one_line(res.stderr, 3, "the file-size limit (ulimit -f) reached", str(out))
    resumed_equal(tmp_path, out, user_dir, reference)


def test_dense_work_that_cannot_fit_is_refused_before_anything_is_computed(tmp_path, user_dir):
    """LapRLS's dense 6000 x 6000 Gram matrix and system (2 x 275 MiB at least) under an
    850 MB address-space limit: refused before the warm-up, naming the method, the data
    set, n, the estimate and the setting that avoids it."""
    rng = np.random.default_rng(0)
    y = np.arange(6000) % 2
    X = np.c_[rng.normal(3.0 * y, 1.0), rng.normal(0.0, 1.0, 6000)]
    data = tmp_path / "big.csv"
    np.savetxt(
        data,
        np.c_[X, y],
        delimiter=",",
        header="a,b,class",
        comments="",
        fmt=["%.5f", "%.5f", "%d"],
    )
    spec = tmp_path / "oom.yaml"
    spec.write_text(
        SPEC.format(splits=1, output=tmp_path / "out", methods="[laprls]")
        .replace("dataset: sklearn-wine", f"dataset: {{file: {data}, label: class}}")
        .replace("preprocess: minmax\n", "")
    )
    res = run(
        ["run", spec, "--no-progress"],
        tmp_path,
        user_dir,
        limits={resource.RLIMIT_AS: 850_000 * 1024},
    )
    assert res.returncode == 6, res.stderr
    one_line(
        res.stderr,
        6,
        "methods[0] (laprls) on big (n = 6000) needs at least 549 MB",
        "RBF Gram matrix",
        "linear-laprls",
        "nothing was computed",
        resume=False,
    )
    assert records(tmp_path / "out") == {} and temporaries(tmp_path / "out") == []
    assert not (tmp_path / "out" / "graph_seconds.json").exists()  # no warm-up ran


@pytest.mark.parametrize("where", ["warm-up", "fit"])
def test_an_allocation_that_fails_names_the_method_the_data_and_the_size(
    where, tmp_path, monkeypatch
):
    """numpy's allocation error in the warm-up (a spectrum) or in a fit: one line, exit 6,
    naming the method, the data set, n, the split where there is one and the size asked
    for; not an internal error."""
    from sskernels.experiment.runner import run_spec
    from sskernels.faults import OutOfMemory
    from sskernels.learners.propagation import HarmonicFunction
    from sskernels.spec import parse_spec

    name = "precompute" if where == "warm-up" else "fit"
    real, calls = getattr(HarmonicFunction, name), []

    def fail(self, *args, **kwargs):  # the second fit fails: one record is written
        calls.append(1)
        if where == "fit" and len(calls) != 2:
            return real(self, *args, **kwargs)
        raise MemoryError(
            "Unable to allocate 24.6 MiB for an array with shape (1797, 1797) and data type float64"
        )

    def spec(name):
        return parse_spec(
            {
                "name": "m",
                "dataset": "sklearn-wine",
                "preprocess": "minmax",
                "splits": {"n_splits": 3, "n_labeled": [20]},
                "methods": ["harmonic"],
                "output": str(tmp_path / name),
            },
            tmp_path / f"{name}.yaml",
        )

    monkeypatch.setattr(HarmonicFunction, name, fail)
    with pytest.raises(OutOfMemory) as exc:
        run_spec(spec("out"), progress=False)
    msg = str(exc.value)
    assert exc.value.exit_code == 6 and "\n" not in msg
    assert "methods[0] (harmonic) on sklearn-wine (n = 178)" in msg
    assert "an array of 24.6 MiB (shape (1797, 1797))" in msg
    assert ("split 1" in msg) == (where == "fit")
    assert "rerun the same command to resume" in msg
    assert "MemoryError" in exc.value.detail  # --debug shows where it was raised
    assert len(records(tmp_path / "out")) == (1 if where == "fit" else 0)
    monkeypatch.undo()  # memory again: the rerun resumes
    run_spec(spec("out"), progress=False, reuse=False)
    run_spec(spec("whole"), progress=False, reuse=False)
    assert records(tmp_path / "out") == records(tmp_path / "whole")


@pytest.mark.parametrize(
    "code, cls, exit_code, needle",
    [
        ("ENOSPC", "NoSpace", 3, "no space left"),
        ("EDQUOT", "NoSpace", 3, "no space left"),
        ("EFBIG", "NoSpace", 3, "file-size limit"),
        ("EACCES", "NoPermission", 4, "no permission"),
        ("EPERM", "NoPermission", 4, "no permission"),
        ("EROFS", "NoPermission", 4, "read-only"),
        ("EMFILE", "TooManyFiles", 5, "too many open files"),
        ("ENFILE", "TooManyFiles", 5, "too many open files"),
    ],
)
def test_each_errno_is_its_fault(code, cls, exit_code, needle):
    import errno

    from sskernels import faults

    fault = faults.environment_fault(
        OSError(getattr(errno, code), "x", "/o/records/f.json"), "spec.yaml"
    )
    assert type(fault).__name__ == cls and fault.exit_code == exit_code
    assert str(fault).startswith("spec.yaml: ") and needle in str(fault)
    assert "/o/records" in str(fault) and faults.RESUME in str(fault)
    assert faults.environment_fault(OSError(errno.ENOENT, "x")) is None  # not a limit


def test_a_folder_turned_read_only_between_two_records(tmp_path, user_dir, reference):
    if os.geteuid() == 0:
        target = _mount_tmpfs(tmp_path / "ro", "16m")
    else:
        target = tmp_path / "ro"
        target.mkdir()
    out = target / "out"
    try:
        # the Faulty row alone first, so that its second fit comes after one record of it
        res = run_here(
            ["run", write_spec(tmp_path, out), "--no-progress"],
            tmp_path,
            user_dir,
            extra_env={
                "FAULT": "readonly",
                "FAULT_DIR": str(_calls(tmp_path)),
                "FAULT_TARGET": str(target),
            },
        )
        assert res.returncode == 4, res.stderr
        one_line(
            res.stderr,
            4,
            "read-only file system" if os.geteuid() == 0 else "no permission to write",
            str(out / "records"),
        )
        left = records(out)
        assert left.items() <= reference.items() and len(left) >= 1
        if os.geteuid() == 0:
            subprocess.run(["mount", "-o", "remount,rw", str(target)], check=True)
        else:
            for d in target.rglob("*"):
                if d.is_dir():
                    d.chmod(0o755)
        resumed_equal(tmp_path, out, user_dir, reference)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", "-l", str(target)], check=False)


def _calls(tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir(exist_ok=True)
    return calls


def test_a_killed_worker_of_the_local_pool_is_one_line_and_a_rerun_resumes(
    tmp_path, user_dir, reference
):
    out = tmp_path / "out"
    res = run(
        ["run", write_spec(tmp_path, out), "--no-progress", "--jobs", "2"],
        tmp_path,
        user_dir,
        extra_env={"FAULT": "kill", "FAULT_DIR": str(_calls(tmp_path))},
    )
    assert res.returncode == 7, res.stderr
    one_line(
        res.stderr, 7, "a worker process of the local pool", "killed by SIGKILL", "fewer --jobs"
    )
    resumed_equal(tmp_path, out, user_dir, reference, args=("--jobs", "2"))
