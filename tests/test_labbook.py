"""The lab book's generated tables equal the CSVs they quote (paper.labbook)."""

import pandas as pd
import pytest

from paper import labbook


def _block(text, name):
    m = next(m for m in labbook.MARK.finditer(text) if m.group("name") == name)
    return m.group("body")


def test_the_committed_lab_book_quotes_its_csvs():
    text = labbook.LABBOOK.read_text()
    names = [m.group("name") for m in labbook.MARK.finditer(text)]
    assert {"liu2009-table3", "wang2015-table1", "wang2015-table2", "wang2015-table3"} <= set(names)
    assert labbook.stale(text) == [], "run `python -m paper.labbook` (make labbook)"


def test_liu_table3_section_equals_table3_csv():
    """Independently of the renderer: every accuracy cell of table3.csv, in its method's row."""
    body = _block(labbook.LABBOOK.read_text(), "liu2009-table3")
    rows = {line.split(" | ")[0].lstrip("| "): line for line in body.splitlines()[2:]}
    df = pd.read_csv(labbook.ROOT / "results" / "liu2009" / "table3.csv")
    acc = df[df["metric"] == "accuracy"]
    assert set(rows) == set(acc["method"])
    for r in acc.itertuples():
        assert f"{r.mean:.2f} ± {r.std:.2f}" in rows[r.method], (r.method, r.dataset)


def test_a_number_edited_by_hand_is_found():
    text = labbook.LABBOOK.read_text()
    body = _block(text, "wang2015-table2")
    line = body.splitlines()[2]                     # the first data set's row
    cell = line.split(" | ")[1]
    number = cell.split(" / ")[0].rstrip("✓")
    edited = line.replace(number, f"{float(number) + 1:.2f}", 1)
    assert edited != line
    bad = text.replace(line, edited, 1)
    assert labbook.stale(bad) == ["wang2015-table2"]
    assert labbook.stale(labbook.render(bad)) == []


def test_a_block_without_a_renderer_is_refused():
    text = "<!-- generated: nope (x) -->\n| a |\n<!-- end generated: nope -->\n"
    with pytest.raises(KeyError, match="nope"):
        labbook.render(text)


def test_check_exits_1_on_a_stale_block(tmp_path, capsys):
    text = labbook.LABBOOK.read_text()
    body = _block(text, "liu2009-table3")
    path = tmp_path / "README.md"
    path.write_text(text.replace(body, body.replace("73.62", "73.26", 1), 1))
    assert labbook.main(["--check", str(path)]) == 1
    assert "liu2009-table3" in capsys.readouterr().err
    assert labbook.main([str(path)]) == 0 and labbook.main(["--check", str(path)]) == 0


def test_the_module_examples_run():
    import doctest

    assert doctest.testmod(labbook).failed == 0
