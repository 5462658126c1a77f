"""Checksummed files of the symbolic snapshot and of sympy.simplify's stored outcomes.

The byte format shared by :mod:`bounds.snapshot`, :mod:`bounds.checks` (stored simplifications) and
the trial cache of :mod:`simulations.cache` (which adds its own MAC): a header line
``magic + sha256(key NUL payload) hex + newline``, then the payload.  Imports nothing of the
project, so that :mod:`bounds.checks` can write stored outcomes without importing the snapshot.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

#: first bytes of a stored file: ``MAGIC + sha256(key NUL payload) hex + newline``, then the pickle
MAGIC = b"dp-erm-verify snapshot v2 sha256="
_DIGEST_LEN = 64


def checksum(key: str, payload: bytes) -> str:
    """SHA-256 (hex) of a stored file: its key, a NUL byte, its payload."""
    return hashlib.sha256(key.encode() + b"\0" + payload).hexdigest()


def pack(key: str, payload: bytes, magic: bytes = MAGIC) -> bytes:
    """The bytes of a file: the header line ``magic`` + checksum of ``key`` and ``payload``, then it.

    Also the format of the trial cache (:mod:`simulations.cache`, with its own ``magic``).

    Examples
    --------
    >>> unpack("k", pack("k", b"data"))
    (b'data', '')
    >>> unpack("other", pack("k", b"data"))[1]
    'checksum mismatch (edited, truncated or moved)'
    """
    return magic + checksum(key, payload).encode() + b"\n" + payload


def unpack(key: str, data: bytes, magic: bytes = MAGIC) -> tuple[bytes | None, str]:
    """``(payload, "")`` when ``data`` is an intact file of ``key``, else ``(None, reason)``."""
    if not data.startswith(magic):
        return None, "no checksum header (older format, or not an entry)" if data else "empty file"
    head = len(magic)
    digest, nl = data[head:head + _DIGEST_LEN], data[head + _DIGEST_LEN:head + _DIGEST_LEN + 1]
    if nl != b"\n":
        return None, "truncated header"
    payload = data[head + _DIGEST_LEN + 1:]
    if digest.decode("ascii", "replace") != checksum(key, payload):
        return None, "checksum mismatch (edited, truncated or moved)"
    return payload, ""


def read_entry(path: Path, key: str, magic: bytes = MAGIC, check: Any = None) -> tuple[bool, Any, str]:
    """Read a checksummed pickle written with :func:`pack`: ``(True, object, "")`` when intact,
    ``(False, None, "")`` when the file is missing, ``(False, None, reason)`` when it must be
    rejected (checksum, unpickling, or the predicate ``check`` on the object fails).  Shared by the
    snapshot and the trial cache (:mod:`simulations.cache`), which keep their own reject logs.
    """
    try:
        data = Path(path).read_bytes()
    except OSError:
        return False, None, ""
    payload, why = unpack(key, data, magic)
    if payload is not None:
        try:
            obj = pickle.loads(payload)
        except Exception as exc:  # noqa: BLE001 - intact bytes that no longer unpickle (a moved class)
            why = f"unreadable pickle ({type(exc).__name__})"
        else:
            if check is None or check(obj):
                return True, obj, ""
            why = f"unexpected content ({type(obj).__name__})"
    return False, None, why


def _atomic_write(path: Path, data: bytes) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True
