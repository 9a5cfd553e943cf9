"""``python -m hold_run ARGS``: the ``sskernels`` CLI with the test method ``hold-harmonic``
and the kill point of :mod:`hold_methods` (this folder on ``PYTHONPATH``).

A worker process spawned by the run (local ``--jobs``, Dask's local cluster) imports this
module as ``__mp_main__``: the import below registers the method there too, and only the
run's main process is armed and runs the CLI.  A worker may be held in that import (before
its pool's initializer runs) by :func:`hold_methods.hold_worker_start`.
"""

import hold_methods

hold_methods.register()

if __name__ == "__main__":
    from sskernels.cli import main

    hold_methods.arm_main_process()
    main()
elif __name__ == "__mp_main__":
    hold_methods.hold_worker_start()
