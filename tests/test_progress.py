"""exactdp.core.progress: a bar on a terminal, silent otherwise, no-op without tqdm."""

from __future__ import annotations

import io
import sys

import pytest

from exactdp.core import progress as P


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _drive(bar, steps=3):
    for i in range(steps):
        bar(i + 1, steps)
    bar.note("stage x")
    bar.close()


@pytest.mark.skipif(not P.tqdm_available(), reason="tqdm not installed")
def test_bar_drawn_on_a_terminal():
    s = _Tty()
    bar = P.Progress("work", enabled=True, delay=0, stream=s)
    assert bar.active
    _drive(bar)
    out = s.getvalue()
    assert "work" in out and "3/3" in out and "stage x" in out


@pytest.mark.parametrize("enabled,stream", [(False, _Tty()), (True, io.StringIO())])
def test_silent_when_disabled_or_not_a_terminal(enabled, stream):
    bar = P.Progress("work", enabled=enabled, delay=0, stream=stream)
    assert not bar.active
    _drive(bar)
    assert stream.getvalue() == ""


def test_no_op_without_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)      # import tqdm -> ImportError
    assert not P.tqdm_available()
    s = _Tty()
    bar = P.Progress("work", enabled=True, delay=0, stream=s)
    assert not bar.active
    _drive(bar)
    bar.update(2)
    assert s.getvalue() == "" and bar.n == 5


@pytest.mark.skipif(not P.tqdm_available(), reason="tqdm not installed")
def test_nothing_before_the_delay():
    s = _Tty()
    bar = P.Progress("work", enabled=True, delay=60, stream=s)
    _drive(bar)
    assert s.getvalue() == ""


def test_kernel_node_counter_protocol():
    """tail_sums reports (nodes, mass ball): a counter, no total."""
    bar = P.Progress("eta", enabled=False)
    bar(16384, object())
    assert bar.n == 16384 and bar.total is None


def test_iterate_counts():
    assert list(P.iterate(range(4), "x", enabled=False)) == [0, 1, 2, 3]


def test_proofs_json_and_quiet_write_nothing_on_stderr(capsys):
    from exactdp.oracles.proofs import main, topics
    t = "multivariate_003" if "multivariate_003" in topics() else topics()[0]   # ~2 s
    assert main(["--topic", t, "--json"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["--topic", t, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
