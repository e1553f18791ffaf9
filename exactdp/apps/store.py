"""The SQLite store of a sweep: one row per grid point, committed one at a time.

A sweep (:mod:`exactdp.apps.sweep`) writes the result of each point as soon as it
completes, in the client process, in its own transaction.  The database is in
WAL mode with ``synchronous=FULL``, so a row whose ``COMMIT`` returned is on
disk: killing the process at any moment (``kill -9`` included) loses nothing
that was committed, and a half-written row is never visible.

Schema (``points``; ``meta`` holds ``schema_version``)::

    key       TEXT PRIMARY KEY  -- canonical JSON of quantity + parameters (defaults filled in,
                                --   exact numbers as reduced fractions): "0.2" and "1/5" are one point
    quantity  TEXT NOT NULL     -- eta, delta, epsilon, calibrate, conjecture, ...
    params    TEXT NOT NULL     -- JSON of the parameters as given in the grid file
    lower     TEXT              -- certified lower end, a decimal string rounded outward
    upper     TEXT              -- certified upper end (NULL when the quantity has no interval)
    value     TEXT              -- a short verdict when there is one (conjecture: holds/false/undecided)
    method    TEXT              -- how the numbers were obtained (exact, fast, sigma3, ...)
    seconds   REAL              -- wall time of the evaluation on the worker
    status    TEXT NOT NULL     -- 'ok' or 'failed'
    error     TEXT              -- one line when status = 'failed'
    result    TEXT              -- JSON record of the evaluation (what ``exactdp ... --json`` prints)
    worker    TEXT              -- host:pid of the worker that computed it
    attempts  INTEGER NOT NULL  -- evaluations stored for this key (1, or more after --retry-failed)
    finished  TEXT NOT NULL     -- UTC time of the commit, ISO 8601

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
>>> with Store(path) as st:
...     st.put({"key": "k1", "quantity": "eta", "params": {"N": 2}, "lower": "0.1",
...             "upper": "0.2", "status": "ok"})
...     st.statuses()
{'k1': 'ok'}
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from datetime import datetime, timezone

from ..core.errors import ExactdpError

__all__ = ["Store", "StoreError", "COLUMNS", "SCHEMA_VERSION"]

SCHEMA_VERSION = "1"

COLUMNS = ("key", "quantity", "params", "lower", "upper", "value", "method", "seconds",
           "status", "error", "result", "worker", "attempts", "finished")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS points (
    key      TEXT PRIMARY KEY,
    quantity TEXT NOT NULL,
    params   TEXT NOT NULL,
    lower    TEXT,
    upper    TEXT,
    value    TEXT,
    method   TEXT,
    seconds  REAL,
    status   TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error    TEXT,
    result   TEXT,
    worker   TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    finished TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS points_quantity ON points (quantity, status);
"""


class StoreError(ExactdpError, ValueError):
    """The store file cannot be opened, created or written."""


class Store:
    """A sweep's SQLite store (see the module doc for the schema).

    ``readonly=True`` opens an existing file without creating or changing it.
    """

    def __init__(self, path, readonly: bool = False):
        self.path = os.fspath(path)
        try:
            if readonly:
                if not os.path.exists(self.path):
                    raise StoreError(f"store: no such file {self.path!r}")
                uri = "file:" + os.path.abspath(self.path) + "?mode=ro"
                self.conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30)
                self._check_version()
                return
            d = os.path.dirname(os.path.abspath(self.path))
            if not os.path.isdir(d):
                raise StoreError(f"store: directory {d!r} does not exist")
            if os.path.isdir(self.path):
                raise StoreError(f"store: {self.path!r} is a directory")
            # autocommit mode; transactions are explicit (BEGIN IMMEDIATE ... COMMIT)
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"store: cannot switch {self.path!r} to WAL mode (got {mode})")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.executescript(_SCHEMA)
            self._check_version()
            self.conn.execute("INSERT OR IGNORE INTO meta (name, value) VALUES "
                              "('schema_version', ?)", (SCHEMA_VERSION,))
        except sqlite3.Error as e:
            raise StoreError(f"store: cannot use {self.path!r} as a SQLite store: {e}") from None

    def _check_version(self):
        try:
            row = self.conn.execute(
                "SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
        except sqlite3.Error as e:
            raise StoreError(f"store: {self.path!r} is not a sweep store: {e}") from None
        if row is not None and row[0] != SCHEMA_VERSION:
            raise StoreError(f"store: {self.path!r} has schema version {row[0]}, "
                             f"this exactdp writes version {SCHEMA_VERSION}")

    # ------------------------------------------------------------------ context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.conn.close()

    # ------------------------------------------------------------------ reads
    def statuses(self, keys=None) -> dict:
        """``{key: status}`` of the stored points (only ``keys`` if given)."""
        rows = self.conn.execute("SELECT key, status FROM points").fetchall()
        out = dict(rows)
        if keys is not None:
            keys = set(keys)
            out = {k: v for k, v in out.items() if k in keys}
        return out

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM points").fetchone()[0]

    def rows(self, keys=None) -> list[dict]:
        """Stored rows as dicts (``params`` and ``result`` decoded), in ``keys``
        order when given (missing keys are skipped), else in commit order."""
        cur = self.conn.execute(f"SELECT {', '.join(COLUMNS)} FROM points ORDER BY rowid")
        rows = [dict(zip(COLUMNS, r)) for r in cur.fetchall()]
        for r in rows:
            r["params"] = json.loads(r["params"])
            r["result"] = json.loads(r["result"]) if r["result"] else None
        if keys is None:
            return rows
        by_key = {r["key"]: r for r in rows}
        return [by_key[k] for k in keys if k in by_key]

    # ------------------------------------------------------------------ writes
    def put(self, row: dict) -> None:
        """Insert or replace one point in its own transaction.

        A point stored ``ok`` is never overwritten (a repeated ``ok`` is
        ignored); a ``failed`` one is replaced by the new evaluation and its
        ``attempts`` counted.
        """
        vals = {c: row.get(c) for c in COLUMNS}
        vals["params"] = json.dumps(row["params"], sort_keys=True)
        vals["result"] = json.dumps(row["result"]) if row.get("result") is not None else None
        vals["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        vals["worker"] = row.get("worker") or f"{socket.gethostname()}:{os.getpid()}"
        vals["attempts"] = 1
        cols = [c for c in COLUMNS]
        upd = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in ("key", "attempts"))
        sql = (f"INSERT INTO points ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
               f"ON CONFLICT(key) DO UPDATE SET {upd}, attempts = points.attempts + 1 "
               "WHERE points.status != 'ok'")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute(sql, [vals[c] for c in cols])
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        except sqlite3.Error as e:
            raise StoreError(f"store: cannot write to {self.path!r}: {e}") from None
