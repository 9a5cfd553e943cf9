"""Record keys that miss nothing: what a record's numbers depend on is in its key, or a
check refuses the record.

* ``sskernels table`` does not trust a stored data fingerprint once the code that makes it
  (the data package: loaders, transforms) changed: it computes the fingerprint afresh and
  refuses records made on other data (an edited copy of the package, run as a user would);
* a parameter name the estimator does not take is refused whatever its value (``auto`` too);
* an import by ``importlib`` is followed or refused, and every registered class resolves to
  the module that defines it;
* the versions of hnswlib and pyamg are in the keys of the methods that use them.

A command line of this package runs in the test process (:func:`cli_helpers.run_in_process`,
with the environment a subprocess would get); one of an edited copy of the package must run
in a process of its own, which imports that copy.
"""

import shutil
import textwrap

import pytest
from cli_helpers import run_in_process

from test_spec_cli import REPO, assert_one_error_line, cli_env, sskernels

SPEC = textwrap.dedent("""\
    name: keys
    dataset: sklearn-wine
    preprocess: minmax
    graph: {{k: 6}}
    splits: {{protocol: random, n_splits: 2, n_labeled: 20, seed: 0}}
    methods: [harmonic]
    output: {output}
    """)


def test_table_refuses_records_once_the_data_code_changed(tmp_path):
    spec = tmp_path / "keys.yaml"
    spec.write_text(SPEC.format(output=tmp_path / "out"))
    env = cli_env(tmp_path)
    res = run_in_process(["run", spec, "--no-progress"], env, tmp_path)
    assert res.returncode == 0, res.stderr
    table = ["table", spec, "-o", tmp_path / "t"]
    assert run_in_process(table, env, tmp_path).returncode == 0
    # the package as it is, then with minmax scaled by 0.5 (the code changes, not the data
    # files): the stored fingerprint no longer describes what a run would see
    copy = tmp_path / "pkg"
    shutil.copytree(
        REPO / "sskernels", copy / "sskernels", ignore=shutil.ignore_patterns("__pycache__")
    )
    same = dict(env, PYTHONPATH=str(copy))
    res = sskernels(table, same, tmp_path)
    assert res.returncode == 0, res.stderr  # an identical copy: the same data code
    transforms = copy / "sskernels" / "data" / "transforms.py"
    text = transforms.read_text()
    line = "        return _minmax_sparse(X) if sparse else _minmax_dense(X)"
    assert line in text
    transforms.write_text(
        text.replace(
            line, "        return 0.5 * (_minmax_sparse(X) if sparse else _minmax_dense(X))"
        )
    )
    res = sskernels(table, same, tmp_path)
    assert res.returncode == 2
    assert_one_error_line(
        res.stderr, "keys.yaml", "made on other data", "sskernels/data/", "rerun `sskernels run"
    )
    # an edit that leaves the data as they were (a new function) recomputes the fingerprint,
    # finds it equal and renders the table
    transforms.write_text(text + "\n\ndef _unused():\n    return 1\n")
    res = sskernels(table, same, tmp_path)
    assert res.returncode == 0, res.stderr


# ---------------------------------------------------------------- no silent parameter


def test_a_misspelt_parameter_set_to_auto_is_refused_with_the_near_name(tmp_path):
    spec = tmp_path / "typo.yaml"
    for params, needles in (
        (
            "{n_components: 10, eta: 2, betta: auto}",
            ("methods[0].params.betta", "did you mean beta?"),
        ),
        ("{bogus: auto}", ("methods[0].params.bogus", "a parameter of tsk")),
        ("{n_components: 10, eta: 2, betta: 3}", ("methods[0].params.betta", "did you mean beta?")),
    ):
        spec.write_text(
            SPEC.format(output=tmp_path / "out").replace(
                "methods: [harmonic]", f"methods: [{{name: tsk, params: {params}}}]"
            )
        )
        res = run_in_process(["run", spec, "--no-progress"], cli_env(tmp_path), tmp_path)
        assert res.returncode == 2, res.stdout
        assert_one_error_line(res.stderr, "typo.yaml", *needles)
        assert not (tmp_path / "out" / "records").exists()


