"""``exactdp sweep``: grid checking, the SQLite store, Dask runs (local cluster,
kill -9 and resume, a real scheduler and workers on 127.0.0.1)."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from exactdp import from_randomized_response
from exactdp.apps import sweep as S
from exactdp.apps.store import Store

ROOT = Path(__file__).resolve().parents[1]

TINY = """
quantity = "eta"
N = [20, 60]
L = [2, 3]
q = ["0.2", "1/4"]
lam = ["2", "3"]
direction = ["forward", "reverse"]
digits = 12
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "exactdp", *args], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=timeout)


def _rows(path):
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT key, params, lower, upper, status, attempts FROM points").fetchall()
    finally:
        con.close()


def _direct_eta(given, digits):
    d = from_randomized_response(given["N"], given["L"], given["q"],
                                 given.get("direction", "forward"))
    return d.eta(lam=given["lam"], digits=digits).to_dict(digits)


# ----------------------------------------------------------------------------- grid (no Dask)
def test_grid_product_scalars_defaults_and_canonical_keys():
    g = S.parse_grid({"quantity": "eta", "N": [20, 40], "L": 2, "q": ["0.2", "1/5", "0.25"],
                      "lam": "2"})
    # "0.2" and "1/5" are one point: 2 x 1 x 2 x 1 distinct points, 2 duplicates
    assert len(g.points) == 4 and g.duplicates == 2
    assert g.names == ["N", "L", "q", "lam"]
    p = g.points[0]
    assert p.given == {"N": 20, "L": 2, "q": "0.2", "lam": "2"}       # kept as given
    assert p.api["direction"] == "forward" and p.api["digits"] == 20  # defaults filled in
    key = json.loads(p.key)
    assert key["q"] == "1/5" and key["lam"] == 2 and key["quantity"] == "eta"
    # the same point written differently (explicit default, other spellings) has the same key
    g2 = S.parse_grid({"quantity": "eta", "N": "20", "L": [2], "q": "2/10", "lam": 2,
                       "direction": "forward", "digits": 20})
    assert g2.points[0].key == p.key
    # a different quantity or digits is another point
    assert S.parse_grid({"quantity": "delta", "N": 20, "L": 2, "q": "0.2",
                         "lam": 2}).points[0].key != p.key
    assert S.parse_grid({"quantity": "eta", "N": 20, "L": 2, "q": "0.2", "lam": 2,
                         "digits": 12}).points[0].key != p.key


