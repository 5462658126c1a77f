"""Audits of real clients from their recorded outputs (issue 32, item 6).

A *client* is a third-party implementation of a paper's mechanism whose outputs on a neighbouring
pair were recorded once (fitting them again needs the client installed and minutes of CPU) and ship
with the package in ``verify/data/clients/``: one ``NAME.npz`` (arrays ``w0``, released on D, and
``w1``, released on D′) and one manifest ``NAME.json`` saying what was run (implementation, versions,
parameters, pair, seeds), what is claimed, which statistic was fixed before the draws, which statement
it implements and why outside its premise, the command that regenerates the file and the npz's SHA-256.

Every manifest in the directory is found (:func:`discover`), checked (:func:`load_client`: a
ValueError naming the file and the field), and the recorded outputs are audited again on every run
(:func:`client_audits`): once with the manifest's statistic, once with the auditor's default.  The
rows have key ``""`` (like the auditor's calibration rows), so they never enter a statement's verdict:
they say what the test found for these outputs of this client, not what the paper's theorem is.

The statistics are code, named by the manifest: :data:`STATISTICS` maps a name to a factory taking
the manifest's ``params`` (``abs_margin(q)``: ``|q·w₁|``).

Examples
--------
>>> from verify.audit.clients import discover, load_client
>>> c = load_client(discover()[0])
>>> c.name, c.n, c.statement["key"]
('diffprivlib_logreg_q20_eps1', 13000, 'cms.alg2.privacy')
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from bounds.evidence import Result

#: where the recorded clients live (package data)
CLIENTS_DIR = Path(__file__).resolve().parents[1] / "data" / "clients"


def abs_margin(q: float) -> Callable[[np.ndarray], np.ndarray]:
    """``|q·w₁|``: the margin of a replaced record q·e₁ under released coefficients w (small says D).

    Examples
    --------
    >>> f = abs_margin(20)
    >>> f.__name__, f(np.array([[-0.05, 3.0], [0.1, 0.0]])).tolist()
    ('abs_margin_q20', [1.0, 2.0])
    """
    q = float(q)
    if not (math.isfinite(q) and q > 0):
        raise ValueError(f"parameter 'q' = {q!r} of abs_margin must be finite and positive")

    def stat(w: np.ndarray) -> np.ndarray:
        w = np.atleast_2d(np.asarray(w, dtype=float))
        return np.abs(q * w[:, 0])
    stat.__name__ = f"abs_margin_q{q:g}"
    return stat


#: the named statistics a manifest may use: name → factory(**params) → statistic on an (n, k) array
STATISTICS: dict[str, Callable[..., Callable[[np.ndarray], np.ndarray]]] = {"abs_margin": abs_margin}

#: fields every manifest has, with their type
FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str, "title": str, "implementation": dict, "pair": dict, "seeds": str, "claim": dict,
    "statistic": dict, "statement": dict, "n": int, "file": str, "sha256": str, "regenerate": str, "doc": str,
}


@dataclass(frozen=True)
class Client:
    """A recorded client: its manifest (``path``) and the outputs it names (``npz``)."""

    path: Path
    manifest: dict[str, Any]

    @property
    def name(self) -> str:
        return self.manifest["name"]

    @property
    def n(self) -> int:
        return self.manifest["n"]

    @property
    def npz(self) -> Path:
        return self.path.parent / self.manifest["file"]

    @property
    def statement(self) -> dict[str, str]:
        return self.manifest["statement"]

    @property
    def claim_eps(self) -> float:
        return float(self.manifest["claim"]["epsilon"])

    @property
    def delta(self) -> float:
        return float(self.manifest["claim"].get("delta", 0.0))

    def statistic(self) -> Callable[[np.ndarray], np.ndarray]:
        """The manifest's statistic, built from :data:`STATISTICS`."""
        st = self.manifest["statistic"]
        return STATISTICS[st["name"]](**st.get("params", {}))

    def outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(w0, w1)`` from the npz, after checking its SHA-256 against the manifest's (ValueError if not)."""
        try:
            data = self.npz.read_bytes()
        except OSError as exc:
            raise ValueError(f"client manifest {self.path}: field 'file' = {self.manifest['file']!r}: "
                             f"cannot read {self.npz} ({exc})") from exc
        got = hashlib.sha256(data).hexdigest()
        if got != self.manifest["sha256"].lower():
            raise ValueError(f"client manifest {self.path}: field 'sha256' = {self.manifest['sha256']!r} does not "
                             f"match {self.npz.name} (SHA-256 {got}): the recorded outputs are not the ones described")
        with np.load(self.npz, allow_pickle=False) as z:
            missing = [k for k in ("w0", "w1") if k not in z.files]
            if missing:
                raise ValueError(f"client manifest {self.path}: field 'file': {self.npz.name} lacks array(s) "
                                 f"{', '.join(missing)}")
            w0, w1 = np.asarray(z["w0"]), np.asarray(z["w1"])
        for k, w in (("w0", w0), ("w1", w1)):
            if w.shape[0] != self.n:
                raise ValueError(f"client manifest {self.path}: field 'n' = {self.n} but {self.npz.name}:{k} "
                                 f"has {w.shape[0]} outputs")
        return w0, w1