def test_make_method_refuses_an_unknown_name_whatever_its_value():
    from sskernels.learners import make_method

    for value in ("auto", 1.0, [1, 2]):
        with pytest.raises(TypeError, match="unexpected keyword argument 'betta'"):
            make_method("tsk", betta=value)
    assert make_method("tsk", beta="auto").param_grid["beta"]  # a real name: selected


# ---------------------------------------------------------------- closures that miss nothing


def test_every_registered_class_resolves_to_the_module_that_defines_it():
    """``from sskernels.learners import X`` must lead a closure to X's module: every
    registered class is an explicit export (the package's lazy fallback to the registry is
    invisible to the syntax trees)."""
    from sskernels import provenance as prov
    from sskernels.learners.registry import METHODS

    seen = 0
    for info in METHODS.values():
        cls_name, module = (getattr(info.factory, a, None) for a in ("cls_name", "module"))
        if cls_name is None or "." in cls_name:
            continue
        seen += 1
        assert prov._resolve("sskernels.learners", cls_name, prov.PACKAGE_DIR) == module, cls_name
    assert seen > 20


def test_every_computed_import_of_the_package_is_listed_with_why():
    """The package's own ``importlib.import_module(variable)`` calls: each module holding one
    is in DYNAMIC_IMPORTS (else its closure would be refused), and each listed one still holds
    one (no stale entry)."""
    import ast

    from sskernels import provenance as prov

    found = set()
    for path in prov.PACKAGE_DIR.rglob("*.py"):
        rel = path.relative_to(prov.PACKAGE_DIR.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts)
        for node in ast.walk(ast.parse(path.read_text())):
            arg = prov._dynamic_import(node)
            if arg is not None and not isinstance(arg, ast.Constant):
                found.add(name)
    assert found == set(prov.DYNAMIC_IMPORTS)
    assert all(len(why) > 30 for why in prov.DYNAMIC_IMPORTS.values())


# ---------------------------------------------------------------- libraries chosen by size


def test_hnswlib_and_pyamg_enter_the_keys_of_the_methods_that_use_them(monkeypatch):
    """The approximate k-NN search (hnswlib) and the CG solve that may take pyamg's
    preconditioner are chosen by the data's size: their versions enter the code key exactly
    when the method uses them on these points, and a new version moves that key only."""
    from sskernels import provenance as prov
    from sskernels.experiment import plan
    from sskernels.spec import parse_spec

    spec = parse_spec(
        {
            "name": "libs",
            "dataset": "sklearn-wine",
            "methods": [
                "harmonic",
                {"name": "harmonic", "label": "direct", "params": {"solver": "direct"}},
                "tsk",
                "svm",
            ],
        }
    )
    small, large_dense, large_sparse = (178, False), (30_000, False), (30_000, True)

    def codes(points):
        return [plan.method_code(spec, i, points=points)["code"] for i in range(4)]

    def libs(points):
        return [
            plan.optional_libraries(plan.method_run(spec, i).estimator, points) for i in range(4)
        ]

    assert libs(small) == [{}, {}, {}, {}]
    assert [sorted(x) for x in libs(large_dense)] == [
        ["hnswlib", "pyamg"],
        ["hnswlib"],
        ["hnswlib"],
        [],
    ]
    assert [sorted(x) for x in libs(large_sparse)] == [["pyamg"], [], [], []]
    assert codes(small) == [plan.method_code(spec, i)["code"] for i in range(4)]
    before = codes(large_dense)
    real = prov.library_version
    monkeypatch.setattr(prov, "library_version", lambda d: "9.9" if d == "pyamg" else real(d))
    after = codes(large_dense)
    assert [a != b for a, b in zip(before, after)] == [True, False, False, False]
    monkeypatch.setattr(prov, "library_version", lambda d: "0.0.1" if d == "hnswlib" else real(d))
    after = codes(large_dense)
    assert [a != b for a, b in zip(before, after)] == [True, True, True, False]
