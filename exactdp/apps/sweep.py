"""Grids of certified computations on Dask distributed, with a resumable store.

``exactdp sweep GRID.toml --store FILE.sqlite`` evaluates every point of a
grid -- the cartesian product of the parameter lists of a TOML file -- by
calling the Python API (the same functions as ``exactdp eta``, ``delta``,
``epsilon``, ``calibrate`` and ``conjecture``), on a Dask ``LocalCluster`` of
``--workers`` processes or on an existing scheduler (``--scheduler
tcp://HOST:8786``).  Each result is committed to the SQLite store
(:mod:`exactdp.apps.store`) as soon as it arrives, one transaction per point, so a
sweep killed at any moment and run again skips what is stored and repeats
nothing.  See docs/sweeps.md.

Grid file::

    quantity = "eta"
    N = [200, 400]
    L = 3                      # a scalar is a list of one
    q = ["0.2", "1/4"]         # exact numbers are strings (or integers); floats are refused
    lam = ["2", "3"]
    direction = ["forward", "reverse"]
    digits = 12

The quantities are the entries of :data:`QUANTITIES`, an explicit registry:
a new one (e.g. ``guarantee``) is one more entry, a :class:`Quantity` naming
its parameters and its evaluation function.

>>> g = parse_grid({"quantity": "eta", "N": [20, 40], "L": 2, "q": ["0.2", "1/4"], "lam": 2})
>>> len(g.points), g.points[0].given
(4, {'N': 20, 'L': 2, 'q': '0.2', 'lam': 2})
>>> g.points[0].key == parse_grid({"quantity": "eta", "N": 20, "L": 2, "q": "1/5",
...                                "lam": "2", "direction": "forward"}).points[0].key
True
>>> r = evaluate_point("eta", g.points[0].api)
>>> r["status"], r["lower"] < r["upper"]
('ok', True)
>>> parse_grid({"quantity": "eta", "N": 20, "L": 2, "q": 0.2, "lam": 2})
Traceback (most recent call last):
...
exactdp.apps.sweep.GridError: grid: q: got the float 0.2; write the exact value as a string, q = "0.2"
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import logging
import os
import socket
import sys
import time
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from ..core import domains
from ..core.errors import ExactdpError
from .store import Store, StoreError

__all__ = ["Param", "Quantity", "QUANTITIES", "Point", "Grid", "GridError", "parse_grid",
           "load_grid", "evaluate_point", "run_sweep", "add_arguments", "command", "main"]

INSTALL_HINT = "install with pip install 'exactdp[sweep]'"


class GridError(ExactdpError, ValueError):
    """The grid file is invalid (one line naming the problem)."""


# ----------------------------------------------------------------------------- parameters
@dataclass(frozen=True)
class Param:
    """One grid parameter: how a value is checked and put in canonical form.

    ``kind``: ``"int"`` / ``"rational"`` (checked against ``domain``, canonical
    form the reduced fraction), ``"choice"`` (one of ``choices``), ``"bool"``,
    or ``"spec"`` (a string passed verbatim, e.g. a range ``"2..4"``).
    ``default``: filled in when the grid omits the parameter (``None``: the
    parameter is then not passed to the API at all).
    """

    kind: str
    domain: domains.Domain | None = None
    choices: tuple = ()
    default: object = None
    help: str = ""

    def canonical(self, name: str, v):
        """Check one value as given in the grid; return its canonical form."""
        if isinstance(v, float):
            raise GridError(f"grid: {name}: got the float {v!r}; write the exact value as a "
                            f"string, {name} = \"{v!r}\"")
        if self.kind == "bool":
            if not isinstance(v, bool):
                raise GridError(f"grid: {name} must be true or false, got {v!r}")
            return v
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise GridError(f"grid: {name}: got {type(v).__name__} {v!r}; "
                            "give a number (integer or string) or a list of them")
        if self.kind == "choice":
            if v not in self.choices:
                raise GridError(f"grid: {name} must be one of {', '.join(self.choices)}, got {v!r}")
            return v
        if self.kind == "spec":
            s = str(v).strip()
            if not s:
                raise GridError(f"grid: {name}: empty value")
            return s
        try:
            x = self.domain.parse(v)
        except (ValueError, TypeError) as e:
            raise GridError(f"grid: {e}") from None
        x = Fraction(x)
        return int(x) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _num(dom, default=None, help=""):
    return Param("int" if dom.kind == "int" else "rational", dom, default=default, help=help)


def _choice(choices, default=None, help=""):
    return Param("choice", choices=tuple(choices), default=default, help=help)


_DIR = _choice(domains.DIRECTIONS, "forward", "direction of the pair")
_MAXS = Param("rational", domains.Domain("max_seconds", "rational", Fraction(0), None, True),
              default=900, help="refuse certified work predicted to take longer (s)")


@dataclass(frozen=True)
class Quantity:
    """A quantity a sweep can evaluate.

    ``evaluate(params) -> dict`` receives the parameters as given in the grid
    (defaults filled in) and returns ``lower``/``upper`` (decimal strings or
    None), optionally ``value`` (a short verdict), ``method`` and ``result``
    (a JSON-ready record).  It raises on failure; the sweep stores the error.
    ``one_of``: groups of parameters of which exactly one must be given.
    ``check(point)``: an optional cross-parameter check, run on every point
    before any work.
    """

    evaluate: Callable[[dict], dict]
    params: dict
    required: tuple = ()
    one_of: tuple = ()
    check: Callable[[dict], None] | None = None
    help: str = ""


# ----------------------------------------------------------------------------- evaluations
def _precheck(dist, max_seconds, certified):
    from ..engine.capacity import check_capacity
    check_capacity(dist.mechanism, dist.N, max_seconds=max_seconds, certified=certified)


def _max_seconds(p):
    return float(Fraction(domains.to_fraction(p["max_seconds"], "max_seconds")))


def _eta_delta(which):
    def run(p: dict) -> dict:
        from ..law.distribution import from_randomized_response
        dist = from_randomized_response(p["N"], p["L"], p["q"], p["direction"])
        fast = p["method"] == "fast"
        maxs = _max_seconds(p)
        _precheck(dist, maxs, certified=not fast)
        kw = dict(method="fast") if fast else dict(digits=p["digits"], max_seconds=maxs)
        if which == "eta":
            kw["inclusive"] = p["inclusive"]
        res = getattr(dist, which)(p.get("lam"), p.get("eps"), **kw)
        d = res.to_dict() if fast else res.to_dict(domains.DIGITS.parse(p["digits"]))
        rec = {which: d, "method": p["method"], "certified": not fast}
        return {"lower": d["lower"], "upper": d["upper"], "method": p["method"], "result": rec}
    return run


def _epsilon(p: dict) -> dict:
    from ..law.distribution import from_randomized_response
    dist = from_randomized_response(p["N"], p["L"], p["q"], p["direction"])
    maxs = _max_seconds(p)
    _precheck(dist, maxs, certified=True)
    digits = domains.DIGITS.parse(p["digits"])
    target = {k: p[k] for k in ("delta", "eta") if p.get(k) is not None}
    res = dist.epsilon(digits=digits, max_seconds=maxs, **target)
    d = res.to_dict(digits + 1)
    return {"lower": d["lower"], "upper": d["upper"], "method": "exact",
            "result": {"eps": d, "target": {k: str(v) for k, v in target.items()},
                       "certified": True}}


def _calibrate(p: dict) -> dict:
    from .calibrate import calibrate
    digits = domains.DIGITS.parse(p["digits"])
    c = calibrate(p["N"], p["L"], lam=p.get("lam"), eps=p.get("eps"), eta=p.get("eta"),
                  delta=p.get("delta"), direction=p["direction"], method=p["method"],
                  digits=digits, grid=domains.BINS.parse(p["grid"]), max_seconds=_max_seconds(p))
    rec = c.to_dict(digits + 2)
    q = rec["q"] if c.method == "exact" else rec["q_interval"]
    meets = {True: "meets target", False: "misses target", None: "undecided"}[c.meets_target]
    return {"lower": q["lower"], "upper": q["upper"], "value": meets, "method": c.method,
            "result": rec}


def _guarantee(p: dict) -> dict:
    from .guarantee import guarantee
    digits = domains.DIGITS.parse(p["digits"])
    g = guarantee(p["N"], p["L"], p["q"], delta=p.get("delta"), eps=p.get("eps"), digits=digits,
                  max_seconds=_max_seconds(p))
    rec = g.to_dict(digits + 2)
    return {"lower": rec["lower"], "upper": rec["upper"], "value": g.upper_bound,
            "method": "certified", "result": rec}


def _spec(p: dict, name: str):
    return None if p.get(name) is None else str(p[name])


def _conjecture(p: dict) -> dict:
    from .conjectures import check
    p = {k: (v if isinstance(v, bool) else _spec(p, k)) for k, v in p.items()}
    r = check(p["conjecture"], N=p["N"], L=p["L"], q=p["q"], lam=p.get("lam"), eps=p.get("eps"),
              k=p["k"], variant=p.get("variant"), inclusive=p["inclusive"], family=p.get("family"))
    verdict = r["verdict"]          # "holds" only with a proof; else "no counterexample in R" etc.
    return {"lower": None, "upper": None, "value": verdict, "method": "certified", "result": r}


def _check_conjecture(p: dict) -> None:
    from .conjectures import FAMILIES, NAMES, VARIANTS, parse_fracs, parse_ints
    if p["conjecture"] not in NAMES:
        raise GridError(f"grid: conjecture must be one of {', '.join(NAMES)}, got {p['conjecture']!r}")
    v = p.get("variant")
    if v is not None and v not in VARIANTS[p["conjecture"]]:
        raise GridError(f"grid: variant of {p['conjecture']} must be one of "
                        f"{', '.join(VARIANTS[p['conjecture']])}, got {v!r}")
    given = [n for n in ("lam", "eps") if p.get(n) is not None]
    if len(given) > 1 or (not given and p["conjecture"] != "l1-claim"):
        raise GridError(f"grid: conjecture {p['conjecture']} needs exactly one of lam, eps"
                        + (" (got lam, eps)" if given else ""))
    if p.get("family") is not None and p["family"] not in FAMILIES:
        raise GridError(f"grid: family must be one of {', '.join(FAMILIES)}, got {p['family']!r}")
    try:
        parse_ints(_spec(p, "N"), domains.N)
        parse_ints(_spec(p, "L"), domains.L)
        parse_ints(_spec(p, "k"), domains.K)
        parse_fracs(_spec(p, "q"), domains.Q)
        for name, dom in (("lam", domains.LAM), ("eps", domains.EPS)):
            if p.get(name) is not None:
                parse_fracs(_spec(p, name), dom)
    except (ValueError, TypeError) as e:
        raise GridError(f"grid: {e}") from None


_TARGET = _num(domains.TARGET, help="target probability")
_POINT = {"N": _num(domains.N), "L": _num(domains.L), "q": _num(domains.Q),
          "lam": _num(domains.LAM), "eps": _num(domains.EPS), "direction": _DIR,
          "max_seconds": _MAXS}
_ETA = dict(_POINT, digits=_num(domains.DIGITS, 20), method=_choice(("exact", "fast"), "exact"),
            inclusive=Param("bool", default=False, help="P[R >= lam] instead of >"))
_DELTA = {k: v for k, v in _ETA.items() if k != "inclusive"}
_EPSILON = dict({k: v for k, v in _POINT.items() if k not in ("lam", "eps")},
                digits=_num(domains.DIGITS, 10), delta=_TARGET, eta=_TARGET)
_CALIBRATE = dict({k: v for k, v in _POINT.items() if k != "q"},
                  digits=_num(domains.DIGITS, 6), eta=_TARGET, delta=_TARGET,
                  method=_choice(("exact", "sigma3", "maurer", "local"), "exact"),
                  grid=_num(domains.BINS, 64))
_GUARANTEE = {"N": _num(domains.N), "L": _num(domains.L), "q": _num(domains.Q),
              "delta": _TARGET, "eps": _num(domains.EPS), "digits": _num(domains.DIGITS, 6),
              "max_seconds": _MAXS}
_SPEC = Param("spec")
_CONJECTURE = {"conjecture": _SPEC, "variant": Param("spec"),
               "N": _SPEC, "L": _SPEC, "q": _SPEC, "lam": _SPEC, "eps": _SPEC,
               "k": Param("spec", default="1"), "family": Param("spec"),
               "inclusive": Param("bool", default=False)}

#: The quantities a sweep can evaluate.  Adding one is one entry here.
QUANTITIES: dict[str, Quantity] = {
    "eta": Quantity(_eta_delta("eta"), _ETA, ("N", "L", "q"), (("lam", "eps"),),
                    help="eta = P[R > lam], certified (as exactdp eta)"),
    "delta": Quantity(_eta_delta("delta"), _DELTA, ("N", "L", "q"), (("lam", "eps"),),
                      help="delta(lam), certified (as exactdp delta)"),
    "epsilon": Quantity(_epsilon, _EPSILON, ("N", "L", "q"), (("delta", "eta"),),
                        help="smallest eps meeting a delta or eta target (as exactdp epsilon)"),
    "calibrate": Quantity(_calibrate, _CALIBRATE, ("N", "L"), (("lam", "eps"), ("eta", "delta")),
                          help="noise q meeting a target (as exactdp calibrate)"),
    "guarantee": Quantity(_guarantee, _GUARANTEE, ("N", "L", "q"), (("delta", "eps"),),
                          help="certified bracket on eps(delta) over every pair (as exactdp guarantee)"),
    "conjecture": Quantity(_conjecture, _CONJECTURE, ("conjecture", "N", "L", "q"),
                           (), _check_conjecture,
                           help="a conjecture check (as exactdp conjecture NAME)"),
}


# ----------------------------------------------------------------------------- grid
@dataclass(frozen=True)
class Point:
    """One grid point: ``given`` (as written in the grid), ``api`` (given +
    defaults, what the evaluation receives) and ``key`` (canonical JSON)."""

    key: str
    given: dict
    api: dict


@dataclass(frozen=True)
class Grid:
    quantity: str
    points: list            # distinct points, in grid order
    names: list             # parameter names of the grid file, in file order
    duplicates: int = 0     # points equal to an earlier one (e.g. q = "0.2" and "1/5")
    path: str | None = None


def parse_grid(data: dict, path: str | None = None) -> Grid:
    """Check a grid (the decoded TOML) and expand it to its points, before any work."""
    if not isinstance(data, dict):
        raise GridError("grid: expected a table of parameters")
    data = dict(data)
    qname = data.pop("quantity", None)
    if qname is None:
        raise GridError(f"grid: missing 'quantity' (one of {', '.join(QUANTITIES)})")
    if not isinstance(qname, str) or qname not in QUANTITIES:
        raise GridError(f"grid: unknown quantity {qname!r} (one of {', '.join(QUANTITIES)})")
    Q = QUANTITIES[qname]
    lists = {}
    for name, v in data.items():
        if name not in Q.params:
            raise GridError(f"grid: unknown parameter {name!r} for quantity {qname} "
                            f"(allowed: {', '.join(Q.params)})")
        vals = v if isinstance(v, list) else [v]
        if not vals:
            raise GridError(f"grid: {name} is an empty list")
        lists[name] = [(x, Q.params[name].canonical(name, x)) for x in vals]
    for name in Q.required:
        if name not in lists:
            raise GridError(f"grid: quantity {qname} needs the parameter {name}")
    for group in Q.one_of:
        given = [g for g in group if g in lists]
        if len(given) != 1:
            raise GridError(f"grid: quantity {qname} needs exactly one of {', '.join(group)}"
                            + (f" (got {', '.join(given)})" if given else ""))
    names = list(lists)
    points, seen, dup = [], set(), 0
    for combo in itertools.product(*(lists[n] for n in names)):
        given = {n: c[0] for n, c in zip(names, combo)}
        canon = {n: c[1] for n, c in zip(names, combo)}
        api = dict(given)
        for n, par in Q.params.items():
            if n not in given and par.default is not None:
                api[n] = par.default
                canon[n] = par.canonical(n, par.default)
        if Q.check is not None:
            try:
                Q.check(api)
            except GridError:
                raise
            except (ValueError, TypeError) as e:
                raise GridError(f"grid: {e}") from None
        key = json.dumps(dict(canon, quantity=qname), sort_keys=True, separators=(",", ":"))
        if key in seen:
            dup += 1
            continue
        seen.add(key)
        points.append(Point(key, given, api))
    return Grid(qname, points, names, dup, path)


def load_grid(path) -> Grid:
    """Read and check a TOML grid file (see the module doc)."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise GridError(f"grid: no such file {os.fspath(path)!r}") from None
    except IsADirectoryError:
        raise GridError(f"grid: {os.fspath(path)!r} is a directory") from None
    except OSError as e:
        raise GridError(f"grid: cannot read {os.fspath(path)!r}: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise GridError(f"grid: {os.fspath(path)!r} is not valid TOML: "
                        f"{str(e).splitlines()[0]}") from None
    return parse_grid(data, os.fspath(path))


