"""Checks that an output path can be written, made *before* any long work.

The command line writes pictures (``dist --plot FILE``) and figure directories
(``figures OUTDIR``) at the end of a computation that may take minutes; these
checks refuse an unwritable destination up front, in one line naming the
parameter (a :class:`~exactdp.core.errors.ParameterError`, exit code 2 on the CLI).

>>> writable_file("/nonexistent-dir/x.png", "--plot")
Traceback (most recent call last):
...
exactdp.core.errors.ParameterError: --plot: directory '/nonexistent-dir' does not exist
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import ParameterError

__all__ = ["writable_file", "writable_dir"]


def writable_file(path, name: str) -> Path:
    """Return ``Path(path)`` if a file can be created or overwritten there."""
    p = Path(path)
    if str(path).strip() == "":
        raise ParameterError(f"{name}: empty file name")
    if p.is_dir():
        raise ParameterError(f"{name}: '{p}' is a directory, expected a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ParameterError(f"{name}: directory '{parent}' does not exist")
    if p.exists() and not os.access(p, os.W_OK):
        raise ParameterError(f"{name}: '{p}' is not writable")
    if not p.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise ParameterError(f"{name}: directory '{parent}' is not writable")
    return p


def writable_dir(path, name: str) -> Path:
    """Create ``path`` (with parents) if missing and return it if writable."""
    p = Path(path)
    if str(path).strip() == "":
        raise ParameterError(f"{name}: empty directory name")
    if p.exists() and not p.is_dir():
        raise ParameterError(f"{name}: '{p}' exists and is not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ParameterError(f"{name}: cannot create directory '{p}': {e.strerror or e}") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise ParameterError(f"{name}: directory '{p}' is not writable")
    return p
