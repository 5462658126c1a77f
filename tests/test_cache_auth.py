"""The trial cache is authenticated: HMAC-SHA256 under a per-cache secret (issue 25, item 6).

Threat model (``simulations/cache.py``): an edit by someone who can write entries but cannot read
the key file is rejected and recomputed.  These tests play that editor: they know the entry format
and the key of the batch, they can recompute any plain checksum, they lack only the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import multiprocessing as mp
import os
import pickle
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulations import cache as C
from simulations.cache import TrialCache
from simulations.runner import run_grid, uniform_trial

ROWS = [{"trial": 0, "x": 0.25, "rejected": 0}, {"trial": 1, "x": 0.75, "rejected": 0}]


def _entry(tmp: Path) -> tuple[TrialCache, str, Path]:
    cache = TrialCache(tmp)
    k = cache.key("mod.trial", {"m": 10}, 0, 0, 2, code="c")
    cache.put(k, ROWS)
    return cache, k, cache._path(k)


def _split(path: Path) -> tuple[bytes, bytes]:
    head, payload = path.read_bytes().split(b"\n", 1)
    return head, payload


def _edited_payload() -> bytes:
    rows = [dict(r) for r in ROWS]
    rows[0]["x"] = 0.99                     # a plausible value, another statistic
    return pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)


# -- the key file -------------------------------------------------------------------------------

def test_the_first_write_makes_a_private_random_key_and_a_read_makes_none(tmp_path):
    cache = TrialCache(tmp_path / "c")
    assert cache.get("0" * 64) is None
    assert not (tmp_path / "c").exists()                       # a read creates nothing
    _, _, _ = _entry(tmp_path / "c")
    key = tmp_path / "c" / C.KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    text = key.read_text().strip()
    assert len(text) == 64 and int(text, 16) >= 0
    _entry(tmp_path / "d")
    assert (tmp_path / "d" / C.KEY_FILE).read_text() != key.read_text()   # one secret per cache


def _make_key(d: str) -> bytes:
    return C.load_secret(d)


def test_concurrent_writers_agree_on_one_key(tmp_path):
    ctx = mp.get_context("fork")
    with ctx.Pool(4) as pool:
        keys = pool.map(_make_key, [str(tmp_path)] * 16)
    assert len(set(keys)) == 1 and len(keys[0]) == 32
    assert C.load_secret(tmp_path) == keys[0]
    assert not list(tmp_path.glob(".tmp-*"))                     # no temporary key left behind


@pytest.mark.parametrize("damage", ["group-readable", "world-writable", "not hex", "short", "directory",
                                    "symlink to a good key", "fifo"])
def test_an_untrustworthy_key_file_is_refused_naming_it(tmp_path, damage):
    cache, k, _ = _entry(tmp_path)
    key = tmp_path / C.KEY_FILE
    if damage == "group-readable":
        key.chmod(0o640)
    elif damage == "world-writable":
        key.chmod(0o602)
    elif damage == "not hex":
        key.write_text("z" * 64 + "\n")
    elif damage == "short":
        key.write_text("ab" * 16 + "\n")
    elif damage == "symlink to a good key":   # a link is refused even to a private 64-hex file (no lstat/open race)
        good = tmp_path.parent / (tmp_path.name + "-elsewhere")
        good.write_bytes(key.read_bytes())
        good.chmod(0o600)
        key.unlink()
        key.symlink_to(good)
    elif damage == "fifo":                   # opened without blocking, refused by fstat
        key.unlink()
        os.mkfifo(key, 0o600)
    else:
        key.unlink()
        key.mkdir()
    with pytest.raises(C.CacheKeyError, match="--cache") as info:
        TrialCache(tmp_path).get(k)
    assert str(key) in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_deleted_key_rejects_every_entry_then_a_new_one_is_made(tmp_path):
    cache, k, path = _entry(tmp_path)
    (tmp_path / C.KEY_FILE).unlink()
    fresh = TrialCache(tmp_path)
    assert fresh.get(k) is None and fresh.rejected == 1 and not path.exists()
    assert "no key file" in C.read_reject_log(fresh.reject_log)[-1][1]
    fresh.put(k, ROWS)
    assert (tmp_path / C.KEY_FILE).exists() and TrialCache(tmp_path).get(k) == ROWS


# -- tampering ----------------------------------------------------------------------------------

def test_an_edited_value_with_a_recomputed_plain_checksum_is_rejected(tmp_path):
    """The issue's case: edit a value and recompute the checksum the v2 format used (SHA-256 of key NUL
    payload).  Without the secret the MAC does not match; the entry is rejected, logged, recomputed."""
    cache, k, path = _entry(tmp_path)
    bad = _edited_payload()
    plain = hashlib.sha256(k.encode() + b"\0" + bad).hexdigest().encode()
    path.write_bytes(C.MAGIC + plain + b"\n" + bad)
    assert cache.get(k) is None and cache.rejected == 1
    assert C.read_reject_log(cache.reject_log) == [(str(path), C.MAC_MISMATCH)]
    # the same edit sealed with the secret would pass: the MAC, nothing else, tells them apart
    secret = C.load_secret(tmp_path, create=False)
    path.write_bytes(C.pack(k, bad, secret))
    assert pickle.loads(bad) != ROWS and TrialCache(tmp_path).get(k) == pickle.loads(bad)


@pytest.mark.parametrize("forger", ["old v2 header", "guessed key", "empty key", "another cache's key"])
def test_entries_sealed_without_this_cache_s_secret_are_rejected(tmp_path, forger):
    cache, k, path = _entry(tmp_path / "a")
    bad = _edited_payload()
    if forger == "old v2 header":
        data = b"dp-erm-verify trial-cache v2 sha256=" + hashlib.sha256(k.encode() + b"\0" + bad).hexdigest().encode() \
            + b"\n" + bad
    elif forger == "guessed key":
        data = C.pack(k, bad, b"\0" * 32)
    elif forger == "empty key":
        data = C.MAGIC + hmac.new(b"", k.encode() + b"\0" + bad, hashlib.sha256).hexdigest().encode() + b"\n" + bad
    else:
        other, _, other_path = _entry(tmp_path / "b")
        other.put(k, pickle.loads(bad))
        data = other._path(k).read_bytes()
    path.write_bytes(data)
    assert cache.get(k) is None and cache.rejected == 1


def test_the_mac_is_checked_before_anything_is_unpickled(tmp_path):
    cache, k, path = _entry(tmp_path)
    marker = tmp_path / "unpickled"

    class Bomb:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    evil = pickle.dumps([Bomb()])
    path.write_bytes(C.MAGIC + hashlib.sha256(k.encode() + b"\0" + evil).hexdigest().encode() + b"\n" + evil)
    assert cache.get(k) is None and not marker.exists()


def test_a_run_over_tampered_entries_gives_the_results_of_a_clean_run(tmp_path):
    configs = [{"n": 5}, {"n": 50}]
    first = run_grid(uniform_trial, configs, 8, seed=3, batch_size=2, cache=tmp_path)
    files = sorted(tmp_path.glob("??/*.pkl"))
    for f in files[:3]:                     # max of uniforms set to 5: impossible, would flip a check
        head, payload = _split(f)
        rows = pickle.loads(payload)
        for row in rows:
            row["max"] = 5.0
        new = pickle.dumps(rows)
        key = f.stem
        f.write_bytes(C.MAGIC + hashlib.sha256(key.encode() + b"\0" + new).hexdigest().encode() + b"\n" + new)
    again = run_grid(uniform_trial, configs, 8, seed=3, batch_size=2, cache=tmp_path)
    assert again.equals(first) and again["max"].max() < 1
    assert len(C.read_reject_log(tmp_path / C.REJECT_LOG)) == 3


# -- fuzz: any edit of an entry's bytes is a miss, never other rows ----------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_any_byte_edit_of_an_entry_is_rejected_never_read_as_other_rows(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("fuzz")
    cache, k, path = _entry(tmp)
    raw = bytearray(path.read_bytes())
    op = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate", "append", "swap-header"]))
    i = data.draw(st.integers(0, len(raw) - 1))
    if op == "flip":
        raw[i] ^= data.draw(st.integers(1, 255))
    elif op == "insert":
        raw[i:i] = data.draw(st.binary(min_size=1, max_size=8))
    elif op == "delete":
        del raw[i:i + data.draw(st.integers(1, 8))]
    elif op == "truncate":
        del raw[i:]
    elif op == "append":
        raw += data.draw(st.binary(min_size=1, max_size=8))
    else:                                   # a valid-looking header with a random digest
        digest = data.draw(st.binary(min_size=32, max_size=32)).hex().encode()
        raw = bytearray(C.MAGIC + digest + b"\n" + bytes(raw).split(b"\n", 1)[1])
    if bytes(raw) == path.read_bytes():
        return
    path.write_bytes(bytes(raw))
    assert cache.get(k) is None and cache.rejected == 1 and not path.exists()
