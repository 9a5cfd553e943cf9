"""Wang et al. 2015, Fig. 3 script (scripts/wang2015_alignment.py): each base vector's alignment
on the unlabeled points checked against the definition, computed here from scratch with numpy
on the n_u x n_u matrices (centered Frobenius alignment), on real data (BCI; a COIL subset for
c > 2, where the class-mean and the ideal-kernel scores differ)."""

import csv
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from sskernels.data import load_dataset


def _centered_alignment(K, T):
    n = K.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    Kc, Tc = H @ K @ H, H @ T @ H
    return np.sum(Kc * Tc) / (np.linalg.norm(Kc) * np.linalg.norm(Tc))


def _reference(X, y_enc, labeled, k):
    """Per-vector scores from the definitions: b0, K = exp(-b0 d^2), its top-k eigenvectors,
    those of D^-1/2 K D^-1/2, the label-aware D^-1 K_ul Y; alignments on the unlabeled block."""
    n, c = X.shape[0], int(y_enc.max()) + 1
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    b = 1.0 / (D2.sum() / (n * (n - 1)))
    K = np.exp(-b * D2)
    d = K.sum(axis=1)
    unl = np.setdiff1d(np.arange(n), labeled)
    Y = (y_enc[labeled][:, None] == np.arange(c)).astype(float)
    KuL = K[np.ix_(unl, labeled)]
    vectors = {"label-aware": KuL @ Y / KuL.sum(axis=1, keepdims=True)}
    for basis, M in (("kernel", K), ("laplacian", K / np.sqrt(np.outer(d, d)))):
        w, V = np.linalg.eigh(M)
        vectors[basis] = V[:, ::-1][:, :k][unl]
    yu = y_enc[unl]
    targets = [np.outer(yu == j, yu == j).astype(float) for j in range(c)]
    ideal = np.where(yu[:, None] == yu[None, :], 1.0, -1.0 / (c - 1))
    out = {}
    for basis, V in vectors.items():
        out[basis] = (
            np.array(
                [np.mean([_centered_alignment(np.outer(v, v), T) for T in targets]) for v in V.T]
            ),
            np.array([_centered_alignment(np.outer(v, v), ideal) for v in V.T]),
        )
    return b, out


@pytest.fixture(scope="module")
def mod():
    """The script's functions (run as a module, not as __main__: nothing is written)."""
    path = Path(__file__).resolve().parents[1] / "scripts" / "wang2015_alignment.py"
    return SimpleNamespace(**runpy.run_path(str(path)))


def _coil_subset():
    ds = load_dataset("coil", preprocess="none")
    y = np.unique(ds.y, return_inverse=True)[1].ravel()
    keep = np.concatenate([np.flatnonzero(y == j)[:50] for j in range(6)])
    return ds.X[keep], ds.y[keep]


@pytest.mark.datasets("bci", "coil")
@pytest.mark.parametrize("case", ["bci", "coil-subset"])
def test_alignments_match_the_definition(data_mirror, mod, case):
    if case == "bci":
        ds = load_dataset("bci", preprocess="none")
        X, y, per_class = ds.X, ds.y, 20
    else:
        (X, y), per_class = _coil_subset(), 10
    X = np.asarray(X, dtype=float)
    r = mod.alignment_experiment(X, y, per_class=per_class, n_splits=2, fraction=0.05)
    y_enc = np.unique(y, return_inverse=True)[1].ravel()
    c, k = r["n_classes"], int(np.ceil(0.05 * X.shape[0]))
    assert r["n_labeled"] == per_class * c
    for s, labeled in enumerate(r["splits"]):
        np.testing.assert_array_equal(np.bincount(y_enc[labeled], minlength=c), [per_class] * c)
        b, ref = _reference(X, y_enc, labeled, k)
        assert r["b"] == pytest.approx(b, rel=1e-10)
        for basis, (mean_ref, ideal_ref) in ref.items():
            got, got_ideal = r["alignment"][basis][s], r["ideal_alignment"][basis][s]
            assert got.shape == (c if basis == "label-aware" else k,)
            np.testing.assert_allclose(got, mean_ref, rtol=1e-6, atol=1e-10, err_msg=basis)
            np.testing.assert_allclose(got_ideal, ideal_ref, rtol=1e-6, atol=1e-10, err_msg=basis)
            assert np.all((got >= 0) & (got <= 1)) and np.all((got_ideal >= 0) & (got_ideal <= 1))
    # the two splits differ, and so do their label-aware scores
    assert not np.array_equal(r["splits"][0], r["splits"][1])
    assert not np.allclose(r["alignment"]["label-aware"][0], r["alignment"]["label-aware"][1])
    if c == 2:  # the mean over the two classes is the alignment with yy^T
        for basis in mod.BASES:
            np.testing.assert_allclose(
                r["alignment"][basis], r["ideal_alignment"][basis], rtol=1e-9, atol=1e-12
            )


@pytest.mark.datasets("bci")
def test_csv_has_the_plotted_numbers(data_mirror, mod, tmp_path):
    ds = load_dataset("bci", preprocess="none")
    r = mod.alignment_experiment(ds.X, ds.y, per_class=20, n_splits=3, fraction=0.05)
    path = tmp_path / "fig3.csv"
    mod.write_csv(path, mod.csv_rows("bci", r))
    with path.open() as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == (
        "dataset",
        "basis",
        "index",
        "eigenvalue",
        "alignment_mean",
        "alignment_std",
        "ideal_alignment_mean",
        "ideal_alignment_std",
        "n",
        "n_labeled",
        "n_classes",
        "b",
        "n_splits",
    )
    assert len(rows) == 2 + 2 * 20
    for basis in mod.BASES:
        sub = [row for row in rows if row["basis"] == basis]
        A = r["alignment"][basis]
        assert [int(row["index"]) for row in sub] == list(range(1, A.shape[1] + 1))
        np.testing.assert_allclose(
            [float(row["alignment_mean"]) for row in sub], A.mean(0), atol=1e-6
        )
        np.testing.assert_allclose(
            [float(row["alignment_std"]) for row in sub], A.std(0), atol=1e-6
        )
        assert all(row["n_splits"] == "3" and row["n_labeled"] == "40" for row in sub)
        ev = [row["eigenvalue"] for row in sub]
        if basis == "label-aware":
            assert set(ev) == {""}
        else:  # largest first
            vals = np.array(ev, dtype=float)
            assert np.all(np.diff(vals) <= 0) and vals[0] > 0
