"""``python -m sskernels.cli``: the console script (:func:`sskernels.cli.main`)."""

from sskernels.cli import main

if __name__ == "__main__":
    main()
