"""guarantee at deployment sizes: a wall-clock limit with a clear one-line answer."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_timeout_is_one_line_with_the_published_bound():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "exactdp", "guarantee", "-N", "10000000", "-L", "40",
                        "-q", "0.351", "--delta", "1e-6", "--max-seconds", "2"],
                       capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "did not finish within --max-seconds 2" in lines[0]
    assert "variation-ratio" in lines[0] and "eps <= 12.05" in lines[0]


def test_bad_max_seconds(capsys):
    from exactdp.apps.cli import main
    assert main(["guarantee", "-N", "40", "-L", "1", "-q", "1/4", "--delta", "1e-3",
                 "--max-seconds", "0"]) == 2
    err = capsys.readouterr().err
    assert "--max-seconds must be" in err and len(err.strip().splitlines()) == 1
