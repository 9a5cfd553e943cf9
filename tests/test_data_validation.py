"""Bad data files give one clear error, never a silently wrong answer."""

import numpy as np
import pytest
from sklearn.datasets import load_wine

from sskernels.data import load_file
from sskernels.errors import DataError


def _write(tmp_path, text, name="d.csv", encoding="utf-8"):
    p = tmp_path / name
    p.write_text(text, encoding=encoding)
    return p


def test_single_class_label_column_is_refused(tmp_path):
    p = _write(tmp_path, "a,b,class\n1,2,x\n3,4,x\n5,6,x\n")
    with pytest.raises(DataError, match="single class"):
        load_file(p, label="class")


def test_empty_label_cell_names_line_and_column(tmp_path):
    p = _write(tmp_path, "a,b,class\n1,2,x\n3,4,\n5,6,y\n")
    with pytest.raises(DataError, match=r"line 3, column 'class': empty or missing label"):
        load_file(p, label="class")


def test_duplicate_column_names_are_refused(tmp_path):
    # a second column with the label's name would leak the label into the features
    p = _write(tmp_path, "class,b,class\n1,2,1\n0,4,0\n1,6,1\n")
    with pytest.raises(DataError, match="both named 'class'"):
        load_file(p, label="class")


def test_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    p = _write(tmp_path, "class,a,b\n1,2,3\n0,4,5\n1,6,7\n", encoding="utf-8-sig")
    d = load_file(p, label="class")
    assert d.X.shape == (3, 2)
    assert sorted(set(d.y.tolist())) == [0, 1]


@pytest.mark.parametrize("cell", ["nan", "inf", "-inf"])
def test_non_finite_cells_are_named(tmp_path, cell):
    p = _write(tmp_path, f"a,b,class\n1,2,x\n3,{cell},y\n5,6,y\n")
    with pytest.raises(DataError, match=r"line 3, column 'b': expected a finite number"):
        load_file(p, label="class", preprocess="minmax")


def test_non_finite_svmlight_entries_are_named(tmp_path):
    p = _write(tmp_path, "1 1:0.5 2:1\n2 1:nan 2:3\n1 1:2 2:1\n", name="d.svm")
    with pytest.raises(DataError, match=r"row 2, column 1"):
        load_file(p)


def test_clean_csv_still_loads(tmp_path):
    wine = load_wine()
    lines = ["f" + ",f".join(str(i) for i in range(wine.data.shape[1])) + ",class"]
    lines += [",".join(map(str, row)) + f",{c}" for row, c in zip(wine.data, wine.target)]
    p = _write(tmp_path, "\n".join(lines) + "\n")
    d = load_file(p, label="class")
    assert d.X.shape == wine.data.shape
    np.testing.assert_array_equal(d.y, wine.target)


def test_corrupt_cached_copy_is_not_listed_and_removal_is_said(tmp_path, monkeypatch, capsys):
    from sskernels.data import cache, list_datasets
    from sskernels.data.registry import get_entry

    monkeypatch.delenv("SSKERNELS_DATA_MIRROR", raising=False)
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    rf = get_entry("heart").files[0]
    target = tmp_path / "cache" / rf.path
    target.parent.mkdir(parents=True)
    target.write_text("not the heart data\n")
    assert cache.local_copy(rf) == target  # present ...
    assert cache.local_copy(rf, verify=True) is None  # ... but not the registered file
    assert not next(i for i in list_datasets() if i.name == "heart").cached
    with pytest.raises(DataError):  # no network, no mirror: cannot refetch
        cache.fetch_file(rf)
    err = capsys.readouterr().err
    assert "removed the cached" in err and "corrupt or stale" in err
    assert not target.exists()
