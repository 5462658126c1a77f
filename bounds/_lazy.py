"""Modules imported on first use, so that ``import bounds`` stays cheap.

SciPy's ``stats`` alone costs about 0.4 s to import; the papers use it only inside their
numeric checks, which the command line never runs when the symbolic snapshot is warm.

Examples
--------
>>> from bounds._lazy import lazy_module
>>> stats = lazy_module("scipy.stats")
>>> round(float(stats.norm.cdf(0.0)), 3)
0.5
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _LazyModule(ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._lazy_name = name

    def __getattr__(self, attr: str) -> Any:
        mod = importlib.import_module(self._lazy_name)
        return getattr(mod, attr)


def lazy_module(name: str) -> ModuleType:
    """A stand-in for module ``name`` that imports it on the first attribute access."""
    return _LazyModule(name)


#: the variables that set the thread count of the BLAS/OpenMP pools numpy and scipy load
BLAS_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: the same for the pools that follow the ones above (set together with them)
_OTHER_THREAD_ENV = ("VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "BLIS_NUM_THREADS")


def one_blas_thread(environ: Any = None) -> bool:
    """Give the BLAS/OpenMP pools of this process (and of the processes it starts) one thread,
    unless the user chose a count: when any of :data:`BLAS_THREAD_ENV` is set, nothing changes.

    The command lines (``python -m bounds``, ``python -m verify``) call it first thing, before
    numpy is imported: a single-process path gains nothing from BLAS threads on small matrices and
    contends with the worker processes (each limited to one thread too) or with other programs.
    When numpy is already loaded, its pools are limited now with threadpoolctl (if installed).
    Returns whether it set the variables.

    Examples
    --------
    >>> env = {"OMP_NUM_THREADS": "4"}
    >>> one_blas_thread(env), env                 # the user's choice stands
    (False, {'OMP_NUM_THREADS': '4'})
    >>> env = {}
    >>> one_blas_thread(env), env["OPENBLAS_NUM_THREADS"]
    (True, '1')
    """
    import os
    import sys

    env = os.environ if environ is None else environ
    if any(env.get(v) for v in BLAS_THREAD_ENV):
        return False
    for v in (*BLAS_THREAD_ENV, *_OTHER_THREAD_ENV):
        env.setdefault(v, "1")
    if environ is None and "numpy" in sys.modules:      # loaded already: its pools read the variables at load
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
            return True
        threadpool_limits(1)
    return True


def output_failure(exc: BaseException) -> int | None:
    """The status of a failure to write the answer, after printing the one line ``python -m bounds`` prints for it
    (both paths, :func:`bounds.cli.main` and :mod:`bounds.numeric`, call this); None when ``exc`` is no such failure.

    A closed pipe (``| head``) stops quietly with 141 (stdout then goes to the null device, so that the flush at
    exit does not fail again); an encoding error or a failed write (a full disk) prints ``error: ...`` and gives 2.

    Examples
    --------
    >>> output_failure(KeyError("x")) is None
    True
    """
    import os
    import sys

    if isinstance(exc, BrokenPipeError):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 141
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        text = where + (exc.strerror or str(exc))
    elif isinstance(exc, UnicodeError):
        text = str(exc)
    else:
        return None
    from .validation import one_line

    try:
        print(f"error: {one_line(text)}", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return 2


def emit(rc: int, out: str, err: str) -> int:
    """Write an answer given whole (``out`` to stdout, flushed, then ``err`` to stderr) and return ``rc``, or the
    status of :func:`output_failure` when stdout cannot take it (a closed stdout, ``>&-``, writes nothing, as
    ``print`` does).

    Examples
    --------
    >>> emit(0, "", "")
    0
    """
    import sys

    try:
        if out and sys.stdout is not None:
            sys.stdout.write(out)
            sys.stdout.flush()
        if err and sys.stderr is not None:
            sys.stderr.write(err)
            sys.stderr.flush()
    except (OSError, UnicodeError) as exc:
        return output_failure(exc)  # type: ignore[return-value]
    return rc


def flush_stdout() -> None:
    """Flush stdout (if open) where its failure can still be reported (:func:`output_failure`), not at exit."""
    import sys

    if sys.stdout is not None:
        sys.stdout.flush()
