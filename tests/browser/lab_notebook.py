"""Write a scratch notebook of code cells, open it in the test JupyterLab and run all its cells:
the steps every JupyterLab test of a magic's output shares."""

from __future__ import annotations

import json
from typing import Any

from tests.browser.conftest import LabServer
from tests.browser.test_lab_review import NOTEBOOK_READY, RUN_FINISHED

__all__ = ["notebook_json", "open_and_run"]


def notebook_json(cells: list[str]) -> str:
    code = [
        {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
        for src in cells
    ]
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return json.dumps(
        {"cells": code, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    )


def open_and_run(page: Any, lab_server: LabServer, relpath: str, cells: list[str]) -> None:
    """Write ``cells`` to ``relpath`` under the server's root, open it and Run All (after the
    kernel is idle: before, Run All can silently do nothing)."""
    (lab_server.root / relpath).write_text(notebook_json(cells), "utf-8")
    page.set_default_timeout(60_000)
    page.goto(lab_server.lab_url(relpath))
    page.wait_for_function(NOTEBOOK_READY, polling=200, timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(RUN_FINISHED, polling=250, timeout=180_000)