def discover(directory: str | Path | None = None) -> list[Path]:
    """Every manifest (``*.json``) in ``directory`` (default :data:`CLIENTS_DIR`), sorted by name.

    Examples
    --------
    >>> [p.name for p in discover()]
    ['diffprivlib_logreg_q20_eps1.json']
    """
    d = CLIENTS_DIR if directory is None else Path(directory)
    return sorted(d.glob("*.json")) if d.is_dir() else []


def load_client(path: str | Path) -> Client:
    """Read and check one manifest; a ValueError names the file and the field that is wrong.

    Examples
    --------
    >>> load_client(discover()[0]).claim_eps
    1.0
    """
    path = Path(path)
    try:
        man = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"client manifest {path}: not readable JSON ({exc})") from exc
    if not isinstance(man, dict):
        raise ValueError(f"client manifest {path}: not a JSON object")

    def bad(field: str, why: str) -> ValueError:
        return ValueError(f"client manifest {path}: field {field!r} {why}")

    for f, t in FIELDS.items():
        if f not in man:
            raise bad(f, "is missing")
        if not isinstance(man[f], t) or (t is int and isinstance(man[f], bool)):
            raise bad(f, f"= {man[f]!r} is not a {getattr(t, '__name__', t)}")
    if man["n"] < 20:
        raise bad("n", f"= {man['n']} is below the 20 outputs per data set an audit needs")
    if Path(man["file"]).name != man["file"] or not man["file"].endswith(".npz"):
        raise bad("file", f"= {man['file']!r} is not an .npz file name in the manifest's directory")
    if len(man["sha256"]) != 64 or any(c not in "0123456789abcdefABCDEF" for c in man["sha256"]):
        raise bad("sha256", f"= {man['sha256']!r} is not 64 hexadecimal digits")
    eps = man["claim"].get("epsilon")
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not (math.isfinite(eps) and eps >= 0):
        raise bad("claim.epsilon", f"= {eps!r} is not a finite ε ≥ 0")
    dl = man["claim"].get("delta", 0.0)
    if not isinstance(dl, (int, float)) or isinstance(dl, bool) or not 0 <= dl < 1:
        raise bad("claim.delta", f"= {dl!r} is not in [0, 1)")
    for f in ("key", "source", "premise", "outside"):
        if not isinstance(man["statement"].get(f), str) or not man["statement"][f]:
            raise bad(f"statement.{f}", "is missing or empty")
    for f in ("package", "version", "class", "parameters"):
        if f not in man["implementation"]:
            raise bad(f"implementation.{f}", "is missing")
    st = man["statistic"]
    if st.get("name") not in STATISTICS:
        raise bad("statistic.name", f"= {st.get('name')!r} is not a known statistic ({', '.join(STATISTICS)})")
    if not isinstance(st.get("params", {}), dict):
        raise bad("statistic.params", "is not an object")
    frac = st.get("selection_fraction")
    if frac is not None and not (isinstance(frac, (int, float)) and 0 < frac < 1):
        raise bad("statistic.selection_fraction", f"= {frac!r} is not in (0, 1)")
    try:
        STATISTICS[st["name"]](**st.get("params", {}))
    except (TypeError, ValueError) as exc:
        raise bad("statistic.params", f"= {st.get('params')!r} do not fit {st['name']} ({exc})") from exc
    return Client(path, man)


def clients(directory: str | Path | None = None) -> list[Client]:
    """Every recorded client of ``directory`` (default :data:`CLIENTS_DIR`), checked."""
    return [load_client(p) for p in discover(directory)]