@pytest.mark.parametrize("toml, needle", [
    ('quantity = "profile"\nN = 2', "unknown quantity 'profile'"),
    ('N = 2', "missing 'quantity'"),
    ('quantity = "eta"\nN = 20\nL = 2\nq = "0.2"\nlam = 2\nfoo = 1', "unknown parameter 'foo'"),
    ('quantity = "eta"\nN = []\nL = 2\nq = "0.2"\nlam = 2', "N is an empty list"),
    ('quantity = "eta"\nN = 20\nL = 2\nq = 0.2\nlam = 2', "q: got the float 0.2"),
    ('quantity = "eta"\nN = 20\nL = 2\nq = ["0.2", 0.25]\nlam = 2', "q: got the float 0.25"),
    ('quantity = "eta"\nN = 20\nL = 2\nq = "0.7"\nlam = 2', "q must be a number in (0, 0.5)"),
    ('quantity = "eta"\nN = 20\nL = 2\nq = "0.2"', "exactly one of lam, eps"),
    ('quantity = "eta"\nN = 20\nL = 2\nq = "0.2"\nlam = 2\neps = "1"', "exactly one of lam, eps"),
    ('quantity = "eta"\nL = 2\nq = "0.2"\nlam = 2', "needs the parameter N"),
    ('quantity = "eta"\nN = 20\nL = 2\nq = "0.2"\nlam = 2\ndirection = "up"', "direction must be"),
    ('quantity = "eta"\nN = 20\nL = 2\nq = "0.2"\nlam = 2\ninclusive = "yes"', "true or false"),
    ('quantity = "eta" N = 2', "is not valid TOML"),
    ('quantity = "calibrate"\nN = 20\nL = 2\nlam = 2\neta = "1.5"', "target must be"),
    ('quantity = "calibrate"\nN = 20\nL = 2\nlam = 2\neta = "0.1"\nmethod = "x"', "method must be"),
    ('quantity = "conjecture"\nconjecture = "maximality"\nvariant = "zz"\nN = 2\nL = 1\n'
     'q = "1/4"\nlam = 2', "variant of maximality"),
    ('quantity = "conjecture"\nconjecture = "nope"\nN = 2\nL = 1\nq = "1/4"\nlam = 2',
     "conjecture must be one of"),
    ('quantity = "conjecture"\nconjecture = "maximality"\nN = 2\nL = 1\nq = "1/4"',
     "needs exactly one of lam, eps"),
])
def test_bad_grid_one_line_exit_2_before_any_work(tmp_path, capsys, toml, needle):
    grid = tmp_path / "g.toml"
    grid.write_text(toml)
    store = tmp_path / "s.sqlite"
    assert S.main([str(grid), "--store", str(store), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err, err
    assert not store.exists()                      # nothing created


def test_bad_store_and_options_exit_2(tmp_path, capsys):
    grid = tmp_path / "g.toml"
    grid.write_text('quantity = "eta"\nN = 20\nL = 2\nq = "0.2"\nlam = 2\n')
    notdb = tmp_path / "notdb.sqlite"
    notdb.write_text("this is not a database\n" * 50)
    for store, needle in ((tmp_path / "missing" / "s.sqlite", "does not exist"),
                          (tmp_path, "is a directory"),
                          (grid / "s.sqlite", "does not exist"),
                          (notdb, "not a database")):
        assert S.main([str(grid), "--store", str(store)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
    for extra, needle in ((["--workers", "0"], "workers must be"),
                          (["--csv"], "--csv goes with --show")):
        assert S.main([str(grid), "--store", str(tmp_path / "s.sqlite"), *extra]) == 2
        assert needle in capsys.readouterr().err
    assert S.main([str(tmp_path / "none.toml"), "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_without_dask_one_line_install_hint(tmp_path, capsys, monkeypatch):
    grid = tmp_path / "g.toml"
    grid.write_text('quantity = "eta"\nN = 20\nL = 2\nq = "0.2"\nlam = 2\n')
    monkeypatch.setitem(sys.modules, "distributed", None)     # import distributed -> ImportError
    assert S.main([str(grid), "--store", str(tmp_path / "s.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'exactdp[sweep]'" in err


def test_evaluate_point_failure_is_returned_not_raised():
    r = S.evaluate_point("eta", {"N": 10**5, "L": 8, "q": "1/4", "lam": 2, "direction": "forward",
                                 "digits": 10, "method": "exact", "inclusive": False,
                                 "max_seconds": 900})
    assert r["status"] == "failed" and r["error"].startswith("CapacityError: ")
    assert r["lower"] is None and "\n" not in r["error"]


def test_registry_quantities_evaluate_like_the_api():
    """Each registered quantity agrees with a direct call of its API function."""
    from exactdp.apps.calibrate import calibrate
    base = {"N": 30, "L": 2, "q": "1/4"}
    e = S.evaluate_point("delta", S.parse_grid(dict(base, quantity="delta", lam="3/2",
                                                    digits=15)).points[0].api)
    d = from_randomized_response(30, 2, "1/4").delta(lam="3/2", digits=15).to_dict(15)
    assert (e["lower"], e["upper"]) == (d["lower"], d["upper"])
    e = S.evaluate_point("epsilon", S.parse_grid(dict(base, quantity="epsilon",
                                                      delta="1e-3")).points[0].api)
    d = from_randomized_response(30, 2, "1/4").epsilon(delta="1e-3", digits=10).to_dict(11)
    assert (e["lower"], e["upper"]) == (d["lower"], d["upper"])
    e = S.evaluate_point("calibrate", S.parse_grid(
        {"quantity": "calibrate", "N": 40, "L": 2, "lam": 2, "eta": "0.05", "grid": 24,
         "digits": 4}).points[0].api)
    c = calibrate(40, 2, lam=2, eta="0.05", grid=24, digits=4).to_dict(6)
    assert e["status"] == "ok" and (e["lower"], e["upper"]) == (c["q"]["lower"], c["q"]["upper"])
    e = S.evaluate_point("conjecture", S.parse_grid(
        {"quantity": "conjecture", "conjecture": "maximality", "N": 2, "L": 1, "q": "1/4",
         "lam": 2}).points[0].api)
    assert e["status"] == "ok" and e["value"] == "false"        # see the checker's doctest
    g = S.parse_grid({"quantity": "conjecture", "conjecture": "l1-claim", "N": "2..3", "L": 1,
                      "q": "1/4"})
    e = S.evaluate_point("conjecture", g.points[0].api)
    from exactdp.apps.conjectures import check
    assert e["status"] == "ok" and e["result"]["holds"] == check("l1-claim", N="2..3", L="1",
                                                                 q="1/4")["holds"]
    from exactdp.apps.guarantee import guarantee
    e = S.evaluate_point("guarantee", S.parse_grid(
        {"quantity": "guarantee", "N": 40, "L": 1, "q": "1/4", "delta": "1e-3"}).points[0].api)
    g = guarantee(40, 1, "1/4", delta="1e-3", digits=6).to_dict(8)
    assert e["status"] == "ok" and (e["lower"], e["upper"]) == (g["lower"], g["upper"])
    assert e["value"] == g["upper_bound"]


# ----------------------------------------------------------------------------- store
def test_store_ok_rows_are_final_failed_rows_are_replaced(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        st.put({"key": "a", "quantity": "eta", "params": {"N": 1}, "lower": "1", "upper": "2",
                "status": "ok"})
        st.put({"key": "a", "quantity": "eta", "params": {"N": 1}, "lower": "5", "upper": "6",
                "status": "ok"})
        st.put({"key": "b", "quantity": "eta", "params": {"N": 2}, "status": "failed",
                "error": "E: x"})
        st.put({"key": "b", "quantity": "eta", "params": {"N": 2}, "lower": "3", "upper": "4",
                "status": "ok"})
        assert st.statuses() == {"a": "ok", "b": "ok"}
        rows = {r["key"]: r for r in st.rows()}
    assert (rows["a"]["lower"], rows["a"]["attempts"]) == ("1", 1)     # ok never overwritten
    assert (rows["b"]["lower"], rows["b"]["attempts"], rows["b"]["error"]) == ("3", 2, None)
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
    with pytest.raises(ValueError, match="no such file"):
        Store(tmp_path / "none.sqlite", readonly=True)


# ----------------------------------------------------------------------------- Dask
def test_local_cluster_two_workers_resume_show(tmp_path, capsys):
    grid = tmp_path / "tiny.toml"
    grid.write_text(TINY)
    store = tmp_path / "s.sqlite"
    assert S.main([str(grid), "--store", str(store), "--workers", "2", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["points"], out["computed"], out["ok"], out["failed"], out["workers"]) == (32, 32, 32, 0, 2)
    rows = _rows(store)
    assert len(rows) == 32 and len({r[0] for r in rows}) == 32
    with Store(store, readonly=True) as st:
        stored = st.rows()
    assert len({r["worker"] for r in stored}) == 2        # both worker processes computed points
    assert all(r["worker"].split(":")[1] != str(os.getpid()) for r in stored)
    for r in stored[::5]:
        d = _direct_eta(r["params"], 12)
        assert (r["lower"], r["upper"]) == (d["lower"], d["upper"]), r["params"]
    # a rerun computes nothing
    assert S.main([str(grid), "--store", str(store), "--workers", "2", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["computed"], out["already_ok"], out["stored_ok"]) == (0, 32, 32)
    # --show as CSV: one line per point, the parameters as given
    assert S.main([str(grid), "--store", str(store), "--show", "--csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(table) == 32 and {t["q"] for t in table} == {"0.2", "1/4"}
    assert all(t["status"] == "ok" and t["lower"] for t in table)
    assert S.main([str(grid), "--store", str(store), "--show"]) == 0
    text = capsys.readouterr().out
    assert "32 of 32 points of the grid stored, 0 failed" in text


def test_failed_points_kept_and_retried(tmp_path, capsys):
    grid = tmp_path / "f.toml"
    grid.write_text('quantity = "eta"\nN = [30, 100000]\nL = 8\nq = "1/4"\nlam = 2\n')
    store = tmp_path / "s.sqlite"
    assert S.main([str(grid), "--store", str(store), "--workers", "1", "--json", "--quiet"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["ok"], out["failed"]) == (1, 1)
    assert S.main([str(grid), "--store", str(store), "--workers", "1", "--json", "--quiet"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["computed"] == 0 and out["already_failed"] == 1     # not rerun without the flag
    assert S.main([str(grid), "--store", str(store), "--workers", "1", "--json", "--quiet",
                   "--retry-failed"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["computed"], out["retried"], out["failed"]) == (1, 1, 1)
    rows = _rows(store)
    assert len(rows) == 2
    failed = [r for r in rows if r[4] == "failed"]
    assert len(failed) == 1 and failed[0][5] == 2                # attempts counted, one row


# kill -9: points of ~0.3-1 s each (N = 1000, L = 5), two local workers
SLOW_GRID = """
quantity = "eta"
N = [700, 1000]
L = 5
q = ["0.2", "0.21", "0.22"]
lam = ["2", "3"]
digits = 15
"""


@pytest.mark.slow
def test_kill_9_and_resume(tmp_path):
    grid = tmp_path / "slow.toml"
    grid.write_text(SLOW_GRID)
    store = tmp_path / "s.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "exactdp", "sweep", str(grid), "--store",
                             str(store), "--workers", "2", "--quiet"], cwd=ROOT, env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        t0 = time.time()
        n = 0
        while time.time() - t0 < 120:
            if store.exists():
                try:
                    n = len(_rows(store))
                except sqlite3.OperationalError:   # schema not created yet
                    n = 0
            if n >= 2 or proc.poll() is not None:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)        # the client, as a user's kill -9 would
        proc.wait(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its worker processes, if any are left
        except ProcessLookupError:
            pass
    before = _rows(store)
    assert 2 <= len(before) < 12, len(before)
    r = _cli("sweep", str(grid), "--store", str(store), "--workers", "2", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["already_ok"] == len(before) and out["computed"] == 12 - len(before)
    after = _rows(store)
    assert len(after) == 12 and len({row[0] for row in after}) == 12
    assert len({row[1] for row in after}) == 12                  # no duplicate parameters
    assert all(row[4] == "ok" and row[5] == 1 for row in after)  # nothing computed twice
    old = {row[0]: row for row in before}
    assert all(old[k] == row for row in after if (k := row[0]) in old)   # kept as committed
    # values equal to `exactdp eta --json`, for points of both runs
    for key, params, lower, upper, *_ in (before[0], [a for a in after if a[0] not in old][-1]):
        p = json.loads(params)
        e = _cli("eta", "-N", str(p["N"]), "-L", str(p["L"]), "-q", p["q"], "--lam", p["lam"],
                 "--digits", "15", "--json")
        assert e.returncode == 0, e.stderr
        assert json.loads(e.stdout)["eta"] == {"lower": lower, "upper": upper}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_real_scheduler_and_workers(tmp_path):
    """As on a cluster: `dask scheduler` and `dask worker` processes, then --scheduler."""
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "dask"]      # the `dask` command of this Python
    procs = []
    try:
        procs.append(subprocess.Popen(
            [*dask, "scheduler", "--host", "127.0.0.1",
             "--port", str(port), "--no-dashboard"], cwd=tmp_path, env=_env(),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        procs.append(subprocess.Popen(
            [*dask, "worker", addr, "--nworkers", "2",
             "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"], cwd=tmp_path,
            env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True))
        grid = tmp_path / "tiny.toml"
        grid.write_text(TINY)
        store = tmp_path / "s.sqlite"
        r = _cli("sweep", str(grid), "--store", str(store), "--scheduler", addr, "--json",
                 timeout=180)
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert (out["computed"], out["ok"], out["scheduler"]) == (32, 32, addr)
        with Store(store, readonly=True) as st:
            stored = st.rows()
        assert len(stored) == 32
        worker_pids = {int(w["worker"].split(":")[1]) for w in stored}
        # computed in the `dask worker` processes: children of the worker command
        kids = set()
        for pid in worker_pids:
            with open(f"/proc/{pid}/stat") as f:
                kids.add(int(f.read().rsplit(")", 1)[1].split()[1]))   # parent pid
        assert kids <= {procs[1].pid} | _children(procs[1].pid), (kids, procs[1].pid)
        for row in stored[::7]:
            d = _direct_eta(row["params"], 12)
            assert (row["lower"], row["upper"]) == (d["lower"], d["upper"])
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=30)


def _children(pid):
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.add(int(d))
            except OSError:
                pass
    return out


def test_log_progress_lines_for_non_terminals(capsys):
    log = S._LogProgress("eta", 10, enabled=True, every=0.0)
    log(4, 1)
    log(10, 1)                                   # the end is left to the summary line
    S._LogProgress("eta", 10, enabled=False, every=0.0)(4, 0)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("sweep eta: 4/10 points (1 failed)")
    assert "min left" in err[0]
