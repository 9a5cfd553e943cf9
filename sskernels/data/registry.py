"""The registry of named data sets: where each comes from, how to parse it, what it holds.

Raw files, URLs and sha256 are those documented in ``shared/datasets/*/SOURCES.md``.
To add a data set, add one :class:`Entry` below (``n``, ``d`` and ``n_classes`` are checked
against the parsed file on every load).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from ..errors import UnknownNameError
from .cache import RemoteFile
from .parsers import Parsed, parse_delimited, parse_mat, parse_sklearn


@dataclass(frozen=True)
class Entry:
    """A registered data set.

    ``parse`` is called with the local paths of ``files`` (in order) and returns a
    :class:`~sskernels.data.parsers.Parsed`; ``preprocess`` is the default preprocessing.
    """

    name: str
    n: int
    d: int
    n_classes: int
    source: str
    description: str
    parse: Callable[..., Parsed]
    files: tuple[RemoteFile, ...] = ()
    preprocess: str = "none"


# ---------------------------------------------------------------------------- UCI (uci/SOURCES.md)

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"


def _uci(name, path, url, sha256, n, d, k, description, **table) -> Entry:
    """A UCI text table; ``table`` holds :func:`parse_delimited` options."""
    return Entry(name, n, d, k, _UCI + url, description + " (UCI)",
                 partial(parse_delimited, **table), (RemoteFile(path, _UCI + url, sha256),))


_UCI_ENTRIES = [
    _uci("heart", "uci/heart.dat", "statlog/heart/heart.dat",
         "f5f3b4204c285bafadd85cb735f38b47689f2be7047feb172dcbeab648110bf9", 270, 13, 2,
         "Statlog heart disease, 13 clinical features; label 1 = absent, 2 = present"),
    _uci("ionosphere", "uci/ionosphere.data", "ionosphere/ionosphere.data",
         "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd", 351, 34, 2,
         "Ionosphere radar returns, 34 features; label g = good, b = bad", delimiter=","),
    _uci("sonar", "uci/sonar.all-data",
         "undocumented/connectionist-bench/sonar/sonar.all-data",
         "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d", 208, 60, 2,
         "Sonar mines vs rocks, 60 band energies; label M = mine, R = rock", delimiter=","),
    _uci("wine", "uci/wine.data", "wine/wine.data",
         "6be6b1203f3d51df0b553a70e57b8a723cd405683958204f96d23d7cd6aea659", 178, 13, 3,
         "Wine cultivars, 13 chemical features; label 1-3 (first column of the file)",
         delimiter=",", label=0),
    _uci("yeast", "uci/yeast.data", "yeast/yeast.data",
         "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258", 1484, 8, 10,
         "Yeast protein localization sites, 8 features (sequence name dropped); "
         "labels CYT, NUC, MIT, ME3, ME2, ME1, EXC, VAC, POX, ERL", drop=(0,)),
]

# ---------------------------------------------------------------------------- scikit-learn bundled


def _sklearn(name, loader, n, d, k, description) -> Entry:
    return Entry(name, n, d, k, f"sklearn.datasets.{loader}",
                 description + " (bundled with scikit-learn)", partial(parse_sklearn, loader))


_SKLEARN_ENTRIES = [
    _sklearn("sklearn-wine", "load_wine", 178, 13, 3, "UCI wine cultivars; labels 0-2"),
    _sklearn("sklearn-iris", "load_iris", 150, 4, 3, "Fisher's iris; labels 0-2"),
    _sklearn("sklearn-breast-cancer", "load_breast_cancer", 569, 30, 2,
             "Wisconsin diagnostic breast cancer; label 0 = malignant, 1 = benign"),
    _sklearn("sklearn-digits", "load_digits", 1797, 64, 10,
             "UCI optical digits, 8x8 images; labels 0-9"),
]

# ---------------------------------------------------------------------------- manifold/SOURCES.md

_STAR_SVM = ("https://raw.githubusercontent.com/edche/star_svm/"
             "c96d22fd79e28287ed8b400b00d6251214cdf3e9/data/")
_WEBKB = RemoteFile("manifold/WebKB.mat",
                    "https://raw.githubusercontent.com/benyangxjtu/EMKMC/"
                    "105aff81da2eb11942caa177f87039585c794e0d/WebKB.mat",
                    "1a9cd6bc1b0dac7e6290779ff3bc792bb01307ca0b80851632abfc0b5ac426d8")


def _lds(name, file, sha256, n, d, k, description) -> Entry:
    """A Chapelle LDS benchmark file (X, y, idxLabs/idxUnls) with its 10 official splits."""
    rf = RemoteFile(f"manifold/{file}", _STAR_SVM + file, sha256)
    return Entry(name, n, d, k, rf.url,
                 description + "; 10 official splits of 50 labelled points (Chapelle & Zien 2005)",
                 partial(parse_mat, x="X", y="y", splits="idxLabs"), (rf,))


def _webkb(name, views, d, description) -> Entry:
    return Entry(name, 1051, d, 2, _WEBKB.url,
                 f"WebKB course vs non-course, {description}; label 1 = course, 2 = non-course",
                 partial(parse_mat, x=views, y="Y"), (_WEBKB,))


_MANIFOLD_ENTRIES = [
    _lds("g50c", "g50c.mat", "9f0d95cb5884d817c1165861b347a428bcc255566d1e74c871bd0de58b23423f",
         550, 50, 2, "G50C, two 50-d Gaussians; labels -1/+1"),
    _lds("uspst", "uspst.mat", "53577dbe246b303b07e5a03bcd7ea93582c8c2bbfac1508040f829d24c4a4918",
         2007, 256, 10, "USPST, 16x16 USPS test digits; labels 0-9"),
    _lds("pcmac", "text1.mat", "2254d508519ae589afd132a3d00cd6b6de0d29caacc00168daa9fa1984618c09",
         1946, 7511, 2, "PCMAC (LDS 'text'), 20 Newsgroups mac vs windows, sparse unit-norm "
         "tf-idf; labels -1/+1 (which group is which is not recorded)"),
    _webkb("webkb-page", "PAGE", 3000, "page-text view (tf-idf)"),
    _webkb("webkb-link", "LINK", 1840, "inbound-link-text view (tf-idf)"),
    _webkb("webkb", ("PAGE", "LINK"), 4840, "page (3000) then link (1840) columns"),
]

REGISTRY: dict[str, Entry] = {
    e.name: e for e in _UCI_ENTRIES + _SKLEARN_ENTRIES + _MANIFOLD_ENTRIES
}


def get_entry(name: str) -> Entry:
    """The registry entry called ``name``; UnknownNameError listing the known names otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(name, REGISTRY, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise UnknownNameError(f"unknown data set {name!r}; {hint}"
                               f"known: {', '.join(REGISTRY)}") from None
