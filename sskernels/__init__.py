"""sskernels: semi-supervised kernel learning toolkit."""

__version__ = "0.1.0"
