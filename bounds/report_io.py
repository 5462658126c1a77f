"""Reading a generated report's ``summary.json`` from the symbolic layer, checked.

The symbolic layer imports nothing of :mod:`verify`: the verdicts printed by ``python -m bounds``
(``papers``, ``list``, ``show``, ``eval``, ``pick``, ``calibrate``) and by :mod:`bounds.pick`
combine the symbolic checks with the empirical and audit rows of the report ``python -m verify``
wrote.  This module is the one reader of that file, for :func:`bounds.cli.report_evidence` and
:func:`bounds.pick.report_rows` alike:

* a missing report is no error, but it is said (:attr:`Summary.note`: the verdicts then rest on
  the symbolic checks alone);
* anything else that is not the file the toolkit writes is a :class:`ReportError` (a
  :class:`ValueError`, one line naming the file and what is wrong): a FIFO, device or directory
  in its place (refused from ``fstat`` of a non-blocking descriptor, never read), an unreadable
  or oversized file, text that is not UTF-8 JSON, and JSON of another shape (a list, ``evidence``
  that is not a list of rows, a row whose fields have the wrong types or words outside the
  evidence vocabulary);
* a report written by another version of the toolkit (``provenance.bounds_version``, which
  ``verify/report.py`` records from :func:`toolkit_version`) is refused, naming both versions,
  unless ``any_version`` (``--reports-any-version``): then :attr:`Summary.foreign` is true and
  every verdict taken from it names its version (:attr:`Summary.tag`).

Examples
--------
>>> import json, tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp())
>>> read_summary(d).note  # doctest: +ELLIPSIS
'no report found at .../summary.json: verdicts rest on the symbolic checks alone'
>>> _ = (d / "summary.json").write_text("[]")
>>> read_summary(d)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
bounds.report_io.ReportError: report .../summary.json is not a summary written by dp-erm-verify: its top level is an array, not an object
>>> _ = (d / "summary.json").write_text(json.dumps({"provenance": {"bounds_version": toolkit_version()},
...                                                  "evidence": []}))
>>> s = read_summary(d)
>>> s.found, s.foreign, s.rows, s.note
(True, False, (), '')
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import math
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

#: the file name of the summary in a report directory
SUMMARY = "summary.json"
#: the distribution whose version a report records
DISTRIBUTION = "dp-erm-verify"
#: largest summary read (bytes): a larger file is refused, not loaded into memory
MAX_BYTES = 512 * 2**20
#: the report directory of the checkout, read when none is given
DEFAULT_DIR = Path(__file__).resolve().parents[1] / "reports"


class ReportError(ValueError):
    """A report that cannot be used: one line naming the file and what is wrong with it."""


@functools.lru_cache(maxsize=1)
def toolkit_version() -> str:
    """The version of this toolkit: the installed distribution's, else the checkout's ``pyproject.toml``.

    Returns ``"unknown"`` when neither says (a copy of the sources outside any checkout).

    Examples
    --------
    >>> import re
    >>> bool(re.fullmatch(r"[0-9A-Za-z.+!_-]+", toolkit_version()))
    True
    """
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    return _pyproject_version(Path(__file__).resolve().parents[1] / "pyproject.toml") or "unknown"


def _pyproject_version(path: Path) -> str | None:
    """``version`` of the ``[project]`` table of ``path`` (None when absent, unreadable or of another name)."""
    try:
        import tomllib

        with open(path, "rb") as fh:
            proj = tomllib.load(fh).get("project", {})
    except (OSError, ValueError):
        return None
    v = proj.get("version") if isinstance(proj, dict) and proj.get("name") == DISTRIBUTION else None
    return v if isinstance(v, str) and v else None


@dataclass(frozen=True)
class Summary:
    """The evidence of one report, as read by :func:`read_summary`.

    Attributes
    ----------
    path : Path
        The ``summary.json`` looked for.
    found : bool
        Whether it exists (False: the verdicts rest on the symbolic checks alone).
    rows : tuple of Result
        Its empirical and audit rows (symbolic rows are recomputed, never read).
    version : str or None
        The toolkit version that wrote it (None: not recorded, or no report).
    generated : str
        When it was generated ('' when not recorded).
    current : str
        This toolkit's version (:func:`toolkit_version`).
    """

    path: Path
    found: bool
    rows: tuple = ()
    version: str | None = None
    generated: str = ""
    current: str = ""

    @property
    def foreign(self) -> bool:
        """Whether the report was written by another (or an unrecorded) version of the toolkit."""
        return self.found and self.version != self.current

    @property
    def version_text(self) -> str:
        return self.version if self.version else "an unrecorded version"

    @property
    def tag(self) -> str:
        """What to print beside a verdict taken from this report: '' unless it is :attr:`foreign`."""
        return f" [report of dp-erm-verify {self.version_text}]" if self.foreign else ""

    @property
    def note(self) -> str:
        """One line to say about the evidence ('' for a report of this version)."""
        if not self.found:
            return f"no report found at {self.path}: verdicts rest on the symbolic checks alone"
        if self.foreign:
            return (f"the verdicts take empirical and audit evidence from {self.path}, written by dp-erm-verify "
                    f"{self.version_text} (this is {self.current}): regenerate it with `python -m verify` "
                    "for verdicts of this version")
        return ""

    @property
    def source(self) -> str:
        """Where the rows came from, for a listing ('' when there is no report)."""
        if not self.found:
            return ""
        out = f"{self.path} ({self.generated})" if self.generated else str(self.path)
        return out + (f", written by dp-erm-verify {self.version_text}, not this {self.current}" if self.foreign else "")

    def for_key(self, key: str | None) -> list[Any]:
        """The rows of statement ``key`` (every row when None)."""
        return [r for r in self.rows if key is None or r.key == key]


_DEFAULTS: contextvars.ContextVar[tuple[str | None, bool]] = contextvars.ContextVar(
    "bounds_report_defaults", default=(None, False))


@contextlib.contextmanager
def using(reports: str | os.PathLike | None = None, any_version: bool = False) -> Iterator[None]:
    """Inside the block, a call that names no report reads ``reports`` with ``any_version``.

    The command line sets its ``--reports`` and ``--reports-any-version`` here, so that the verdicts
    :mod:`bounds.pick` and :mod:`bounds.calibrate` compute read the same report as ``list``.

    Examples
    --------
    >>> with using("/nonexistent"):
    ...     read_summary().path
    PosixPath('/nonexistent/summary.json')
    """
    token = _DEFAULTS.set((None if reports is None else os.fspath(reports), bool(any_version)))
    try:
        yield
    finally:
        _DEFAULTS.reset(token)


_CACHE: dict[tuple, Summary] = {}


def read_summary(reports: str | os.PathLike | None = None, any_version: bool | None = None) -> Summary:
    """The evidence of the report in directory ``reports`` (default: :func:`using`'s, else the checkout's).

    Parameters
    ----------
    reports : path, optional
        A report directory (the one ``python -m verify --out`` wrote).
    any_version : bool, optional
        Accept a report of another toolkit version (default: :func:`using`'s, else False).

    Returns
    -------
    Summary
        ``found`` False when there is no ``summary.json`` there (its :attr:`~Summary.note` says so).

    Raises
    ------
    ReportError
        For a file that is not a regular file, cannot be read, is not the JSON the toolkit writes,
        or was written by another version of the toolkit (unless ``any_version``).
    """
    d_reports, d_any = _DEFAULTS.get()
    if reports is None:
        reports = d_reports
    if any_version is None:
        any_version = d_any
    if isinstance(reports, str) and (not reports.strip() or "\0" in reports):
        raise ReportError(f"parameter 'reports' = {reports!r} must name a report directory")
    path = (Path(reports) if reports is not None else DEFAULT_DIR) / SUMMARY
    current = toolkit_version()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return Summary(path, False, current=current)
    except NotADirectoryError:
        raise ReportError(f"report {path}: {path.parent} is not a directory") from None
    except OSError as exc:
        raise ReportError(f"report {path} cannot be opened: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = ("a directory" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode)
                    else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                    else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
            raise ReportError(f"report {path} is {what}, not a regular file: nothing is read from it")
        if info.st_size > MAX_BYTES:
            raise ReportError(f"report {path} has {info.st_size} bytes, more than a summary's limit of {MAX_BYTES}")
        sig = (str(path), info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size, bool(any_version), current)
        if sig in _CACHE:
            return _CACHE[sig]
        chunks = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > MAX_BYTES:
                raise ReportError(f"report {path} has more than a summary's limit of {MAX_BYTES} bytes")
    except OSError as exc:
        raise ReportError(f"report {path} cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    out = _parse(path, b"".join(chunks), bool(any_version), current)
    _CACHE.clear()
    _CACHE[sig] = out
    return out


def _kind(x: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(x), type(x).__name__)


def _parse(path: Path, raw: bytes, any_version: bool, current: str) -> Summary:
    """The checked content of a summary (see :func:`read_summary`)."""
    bad = f"report {path} is not a summary written by dp-erm-verify"
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ReportError(f"{bad}: it is not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"{bad}: it is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise ReportError(f"{bad}: its JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ReportError(f"{bad}: its top level is {_kind(data)}, not an object")
    prov = data.get("provenance")
    if not isinstance(prov, dict):
        raise ReportError(f"{bad}: 'provenance' is {_kind(prov) if 'provenance' in data else 'missing'}, "
                          "not an object")
    version = prov.get("bounds_version")
    if version is not None and not isinstance(version, str):
        raise ReportError(f"{bad}: 'provenance.bounds_version' is {_kind(version)}, not a string")
    generated = prov.get("generated", "")
    if not isinstance(generated, str):
        raise ReportError(f"{bad}: 'provenance.generated' is {_kind(generated)}, not a string")
    if (version or None) != current and not any_version:
        raise ReportError(f"report {path} was written by dp-erm-verify {version or 'of an unrecorded version'}, "
                          f"this is {current}: its evidence may not apply (regenerate it with `python -m verify`, "
                          "or pass --reports-any-version to use it with its version named beside every verdict)")
    evidence = data.get("evidence")
    if not isinstance(evidence, list):
        raise ReportError(f"{bad}: 'evidence' is {_kind(evidence) if 'evidence' in data else 'missing'}, "
                          "not an array of rows")
    rows = tuple(r for i, row in enumerate(evidence) if (r := _row(bad, i, row)) is not None)
    return Summary(path, True, rows, version or None, generated, current)


#: the fields of a row and the JSON types they take
_TEXT = ("key", "evidence", "kind", "name", "verdict", "method", "detail", "severity", "regime", "qualifier")
_NUMBERS = ("statistic", "lo", "hi", "bound", "confidence", "slack")
_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "Infinity": math.inf, "-Infinity": -math.inf,
            "NaN": math.nan}


def _row(bad: str, i: int, row: Any) -> Any:
    """Evidence row ``i`` as a :class:`~bounds.evidence.Result` (None for a symbolic row, recomputed instead)."""
    from .evidence import Result

    if not isinstance(row, dict):
        raise ReportError(f"{bad}: evidence[{i}] is {_kind(row)}, not an object")
    at = f"evidence[{i}]" + (f" ({row['key']})" if isinstance(row.get("key"), str) else "")
    for k in ("evidence", "kind", "name", "verdict"):
        if k not in row:
            raise ReportError(f"{bad}: {at} has no {k!r}")
    for k in _TEXT:
        if k in row and not isinstance(row[k], str):
            raise ReportError(f"{bad}: {at}.{k} is {_kind(row[k])}, not a string")
    if row["evidence"] == "symbolic":
        return None
    names = {f.name for f in fields(Result)}
    kw = {k: v for k, v in row.items() if k in names}
    for k in _NUMBERS:
        x = kw.get(k)
        if x is None:
            kw[k] = None if k == "slack" else math.nan
        elif isinstance(x, str) and x in _SPECIAL:
            kw[k] = _SPECIAL[x]
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            kw[k] = float(x)
        else:
            raise ReportError(f"{bad}: {at}.{k} is {_kind(x)} {json.dumps(x)[:40]}, not a number")
    n = kw.get("n", 0)
    if isinstance(n, bool) or not isinstance(n, int):
        raise ReportError(f"{bad}: {at}.n is {_kind(n)}, not an integer")
    for k in ("worst", "details"):
        x = kw.get(k)
        if x is None:
            kw[k] = {}
        elif not isinstance(x, dict):
            raise ReportError(f"{bad}: {at}.{k} is {_kind(x)}, not an object")
    try:
        return Result(**kw)
    except (TypeError, ValueError) as exc:
        raise ReportError(f"{bad}: {at}: {exc}") from None


def evidence_rows(reports: str | os.PathLike | None = None, key: str | None = None) -> list[Any]:
    """The empirical and audit rows of ``key`` (every key when None) of :func:`read_summary`.

    Examples
    --------
    >>> evidence_rows("/nonexistent")
    []
    """
    return read_summary(reports).for_key(key)
