"""A spec file's YAML is bounded before any object is built: aliases expanded exponentially
("billion laughs") and deep nesting are one-line errors (exit 2), not a hang or a crash."""

import subprocess
import sys

import pytest

from sskernels.errors import SpecError
from sskernels.spec import MAX_YAML_DEPTH, MAX_YAML_NODES, load_spec

LAUGHS = (
    "\n".join(
        ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
        + [
            f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]"
            for p, c in zip("abcdefgh", "bcdefghi")
        ]
    )
    + "\nname: w\n"
)


def test_an_alias_bomb_is_refused_with_its_expanded_size(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(LAUGHS)  # 10^9 nodes once expanded, 10 lines of text
    with pytest.raises(SpecError) as err:
        load_spec(path)
    msg = str(err.value)
    assert "(file)" in msg and f"{MAX_YAML_NODES:,}" in msg and "aliases" in msg


@pytest.mark.parametrize("depth", [MAX_YAML_DEPTH + 5, 100_000])
def test_deep_nesting_is_refused(tmp_path, depth):
    path = tmp_path / "deep.yaml"
    path.write_text("name: w\nmethods: " + "[" * depth + "]" * depth + "\n")
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert "nested at most" in str(err.value) or "valid YAML" in str(err.value)


def test_a_spec_with_a_few_aliases_still_loads(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text(
        "name: ok\ndataset: sklearn-wine\ngraph: &g {k: 6}\n"
        "splits: {n_splits: 2, n_labeled: 12}\n"
        "methods: [harmonic, {name: consistency, params: &p {alpha: 0.9}},\n"
        "          {name: consistency, label: c2, params: *p}]\n"
    )
    spec = load_spec(path)
    assert [m.params for m in spec.methods][1:] == [{"alpha": 0.9}, {"alpha": 0.9}]


def test_the_cli_says_it_in_one_line_and_exits_2(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(LAUGHS)
    out = subprocess.run(
        [sys.executable, "-m", "sskernels", "run", str(path), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "aliases" in out.stderr


# ---------------------------------------------------------------------------- strict types
# (found by tests/test_fuzz_property.py: PyYAML's constructors raised ValueError, KeyError,
# IndexError, AttributeError or TypeError, and a self-containing alias built a list that
# held itself; each is now one line with its line and column)


@pytest.mark.parametrize(
    "value, needle",
    [
        ("!!set [a]", "!!set"),
        ("!!binary aGk=", "!!binary"),
        ("!!omap [{a: 1}]", "!!omap"),
        ("!!pairs [{a: 1}]", "!!pairs"),
        ("2002-12-14", "date"),
        ("!!timestamp x", "!!timestamp"),
        ("2001-02-30", "date"),
        ("!!int 0x", "!!int"),
        ("!!float ''", "!!float"),
        ("!!bool maybe", "!!bool"),
        ("!!map a", "!!map"),
        ("&x [*x]", "contains itself"),
        ('"\\U00110000"', "chr()"),
    ],
    ids=[
        "set",
        "binary",
        "omap",
        "pairs",
        "date",
        "timestamp-tag",
        "no-such-date",
        "int-tag",
        "float-tag",
        "bool-tag",
        "map-tag-on-scalar",
        "recursive-alias",
        "escape-beyond-unicode",
    ],
)
def test_values_no_field_takes_are_refused_at_their_line(tmp_path, value, needle):
    path = tmp_path / "t.yaml"
    path.write_text(f"dataset: sklearn-wine\nmethods: [harmonic]\ntable: {value}\n")
    with pytest.raises(SpecError) as err:
        load_spec(path)
    msg = str(err.value)
    assert str(path) in msg and "field '(file)'" in msg and "line 3" in msg, msg
    assert needle in msg and len(msg.splitlines()) == 1, msg


def test_a_quoted_date_is_text(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("name: '2002-12-14'\ndataset: sklearn-wine\nmethods: [harmonic]\n")
    assert load_spec(path).name == "2002-12-14"


def test_one_line_escapes_every_line_break():
    from sskernels.spec import one_line

    text = "a\nb\rc\x0bd\x0ce\x1cf\x1dg\x1eh\x85i\u2028j\u2029k\x00l\u202em ünï ✓"
    line = one_line(text)
    assert len(line.splitlines()) == 1 and line.isprintable(), line
    assert line.startswith("a\\nb\\rc") and "\\u2028" in line and line.endswith("m ünï ✓")
    assert one_line("x" * 50, limit=10) == "x" * 10 + "... (50 characters)"
