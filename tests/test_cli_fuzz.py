"""Fuzzing the command line: random argument lists end in exit 0 or 2, never a traceback.

Argument lists are drawn from a vocabulary of subcommands, options and good
and bad values (small N and L so that every case is quick) and run in-process
through :func:`exactdp.apps.cli.main`.  An uncaught exception fails the test; exit
code 2 must come with a one-line message on stderr; ``SystemExit`` from
argparse (``--help``, usage errors) must carry code 0 or 2.
"""

from __future__ import annotations

import contextlib
import io
from datetime import timedelta

import pytest
from hypothesis import event, given, settings, strategies as st

from exactdp.apps.cli import main

SUBCOMMANDS = ["eta", "delta", "epsilon", "dist", "calibrate", "bogus"]
VALUES = {
    "-N": ["1", "3", "8", "0", "-2", "2.5", "abc", "1e3", "10**9", ""],
    "-L": ["1", "2", "3", "0", "65", "x", "1/2"],
    "-q": ["1/4", "0.2", "1/3", "0", "0.5", "1e-400", "0.49999999999999999999", "nan",
           "-0.1", "1/0", "0.6", "1e-5", "3/7"],
    "--lam": ["2", "1", "3/2", "0.5", "inf", "1e-400", "1e400", "x", "-1"],  # 1e400: dist once overflowed
    "--eps": ["0.5", "1", "0", "-1", "701", "nan", "1e-400"],
    "--digits": ["3", "6", "0", "301", "x", "2.5"],
    "--delta": ["0.1", "0.01", "1e-400", "1e-300", "0", "1", "2", "x"],
    "--eta": ["0.1", "0.3", "1e-400", "0", "1", "-1"],
    "--bins": ["3", "5", "0", "-1", "x"],
    "--grid": ["4", "8", "0", "1", "x"],
    "--direction": ["forward", "reverse", "worst", "sideways"],
    "--method": ["exact", "sigma3", "maurer", "local", "magic"],
    "--max-seconds": ["30", "0", "-1", "inf", "nan", "x"],
    "--plot": ["/nonexistent-dir/x.png", "/"],
}
FLAGS = ["--json", "--fast", "--quiet", "--inclusive", "--help"]


GOOD = {"eta": ["--lam", "2"], "delta": ["--eps", "1"], "epsilon": ["--delta", "0.1"],
        "dist": ["--bins", "3"], "calibrate": ["--lam", "2", "--eta", "0.3", "--grid", "4"],
        "bogus": []}


@st.composite
def argvs(draw):
    sub = draw(st.sampled_from(SUBCOMMANDS))
    argv = [sub]
    # half of the draws start from a valid command line, so that deeper code is reached
    if draw(st.booleans()):
        argv += ["-N", "3", "-L", "2"] + ([] if sub == "calibrate" else ["-q", "1/4"]) + GOOD[sub]
    else:
        for opt in ("-N", "-L", "-q"):
            if draw(st.integers(0, 9)) < 8:
                argv += [opt, draw(st.sampled_from(VALUES[opt]))]
    n = draw(st.integers(0, 3))
    for _ in range(n):
        if draw(st.booleans()):
            argv.append(draw(st.sampled_from(FLAGS[:-1] if draw(st.integers(0, 19)) else FLAGS)))
        else:
            opt = draw(st.sampled_from(sorted(VALUES)))
            argv += [opt, draw(st.sampled_from(VALUES[opt]))]
    if "--quiet" not in argv:
        argv.append("--quiet")
    return argv


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:  # argparse: --help (0) or a usage error (2)
            rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    return rc, out.getvalue(), err.getvalue()


@settings(max_examples=150, deadline=timedelta(seconds=30))
@given(argv=argvs())
def test_random_argv_exit_0_or_2(argv):
    rc, out, err = run(argv)
    event(f"exit {rc}")
    assert rc in (0, 2), (argv, rc, err)
    assert "Traceback" not in err and "Traceback" not in out
    if rc == 2:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert lines and "error" in lines[-1], (argv, err)
        if not lines[0].startswith("usage:"):   # argparse prints usage + one error line
            assert len(lines) == 1, (argv, err)


@pytest.mark.parametrize("argv,needle", [
    (["eta", "-N", "10", "-L", "2", "-q", "1e-400", "--lam", "2"], "q is too small"),
    (["eta", "-N", "10", "-L", "2", "-q", "0.4999999999999999999999", "--lam", "2"], "1/2"),
    (["epsilon", "-N", "10", "-L", "2", "-q", "0.2", "--delta", "1e-400"], "delta target"),
    (["calibrate", "-N", "10", "-L", "2", "--lam", "2", "--eta", "0.1", "--grid", "0"], "grid"),
    (["dist", "-N", "10", "-L", "2", "-q", "0.2", "--plot", "/nonexistent-dir/x.png"], "--plot"),
    (["conjecture", "verify", "/nonexistent-dir/cert.json"], "FILE"),
    (["figures", "/proc/no-such-dir/figs"], "outdir"),
])
def test_named_bad_inputs(argv, needle):
    rc, out, err = run(argv + ["--quiet"] if argv[0] not in ("conjecture", "figures") else argv)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1 and needle in lines[0], (rc, err)


def test_calibrate_refusals_name_real_options():
    rc, _, err = run(["calibrate", "-N", "2", "-L", "1", "--lam", "10000", "--eta", "0.5",
                      "--grid", "8", "--quiet"])
    assert rc == 2 and "--eta" in err and "q_min" not in err, err
    rc, _, err = run(["calibrate", "-N", "2", "-L", "1", "--lam", "1", "--eta", "1e-9",
                      "--grid", "8", "--quiet"])
    assert rc == 2 and "--eta" in err and "q_min" not in err, err


def test_closed_pipe_is_quiet():
    import subprocess
    import sys
    cmd = (f"{sys.executable} -m exactdp dist -N 50 -L 3 -q 1/4 --bins 400 --fast --quiet "
           "| head -c 10 > /dev/null")
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr



def test_calibrate_huge_lam_is_one_line_exit_2(capsys):
    """Found by the fuzz test: calibrate with lam = 1e400 overflowed a float."""
    from exactdp.apps.cli import main
    rc = main(["calibrate", "-N", "3", "-L", "2", "--eta", "0.3", "--grid", "4",
               "--lam", "1e400", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "lam must be" in err
