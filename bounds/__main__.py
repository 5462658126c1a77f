"""``python -m bounds``: see :mod:`bounds.cli`.

BLAS runs one thread unless ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` or ``MKL_NUM_THREADS``
is set (:func:`bounds._lazy.one_blas_thread`, before numpy is imported).
"""

import sys

from ._lazy import one_blas_thread

one_blas_thread()

from .cli import main  # noqa: E402 - after the thread count is set

if __name__ == "__main__":
    sys.exit(main())
