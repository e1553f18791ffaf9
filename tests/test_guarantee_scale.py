"""guarantee at deployment sizes: a wall-clock limit with a clear one-line answer."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_timeout_is_one_line_with_the_published_bound():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "exactdp", "guarantee", "-N", "10000000", "-L", "40",
                        "-q", "0.351", "--delta", "1e-6", "--max-seconds", "0.05"],
                       capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "did not finish within --max-seconds 0.05" in lines[0]
    # every valid bound is (within 1e-4) eps0 = 40 log(649/351) = 24.5859 here; the refuted
    # variation-ratio pair (12.05) is never quoted
    assert "variation-ratio" not in lines[0] and "eps <= 24.58" in lines[0]


def test_bad_max_seconds(capsys):
    from exactdp.apps.cli import main
    assert main(["guarantee", "-N", "40", "-L", "1", "-q", "1/4", "--delta", "1e-3",
                 "--max-seconds", "0"]) == 2
    err = capsys.readouterr().err
    assert "--max-seconds must be" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_deployment_L40_N1e7_finishes_with_the_forward_direction():
    """L = 40, N = 10^7: beyond the tree; the reverse direction is certified not worse by one
    delta query (skipped), so the bracket comes in well under the old ~500 s."""
    import time
    from fractions import Fraction as F
    from exactdp.apps.guarantee import guarantee
    from exactdp.apps.peers import REFUTED, clone_epsilon, exp_eps0_rr
    t = time.monotonic()
    g = guarantee(10**7, 40, "0.351", delta="1e-6", digits=4)
    assert time.monotonic() - t < 400
    assert g.lower_direction == "forward" and 5.9 < g.lower < 6.0
    assert g.upper_bound not in REFUTED
    e0 = exp_eps0_rr(40, F(351, 1000))
    assert g.upper <= clone_epsilon(10**7, e0, F(1, 10**6), rel=1e-4).upper
