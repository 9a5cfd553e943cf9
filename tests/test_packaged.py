"""The paper specs ship with the package: pyproject's package list, every packaged spec
loading, and a wheel built from the repository holding them and running from outside it.

The wheel test builds a wheel (about 5 s: setuptools from the package index into pip's
isolated build environment), installs it into a folder and runs it from a directory outside
the repository; it skips, saying why, where no wheel can be built (no index reachable).
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from sskernels.spec import load_spec
from sskernels.spec_packaged import packaged_output_base, packaged_root, packaged_specs

REPO = Path(__file__).resolve().parents[1]


def pyproject():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip(
            "tomli", reason="reading pyproject.toml needs tomli before Python 3.11"
        )
    return tomllib.loads((REPO / "pyproject.toml").read_text())


CONFIGS = sorted(
    p.relative_to(REPO / "configs").as_posix() for p in (REPO / "configs").rglob("*.yaml")
)


def test_pyproject_lists_every_package_and_maps_the_configs():
    tool = pyproject()["tool"]["setuptools"]
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "sskernels").rglob("__init__.py")
    }
    folders = {
        f"sskernels.configs.{d.name}"
        for d in (REPO / "configs").iterdir()
        if d.is_dir() and d.name.isidentifier()
    }
    # data-only folders (no __init__.py) listed as packages so that setuptools does not warn
    data_folders = {"sskernels.report.templates"}
    assert set(tool["packages"]) == on_disk | {"sskernels.configs"} | folders | data_folders
    assert tool["package-dir"] == {"sskernels.configs": "configs"}
    assert set(tool["package-data"]["sskernels.configs"]) == {"*.yaml", "**/*.yaml"}


def test_the_packaged_specs_are_the_repositorys_configs():
    assert packaged_root().resolve() == (REPO / "configs").resolve()
    assert packaged_specs() == CONFIGS and len(CONFIGS) > 100


@pytest.mark.parametrize("name", CONFIGS)
def test_every_packaged_spec_loads_with_its_output_under_the_current_directory(
    name, tmp_path, monkeypatch
):
    """Every paper spec passes the spec's checks (its paper rows included) and, taken as a
    packaged spec, writes under the current directory where the repository's copy writes
    under the repository (``configs/X/../../results/...`` -> ``./results/...``)."""
    monkeypatch.chdir(tmp_path)
    found = packaged_root() / name
    spec = load_spec(found, output_base=packaged_output_base(found))
    in_repo = Path(os.path.normpath(load_spec(REPO / "configs" / name).output))
    assert Path(spec.output) == tmp_path / in_repo.relative_to(REPO)
    for reading in spec.readings:
        load_spec(found, output_base=packaged_output_base(found), reading=reading)


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory):
    """A wheel built from a copy of the repository's package files, installed into
    ``site`` (no dependencies: those of the running interpreter serve)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "sskernels", src / "sskernels", ignore=ignore)
    shutil.copytree(REPO / "configs", src / "configs", ignore=ignore)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if built.returncode != 0:
        reason = (built.stderr.strip().splitlines() or ["unknown"])[-1]
        pytest.skip(
            f"cannot build a wheel here (no package index for the build environment?): {reason}"
        )
    wheel = next((tmp / "dist").glob("sskernels-*.whl"))
    res = subprocess.run(
        [*pip, "install", "-q", "--no-deps", "--target", str(tmp / "site"), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    outside = tmp / "outside"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SSKERNELS_")}
    env["PYTHONPATH"] = str(tmp / "site")
    return {"wheel": wheel, "site": tmp / "site", "cwd": outside, "env": env}


def test_the_wheel_holds_every_packaged_spec(installed_wheel):
    with zipfile.ZipFile(installed_wheel["wheel"]) as z:
        names = z.namelist()
    shipped = sorted(
        n[len("sskernels/configs/") :] for n in names if n.startswith("sskernels/configs/")
    )
    assert shipped == CONFIGS
    assert "sskernels/paper_tables/liu2009_table3_uci_transductive_accuracy.csv" in names
    assert "sskernels/spec_packaged.py" in names and "sskernels/user_methods.py" in names


def test_the_installed_wheel_runs_from_outside_the_repository(installed_wheel):
    w = installed_wheel
    probe = (
        "import sskernels, sskernels.spec_packaged as s; "
        "print(sskernels.__file__); print(s.packaged_root()); print(len(s.packaged_specs()))"
    )
    res = subprocess.run(
        [sys.executable, "-c", probe],
        env=w["env"],
        cwd=w["cwd"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    module, root, n = res.stdout.split()
    assert Path(module).is_relative_to(w["site"]) and Path(root) == w["site"] / "sskernels/configs"
    assert int(n) == len(CONFIGS)
    res = subprocess.run(
        [sys.executable, "-m", "sskernels", "--version"],
        env=w["env"],
        cwd=w["cwd"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    version = pyproject()["project"]["version"]
    assert (res.returncode, res.stdout) == (0, f"sskernels {version}\n"), res.stderr
    res = subprocess.run(
        [sys.executable, "-m", "sskernels", "get-configs", "--list"],
        env=w["env"],
        cwd=w["cwd"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0 and res.stdout.split() == CONFIGS, res.stderr