def client_audits(seed: int, confidence: float, directory: str | Path | None = None) -> list[Result]:
    """The recorded clients' audit rows: per client, its statistic fixed before the draws, then the default.

    Each row is :func:`verify.audit.rows.audit_result` with key ``""`` (never a statement's evidence),
    ``regime="outside"``, and ``details`` saying ``client: True``, the implementation, the statement,
    that the client lies outside its premise, the recorded n and the file.  The audit of statistic
    ``S`` of client ``C`` draws from ``audit_seed(seed, "client", C, S)``.

    Examples
    --------
    >>> rows = client_audits(0, 0.95)
    >>> [(r.key, r.details["client"], r.details["audit_statistic"]) for r in rows]
    [('', True, 'abs_margin'), ('', True, 'default')]
    """
    from .core import audit_samples, audit_seed
    from .rows import audit_result

    out: list[Result] = []
    for c in clients(directory):
        w0, w1 = c.outputs()
        st = c.manifest["statistic"]
        imp = c.manifest["implementation"]
        params = ", ".join(f"{k}={v!r}" for k, v in imp["parameters"].items())
        source = f"{imp['package']} {imp['version']} `{imp['class'].rsplit('.', 1)[-1]}({params})`"
        base = {"client": True, "client_name": c.name, "title": c.manifest["title"],
                "implementation": f"`{imp['class']}` of {imp['package']} {imp['version']}",
                "parameters": imp["parameters"], "environment": imp.get("environment", {}),
                "statement": c.statement["key"], "statement_source": c.statement["source"],
                "premise": c.statement["premise"], "outside_premise": True,
                "outside": c.statement["outside"], "recorded_n": c.n, "file": f"verify/data/clients/{c.npz.name}",
                "manifest": f"verify/data/clients/{c.path.name}", "sha256": c.manifest["sha256"],
                "seeds": c.manifest["seeds"], "regenerate": c.manifest["regenerate"], "doc": c.manifest["doc"],
                "pair_relation": c.manifest["pair"].get("relation", "")}
        for which in (st["name"], "default"):
            kw: dict[str, Any] = {}
            if which != "default":
                kw = {"score": c.statistic(), "selection_fraction": st.get("selection_fraction")}
            r = audit_samples(w0, w1, claim_eps=c.claim_eps, delta=c.delta, confidence=confidence,
                              seed=audit_seed(seed, "client", c.name, which), tradeoff=False, **kw)
            fixed = which != "default"
            det = dict(base, audit_statistic=which, p_value=r.p_value, fixed_before_draws=bool(fixed and st.get(
                "fixed_before_draws")), statistic_why=st.get("why", "") if fixed else "")
            if not fixed:           # the default statistic's classifier: its numbers change with the version
                from importlib.metadata import version

                det["scikit_learn"] = version("scikit-learn")
            attack = (f"threshold on {r.details.get('statistic')}, fixed before the draws" if fixed
                      else f"threshold on the auditor's default statistic ({r.details.get('statistic')})")
            release = f"recorded outputs, statistic `{which}`" if fixed else "recorded outputs, default statistic"
            row = audit_result("", mechanism=c.name, source=source, release=release,
                               calibration="as shipped", claimed=c.claim_eps, result=r, attack=attack,
                               delta=c.delta, leak=(f"outside the premise {c.statement['premise']} of "
                                                    f"`{c.statement['key']}`: {c.statement['outside']}"),
                               details=det)
            out.append(replace(row, regime="outside"))
    return out


def client_markdown(rows: list[Result]) -> list[str]:
    """One paragraph per audited client, from its rows (:func:`client_audits`): what, from which file, what it means.

    Examples
    --------
    >>> text = " ".join(client_markdown(client_audits(0, 0.95)))
    >>> "verify/data/clients/diffprivlib_logreg_q20_eps1.npz" in text and "cms.alg2.privacy" in text
    True
    """
    by: dict[str, list[Result]] = {}
    for r in rows:
        if r.details.get("client"):
            by.setdefault(r.details["client_name"], []).append(r)
    L: list[str] = []
    for name, rs in by.items():
        D = rs[0].details
        parts = []
        for r in rs:
            p = r.details.get("p_value")
            fixed = r.details["audit_statistic"] != "default"
            sk = r.details.get("scikit_learn")
            what = (f"the statistic `{r.details['audit_statistic']}` fixed before the draws "
                    f"({r.details.get('statistic_why')})" if fixed else
                    "the auditor's default statistic" + (f" (a classifier of scikit-learn {sk}, whose numbers "
                                                         "change with its version)" if sk else ""))
            parts.append(f"with {what}: ε_lower = {r.statistic:.3f} at {r.confidence:.0%} confidence, "
                         f"**{r.verdict}** against the claimed ε = {r.bound:g}"
                         + (f" (p = {p:.2g})" if isinstance(p, float) and r.verdict == "violated" else ""))
        violated = any(r.verdict == "violated" for r in rs)
        env = ", ".join(f"{k} {v}" for k, v in D.get("environment", {}).items())
        L.append(
            f"**Client `{name}` (recorded outputs).**  {D['implementation']}"
            + (f" (fitted with {env})" if env else "") + f", an implementation of the mechanism of `{D['statement']}` "
            f"({D['statement_source']}) outside its premise {D['premise']} ({D['outside']}).  Audited again on "
            f"every run from the {D['recorded_n']} + {D['recorded_n']} outputs recorded in `{D['file']}` "
            f"(manifest `{D['manifest']}`, SHA-256 checked; {D['pair_relation']}), not refitted: "
            + "; ".join(parts) + ".  "
            + ("The violation holds for these recorded fits on this pair: " if violated
               else "A consistent verdict means only that this test found nothing at this n: ")
            + f"it says nothing about the implementation inside the premise {D['premise']}, nor about other "
            f"pairs or parameters"
            + ("; on other data a consistent result would mean only that the test found nothing" if violated else "")
            + f".  These rows do not enter `{D['statement']}`'s verdict (the paper's theorem assumes "
            f"{D['premise']}).  The account, and how the file is regenerated: [`{D['doc']}`](../{D['doc']}).")
        L.append("")
    return L