# ----------------------------------------------------------------------------- one point
def evaluate_point(quantity: str, params: dict) -> dict:
    """Evaluate one point (runs on a Dask worker); never raises for a failed
    computation: the error is returned as ``status = "failed"``, ``error``."""
    t0 = time.perf_counter()
    try:
        out = dict(QUANTITIES[quantity].evaluate(dict(params)))
        out["status"], out["error"] = "ok", None
    except Exception as e:  # noqa: BLE001 -- stored with the point, the sweep goes on
        msg = str(e).splitlines()[0] if str(e) else ""
        out = {"lower": None, "upper": None, "method": params.get("method"), "result": None,
               "status": "failed", "error": f"{type(e).__name__}: {msg}".rstrip(": ")}
    out["seconds"] = round(time.perf_counter() - t0, 6)
    out["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return out


# ----------------------------------------------------------------------------- the sweep
def _import_distributed():
    try:
        import distributed  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError:
        raise ExactdpError(f"sweep needs dask.distributed and tqdm; {INSTALL_HINT}") from None
    return distributed


def _task_key(point: Point) -> str:
    import hashlib
    return "exactdp-" + hashlib.sha1(point.key.encode()).hexdigest()[:20]


def run_sweep(grid: Grid, store: Store, *, workers: int | None = None, scheduler: str | None = None,
              retry_failed: bool = False, progress: bool = True) -> dict:
    """Evaluate the points of ``grid`` not yet in ``store`` on Dask; commit each
    result as it completes.  Returns the summary (see :func:`main`)."""
    t0 = time.perf_counter()
    status = store.statuses([p.key for p in grid.points])
    todo = [p for p in grid.points
            if p.key not in status or (retry_failed and status[p.key] == "failed")]
    summary = {"grid": grid.path, "store": store.path, "quantity": grid.quantity,
               "points": len(grid.points), "duplicates_in_grid": grid.duplicates,
               "already_ok": sum(1 for s in status.values() if s == "ok"),
               "already_failed": sum(1 for s in status.values() if s == "failed"),
               "retried": sum(1 for p in todo if p.key in status),
               "computed": 0, "ok": 0, "failed": 0, "interrupted": False}
    if todo:
        distributed = _import_distributed()
        _compute(distributed, grid, store, todo, summary, workers, scheduler=scheduler, progress=progress)
    final = store.statuses([p.key for p in grid.points])
    summary["stored_ok"] = sum(1 for s in final.values() if s == "ok")
    summary["stored_failed"] = sum(1 for s in final.values() if s == "failed")
    summary["missing"] = len(grid.points) - len(final)
    summary["seconds"] = round(time.perf_counter() - t0, 3)
    return summary


class _LogProgress:
    """Progress for logs (stderr not a terminal): one line a minute at most."""

    def __init__(self, quantity: str, total: int, enabled: bool, every: float = 60.0):
        self.quantity, self.total, self.enabled, self.every = quantity, total, enabled, every
        self.t0 = self.last = time.monotonic()

    def __call__(self, done: int, failed: int):
        now = time.monotonic()
        if not self.enabled or now - self.last < self.every or done >= self.total:
            return
        self.last = now
        el = now - self.t0
        eta = el / done * (self.total - done)
        print(f"sweep {self.quantity}: {done}/{self.total} points ({failed} failed), "
              f"{el / 60:.1f} min elapsed, about {eta / 60:.1f} min left", file=sys.stderr,
              flush=True)


def _compute(distributed, grid, store, todo, summary, workers, *, scheduler, progress):
    from tqdm import tqdm
    for name in ("distributed", "tornado", "bokeh"):
        logging.getLogger(name).setLevel(logging.ERROR)
    cluster = None
    try:
        if scheduler:
            try:
                client = distributed.Client(scheduler, timeout="20s")
            except (OSError, TimeoutError, ValueError) as e:
                raise ExactdpError(f"scheduler: cannot connect to {scheduler!r}: "
                                   f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") \
                    from None
            summary["scheduler"] = scheduler
        else:
            n = workers or os.cpu_count() or 1
            cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address=None,
                                               silence_logs=logging.ERROR)
            client = distributed.Client(cluster)
            summary["workers"] = n
        with client:
            by_key = {_task_key(p): p for p in todo}
            futures = client.map(evaluate_point, [grid.quantity] * len(todo),
                                 [p.api for p in todo], key=list(by_key), pure=False)
            tty = sys.stderr.isatty()
            bar = tqdm(total=len(todo), desc=f"sweep {grid.quantity}", unit="pt",
                       file=sys.stderr, dynamic_ncols=True, disable=not (progress and tty))
            log = _LogProgress(grid.quantity, len(todo), enabled=progress and not tty)
            try:
                for fut in distributed.as_completed(futures):
                    p = by_key[fut.key]
                    try:
                        res = fut.result()
                    except Exception as e:  # noqa: BLE001 -- a lost worker, stored as failed
                        msg = str(e).splitlines()[0] if str(e) else ""
                        res = {"status": "failed", "error": f"{type(e).__name__}: {msg}"}
                    store.put(dict(res, key=p.key, quantity=grid.quantity, params=p.given))
                    fut.release()
                    summary["computed"] += 1
                    summary["ok" if res["status"] == "ok" else "failed"] += 1
                    bar.update(1)
                    log(summary["computed"], summary["failed"])
                    if summary["failed"]:
                        bar.set_postfix(failed=summary["failed"], refresh=False)
            except KeyboardInterrupt:
                summary["interrupted"] = True
                client.cancel(futures)
            finally:
                bar.close()
    finally:
        if cluster is not None:
            cluster.close()


# ----------------------------------------------------------------------------- showing the store
def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def show(grid: Grid, store: Store, fmt: str = "table", out=None) -> int:
    """Print the stored rows of the grid's points (``fmt``: table, csv or json)."""
    out = out or sys.stdout
    rows = store.rows([p.key for p in grid.points])
    cols = ["lower", "upper", "value", "method", "seconds", "status", "error"]
    if not any(r["value"] for r in rows):
        cols.remove("value")
    if "method" in grid.names:      # the grid's method is the result's method
        cols.remove("method")
    if fmt == "json":
        for r in rows:
            r.pop("key", None)
        json.dump(rows, out, indent=2)
        out.write("\n")
        return 0
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["quantity"] + grid.names + cols + ["attempts", "finished", "worker", "key"])
        for r in rows:
            w.writerow([r["quantity"]] + [_cell(r["params"].get(n)) for n in grid.names]
                       + [r["seconds"] if c == "seconds" else _cell(r[c]) for c in cols]
                       + [r["attempts"], r["finished"], r["worker"], r["key"]])
        return 0
    head = grid.names + cols
    body = [[_cell(r["params"].get(n)) for n in grid.names] + [_cell(r[c]) for c in cols]
            for r in rows]
    widths = [max([len(h)] + [len(b[i]) for b in body]) for i, h in enumerate(head)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip(), file=out)
    for b in body:
        print("  ".join(c.ljust(w) for c, w in zip(b, widths)).rstrip(), file=out)
    nfail = sum(1 for r in rows if r["status"] == "failed")
    print(f"({len(rows)} of {len(grid.points)} points of the grid stored, {nfail} failed; "
          f"{store.count()} rows in {store.path})", file=out)
    return 0


