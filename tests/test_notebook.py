"""The tour notebook executes top to bottom without errors, in this interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "exactdp_tour.ipynb"


def test_notebook_saved_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs") and cell.get("execution_count") is None


@pytest.mark.slow
def test_notebook_executes():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    # the kernel ran in the same environment as the tests (jupyter_client maps the
    # kernelspec's "python" to sys.executable)
    first = "".join(o.get("text", "") for o in nb.cells[1].outputs if o.output_type == "stream")
    assert f"interpreter prefix: {sys.prefix}" in first
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "display_data" and "image/png" in o.get("data", {})]
    assert len(images) >= 2
