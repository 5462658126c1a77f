"""``python -m bounds``: see :mod:`bounds.cli`.

BLAS runs one thread unless ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` or ``MKL_NUM_THREADS``
is set (:func:`bounds._lazy.one_blas_thread`, before numpy is imported).

``eval``, ``calibrate`` and a plain ``pick`` are answered first from the numeric store
(:mod:`bounds.numeric`, :mod:`bounds.numeric_pick`; no sympy) where it holds the statement; otherwise
by :func:`bounds.cli.main`, after which the missing entry is generated.
"""

import sys

from ._lazy import one_blas_thread

one_blas_thread()

if __name__ == "__main__":
    from .numeric import fast_eval, generate_missed

    rc = fast_eval(sys.argv[1:])
    if rc is None and sys.argv[1:2] == ["pick"]:        # a plain pick on a statement (bounds.numeric_pick)
        from .numeric_pick import fast_pick

        rc = fast_pick(sys.argv[1:])
    if rc is None:
        from .cli import FAILED, main

        rc = main()
        generate_missed(rc, FAILED)     # only where the store could answer this call; the answer is out first
    sys.exit(rc)
else:
    from .cli import main  # noqa: F401 - after the thread count is set
