"""Ctrl-C during a run: one line, exit 130, no worker tracebacks, and the rerun resumes."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SPEC = """dataset: sklearn-wine
preprocess: minmax
splits: {n_splits: 200, n_labeled: 20}
methods: [lapsvm]
output: OUT
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_says_what_is_kept_and_exits_130(tmp_path, jobs, sigint_not_ignored):
    spec = tmp_path / "slow.yaml"
    out = tmp_path / "out"
    spec.write_text(SPEC.replace("OUT", str(out)))
    exe = Path(sys.executable).with_name("sskernels")
    proc = subprocess.Popen([str(exe), "run", str(spec), "--jobs", str(jobs), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    records = out / "records" / "lapsvm" / "20_labeled"
    deadline = time.time() + 120
    # a finished record, not the temporary file of one being written (atomic write): the
    # test failed now and then when the kill came between the two
    while time.time() < deadline and not (records.is_dir() and any(records.glob("split_*.json"))):
        time.sleep(0.2)
    assert records.is_dir(), "no record written within 120 s"
    os.killpg(proc.pid, signal.SIGINT)          # a terminal's Ctrl-C reaches the whole group
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines == ["interrupted; the finished splits are recorded: rerun the same command to "
                     "resume"], stderr
    assert "Traceback" not in stderr and "SpawnPoolWorker" not in stderr
    assert len(list(records.glob("split_*.json"))) >= 1
