"""A content-addressed cache of finished trials.

A batch of trials is stored under the SHA-256 of everything its numbers depend
on: the trial function's name, a fingerprint of the source code of the
numeric and symbolic layers (``simulations/`` and ``bounds/``), the
configuration, the root seed and the range of trial indices.  Hence

* a rerun with the same configuration reuses every finished batch;
* an interrupted run keeps the batches it finished (each is written as soon
  as it arrives, atomically) and resumes from them;
* changing one parameter of one configuration recomputes only that
  configuration; changing the code recomputes everything.

Examples
--------
>>> import tempfile
>>> from simulations.cache import TrialCache
>>> c = TrialCache(tempfile.mkdtemp())
>>> k = c.key("mod.trial", {"m": 10}, 0, 0, 5)
>>> c.get(k) is None
True
>>> c.put(k, [{"trial": 0, "x": 1.0}]); c.get(k)
[{'trial': 0, 'x': 1.0}]
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 of the Python sources of :mod:`simulations` and :mod:`bounds` (sorted by path)."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for pkg in ("bounds", "simulations"):
        for p in sorted((root / pkg).rglob("*.py")):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


class TrialCache:
    """Pickled batches of trial rows in a directory, keyed by content."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.dir = Path(directory)

    def key(self, fn_name: str, config: Mapping[str, Any], seed: int, start: int, stop: int) -> str:
        blob = json.dumps({"fn": fn_name, "code": code_fingerprint(), "config": config,
                           "seed": int(seed), "range": [int(start), int(stop)]},
                          sort_keys=True, default=repr)
        return hashlib.sha256(blob.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.pkl"

    def get(self, key: str) -> list[dict] | None:
        p = self._path(key)
        try:
            with open(p, "rb") as fh:
                return pickle.load(fh)
        except (FileNotFoundError, EOFError, pickle.UnpicklingError):
            return None

    def put(self, key: str, rows: list[dict]) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(rows, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, p)
