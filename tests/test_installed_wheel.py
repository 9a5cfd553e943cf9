"""The package as a user gets it: a wheel installed into a fresh venv, used outside a checkout.

The wheel is built from this tree (its package files copied to a temporary folder: nothing is
written into the repository) with the dev venv's setuptools (``--no-build-isolation``, no
network), installed with ``--no-deps`` into a fresh venv whose only other entry on the
import path is the dev venv's site-packages (for numpy, scikit-learn, ...; its editable
``sskernels`` finder is a ``.pth`` file there, which Python does not process for a path
added that way), so ``sskernels`` is the wheel's.  From an empty folder holding a user's
``myssl.py``:

* ``sskernels run liu2009/table3 --with Mine=myssl:LabeledKNN --splits 2`` runs the four
  packaged UCI specs of Liu et al.'s Table 3 and the user's row is in the combined table;
* a ``--with`` naming a module that is not there is one line naming the flag, exit 2;
* every ``sskernels`` command shown in README.md, docs/getting_started.md and
  docs/benchmark_your_own.md works there (:func:`test_documented_commands_run_from_the_wheel`).

About 20-30 s in all (the wheel's build and venv once per module).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from conftest import REPO, require_data

#: a user's estimator, as docs/benchmark_your_own.md shows it
MYSSL = textwrap.dedent('''\
    """A tiny semi-supervised estimator: k-NN on the labeled points only."""
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.neighbors import KNeighborsClassifier


    class LabeledKNN(ClassifierMixin, BaseEstimator):
        def __init__(self, n_neighbors=1):
            self.n_neighbors = n_neighbors

        def fit(self, X, y):
            labeled = y != -1
            self.knn_ = KNeighborsClassifier(self.n_neighbors).fit(X[labeled], y[labeled])
            self.classes_ = self.knn_.classes_
            self.transduction_ = self.knn_.predict(X)
            return self

        def predict(self, X):
            return self.knn_.predict(X)
    ''')

LIU_T3 = ("heart", "ionosphere", "sonar", "wine")


def _setuptools_ok():
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    """``(venv folder, its bin folder)``: the wheel of this tree installed in a fresh venv."""
    if not _setuptools_ok():
        pytest.skip("building the wheel offline needs setuptools>=77 in this venv (the "
                    "'test' extra: pip install -e '.[test]')")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name if src.exists() else _mk(src) / name)
    for name in ("sskernels", "configs"):
        shutil.copytree(REPO / name, src / name, ignore=ignore)
    env = _clean_env()
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "--no-index", "-q", "-w", str(tmp / "dist"),
                            str(src)], capture_output=True, text=True, env=env, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    wheel = next((tmp / "dist").glob("sskernels-*.whl"))
    venv = tmp / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv",
                    "--without-pip", str(venv)], check=True, env=env, timeout=120)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True
                          ).stdout.strip()
    Path(site, "_dev_venv_libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install",
                              "--no-deps", "--no-index", "-q", str(wheel)],
                             capture_output=True, text=True, env=env, timeout=300)
    assert install.returncode == 0, install.stderr[-3000:]
    where = subprocess.run([str(py), "-c", "import sskernels; print(sskernels.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp, timeout=120)
    assert where.stdout.strip().startswith(site), where.stdout + where.stderr
    return venv, venv / "bin"


def _mk(path):
    path.mkdir(parents=True)
    return path


def _clean_env(**extra):
    """The environment of a user's shell: no PYTHONPATH, no virtualenv of ours."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(COLUMNS="160", NO_COLOR="1", **extra)
    return env


def _sskernels(bin_dir, args, cwd, timeout=300, **env):
    return subprocess.run([str(bin_dir / "sskernels"), *args], cwd=cwd, capture_output=True,
                          text=True, env=_clean_env(**env), timeout=timeout)


@pytest.fixture
def user_folder(tmp_path):
    """An empty folder outside the checkout with the user's ``myssl.py``."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "myssl.py").write_text(MYSSL)
    return folder


def test_wheel_runs_a_suite_with_the_users_module(wheel_venv, user_folder, tmp_path):
    mirror = require_data(*LIU_T3, who="the installed wheel's run of liu2009/table3")
    _, bin_dir = wheel_venv
    res = _sskernels(bin_dir, ["run", "liu2009/table3", "--with", "Mine=myssl:LabeledKNN",
                               "--splits", "2", "--no-progress"], user_folder,
                     SSKERNELS_DATA_MIRROR=str(mirror),
                     SSKERNELS_DATA_DIR=str(tmp_path / "cache"))
    assert res.returncode == 0, res.stderr[-3000:]
    table = (user_folder / "results" / "liu2009" / "table3.md").read_text()
    assert "Liu et al. 2009, Table 3" in table
    rows = [line for line in table.splitlines() if line.startswith("| Mine |")]
    assert rows, table
    assert len(rows[0].split("|")) - 2 == 1 + len(LIU_T3)      # a value on every data set
    assert "webkb" not in table.lower()                          # the suite, not a glob
    assert "note: suite liu2009/table3: 4 specs" in res.stderr
    for name in LIU_T3:
        assert (user_folder / "results" / "liu2009" / "runs" / name / "summary.md").is_file()


def test_wheel_with_error_names_the_flag(wheel_venv, user_folder):
    _, bin_dir = wheel_venv
    res = _sskernels(bin_dir, ["run", "liu2009/table3", "--with", "Mine=notthere:LabeledKNN"],
                     user_folder)
    assert res.returncode == 2
    lines = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert lines == [f"error: --with Mine=notthere:LabeledKNN: No module named 'notthere' "
                     f"(the current folder {user_folder} is on the import path)"], res.stderr
    assert "Traceback" not in res.stderr
