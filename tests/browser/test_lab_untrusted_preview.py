"""A saved notebook opened untrusted (yours after a restart, a colleague's) drops the preview's
iframe: the output was blank until the cell ran again. Now it reads as text: the document's
title, version, date and opening, and how to see the preview. Checked in a real JupyterLab on a
notebook whose outputs were saved without a signature; screenshot in
test-artifacts/lab-untrusted-preview.png."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.notebook.preview import ArticlePreview
from tests.browser.conftest import LabServer, Probe
from tests.browser.test_lab_review import NOTEBOOK_READY
from tests.conftest import CORPUS

NOTEBOOK = "notebooks/scratch-untrusted.ipynb"


def _saved_notebook(bundle: dict[str, str]) -> str:
    cell = {
        "cell_type": "code",
        "metadata": {},
        "source": "%oo show agi-declared.o-o.html",
        "execution_count": 1,
        "outputs": [
            {"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": bundle}
        ],
    }
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return json.dumps(
        {"cells": [cell], "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    )


def test_a_saved_preview_reads_as_text_when_untrusted(
    lab_server: LabServer, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    preview = ArticlePreview(Document.read(CORPUS / "agi-declared.o-o.html"))
    (lab_server.root / NOTEBOOK).write_text(_saved_notebook(preview._repr_mimebundle_()), "utf-8")
    probe = open_page(allow=(lab_server.url,), viewport={"width": 1280, "height": 720})
    page = probe.page
    page.goto(lab_server.lab_url(NOTEBOOK))
    page.wait_for_function(NOTEBOOK_READY, polling=200, timeout=90_000)
    output = page.locator(".jp-OutputArea-output").first
    output.wait_for(state="visible")
    page.screenshot(path=str(artifacts / "lab-untrusted-preview.png"))
    assert output.locator("iframe").count() == 0  # untrusted: the frame is dropped
    text = output.inner_text()
    assert "AGI Declared, version 2, as of 2026-02-17: As of February 2026" in text, text
    assert "run the cell to see it" in text
