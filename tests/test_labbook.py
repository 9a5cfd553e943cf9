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
    line = body.splitlines()[2]  # the first data set's row
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


def test_every_table_of_the_lab_book_is_generated_checked_or_marked():
    text = labbook.LABBOOK.read_text()
    assert labbook.unchecked_tables(text) == [], "render it (paper.labbook.BLOCKS) or name its CSV"


def test_every_number_of_a_checked_block_is_in_its_files():
    assert labbook.unsourced_numbers(labbook.LABBOOK.read_text()) == []


def test_a_checked_number_edited_by_hand_is_found(tmp_path):
    text = labbook.LABBOOK.read_text()
    m = next(m for m in labbook.CHECKED.finditer(text) if "table3_bound" in m.group("files"))
    block = m.group("block")
    number = labbook.NUMBER.findall(block)[0]
    edited = block.replace(number, f"{float(number) + 0.37:.{len(number.split('.')[1])}f}", 1)
    bad = text.replace(block, edited, 1)
    assert [n for _, n, _ in labbook.unsourced_numbers(bad)] == [
        f"{float(number) + 0.37:.{len(number.split('.')[1])}f}"
    ]
    path = tmp_path / "README.md"
    path.write_text(bad)
    assert labbook.main(["--check", str(path)]) == 1


def test_a_table_without_a_source_is_found():
    text = labbook.LABBOOK.read_text() + "\n\n| a | b |\n|---|---|\n| x | 1.5 |\n"
    assert labbook.unchecked_tables(text) == ["| a | b |"]
    marked = labbook.LABBOOK.read_text() + "\n\n<!-- measured: once -->\n| a | b |\n|---|---|\n"
    assert labbook.unchecked_tables(marked) == []


def test_the_bound_block_quotes_every_bound_of_its_csv():
    """Independently of the renderer: each row's paper / ours / bound triple of the CSV."""
    body = _block(labbook.LABBOOK.read_text(), "liu2009-bound")
    rows = {line.split(" | ")[0].lstrip("| "): line for line in body.splitlines()[2:]}
    df = pd.read_csv(labbook.ROOT / "results" / "liu2009" / "table3_bound.csv")
    for r in df.itertuples():
        paper = "–" if pd.isna(r.paper_mean) else f"{r.paper_mean:.2f}"
        assert f"{paper} / {r.ours:.2f} / **{r.bound:.2f}**" in rows[r.method], (
            r.method,
            r.dataset,
        )


def test_the_extra_points_block_quotes_its_csvs():
    body = _block(labbook.LABBOOK.read_text(), "secstr-extra")
    df = pd.read_csv(labbook.ROOT / "results" / "scale" / "secstr_extra.csv")
    acc = df[df["metric"] == "accuracy"]
    for r in acc.itertuples():
        assert f"{r.mean:.2f} ± {r.std:.2f}" in body, (r.method, r.dataset)


def test_seconds_ranges_reads_the_fastest_and_slowest_rows(tmp_path, monkeypatch):
    """A time table's ``mean`` (graph rows left out unless named) and another table's
    ``seconds`` column: the fastest and slowest value of the pooled rows, and where the
    slowest is."""
    (tmp_path / "results").mkdir()
    pd.DataFrame(
        {
            "dataset": ["a", "b", "a", "b"],
            "setting": ["10 labeled", "100 labeled", "10 labeled", "10 labeled"],
            "method": ["m", "m", "n", "graph (Lap)"],
            "metric": ["seconds"] * 4,
            "mean": [0.5, 2.25, 0.125, 9.0],
        }
    ).to_csv(tmp_path / "results" / "t_time.csv", index=False)
    pd.DataFrame(
        {
            "dataset": ["a", "a", "b"],
            "setting": ["x"] * 3,
            "method": ["m", "m", "m"],
            "metric": ["accuracy", "alignment", "accuracy"],
            "seconds": [0.75, 0.75, 0.0625],
        }
    ).to_csv(tmp_path / "results" / "t.csv", index=False)
    monkeypatch.setattr(labbook, "ROOT", tmp_path)
    table = labbook.seconds_ranges(
        [
            ("all", "t_time.csv", None, None),
            ("m, 10 labeled", "t_time.csv", ["m"], lambda s: s.startswith("10 ")),
            ("graph", "t_time.csv", ["graph (Lap)"], None),
            ("other", "t.csv", ["m"], None),
        ]
    ).splitlines()
    assert table[2] == "| all | 0.125–2.25 s (b, m) |"
    assert table[3] == "| m, 10 labeled | 0.5–0.5 s (a, m) |"
    assert table[4] == "| graph | 9–9 s (b, graph (Lap)) |"
    assert table[5] == "| other | 0.0625–0.75 s (a, m) |"
