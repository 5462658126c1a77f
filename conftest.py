"""Session set-up shared by every test directory (and the doctests of the packages).

The symbolic snapshot (:mod:`bounds.snapshot`) is filled once, in parallel, before the test
workers start: otherwise every pytest-xdist worker would derive the same statements again
(about 100 s of sympy per worker on a fresh clone).  A stored evaluation is exactly what the
current code computes (the snapshot is keyed by the source of ``bounds/``), so the tests of
statuses and values read what they would have computed.

Hypothesis runs derandomized (profile ``ci``): the same examples on every run.
"""

from __future__ import annotations

import os

from hypothesis import settings as _hypothesis_settings

# property and fuzz tests draw the same examples on every run (a CI failure reproduces exactly);
# `HYPOTHESIS_PROFILE=explore pytest ...` draws fresh ones when looking for new failures
_hypothesis_settings.register_profile("ci", derandomize=True)
_hypothesis_settings.register_profile("explore", derandomize=False)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_sessionstart(session) -> None:
    if hasattr(session.config, "workerinput"):      # an xdist worker: the controller has warmed it
        return
    import time

    from bounds.snapshot import warm

    t = time.perf_counter()
    n = warm()
    if n:
        print(f"\nsymbolic snapshot: {n} statements evaluated in {time.perf_counter() - t:.0f} s")
