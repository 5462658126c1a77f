"""``python -m verify``: see :mod:`verify.cli`.

The main process runs BLAS on one thread, like its workers, unless ``OMP_NUM_THREADS``,
``OPENBLAS_NUM_THREADS`` or ``MKL_NUM_THREADS`` is set (:func:`bounds._lazy.one_blas_thread`,
before numpy is imported; the worker processes inherit the variables).
"""

import sys

from bounds._lazy import one_blas_thread

one_blas_thread()

from .cli import main  # noqa: E402 - after the thread count is set

if __name__ == "__main__":
    sys.exit(main())
