"""Synthetic sets (seeded, no download): registry entries (:mod:`sskernels.data.registry`)."""

from __future__ import annotations

from ..entry import Entry
from ..parsers import Parsed
from ..synthetic import SYNTHETIC, load_synthetic


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