# ----------------------------------------------------------------------------- CLI
DESCRIPTION = ("Evaluate a grid of certified computations on Dask, storing each point in "
               "SQLite as it completes (rerun to resume). See docs/sweeps.md.")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The arguments of ``exactdp sweep`` (``--json``/``--quiet`` come from the CLI tree)."""
    ap.add_argument("grid", help="TOML grid file: quantity = one of "
                    f"{', '.join(QUANTITIES)}, and parameter lists")
    ap.add_argument("--store", required=True, help="SQLite file of results (created if absent)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--workers", help="processes of the local Dask cluster (default: CPU count)")
    g.add_argument("--scheduler", help="address of an existing Dask scheduler, tcp://HOST:8786")
    ap.add_argument("--retry-failed", action="store_true", help="evaluate stored failed points again")
    ap.add_argument("--show", action="store_true", help="print the stored table of the grid's points")
    ap.add_argument("--csv", action="store_true", help="with --show: CSV instead of a table")


def _fail(msg: str) -> int:
    print(f"exactdp sweep: error: {msg}", file=sys.stderr)
    return 2


def main(argv=None) -> int:
    """``exactdp sweep ARGS`` (the one CLI parser tree, :mod:`exactdp.apps.cli`)."""
    from .cli import main as cli_main
    return cli_main(["sweep", *(sys.argv[1:] if argv is None else argv)])


def command(args) -> int:
    """``exactdp sweep``: exit 0 when every point of the grid is stored ok, 1 when
    some are stored failed (or the sweep was interrupted), 2 on bad input."""
    try:
        workers = None
        if args.workers is not None:
            try:
                workers = int(args.workers)
            except ValueError:
                workers = 0
            if not 1 <= workers <= 4096:
                raise GridError(f"workers must be an integer in [1, 4096], got {args.workers!r}")
        if args.csv and not args.show:
            raise GridError("--csv goes with --show")
        grid = load_grid(args.grid)
        if args.show:
            with Store(args.store, readonly=True) as st:
                return show(grid, st, "csv" if args.csv else ("json" if args.json else "table"))
        _import_distributed()
        with Store(args.store) as st:
            summary = run_sweep(grid, st, workers=workers, scheduler=args.scheduler,
                                retry_failed=args.retry_failed, progress=not args.quiet)
    except (ValueError, TypeError, ExactdpError) as e:
        return _fail(str(e).splitlines()[0] if str(e) else type(e).__name__)
    except KeyboardInterrupt:
        print("exactdp sweep: interrupted; the points already stored are kept (rerun to resume)",
              file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(summary, indent=2))
    s = summary
    kept = s["already_failed"] - s["retried"]
    print(f"sweep {s['quantity']}: {s['points']} points; computed {s['computed']} ({s['ok']} ok, "
          f"{s['failed']} failed); {s['already_ok']} were already stored ok"
          + (f", {kept} stored failed kept (--retry-failed reruns them)" if kept else "")
          + f"; store {s['store']}; {s['seconds']:.1f} s"
          + ("; INTERRUPTED" if s["interrupted"] else ""), file=sys.stderr)
    if summary["interrupted"]:
        return 130
    return 0 if summary["stored_failed"] == 0 and summary["missing"] == 0 else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
