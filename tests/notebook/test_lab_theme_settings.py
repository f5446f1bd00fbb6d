"""The preview's theme from JupyterLab's settings file as JupyterLab keeps it: JSON5, with the
comments it writes, trailing commas and comments after a value (the Settings Editor accepts
both), not only strict JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.notebook.lab_context import lab_theme_is_dark

_FILE = Path("@jupyterlab") / "apputils-extension" / "themes.jupyterlab-settings"


@pytest.mark.parametrize(
    ("text", "dark"),
    [
        ('{\n    // Selected Theme\n    "theme": "JupyterLab Dark",\n}\n', True),
        ('{\n    "theme": "JupyterLab Dark" // mine\n}\n', True),
        ('{\n  // "theme": "JupyterLab Dark",\n  "theme": "JupyterLab Light",\n}\n', False),
        ('{\n  "theme": "JupyterLab Dark",\n  "adaptive-theme": true,\n}\n', None),
        ('{"theme": "JupyterLab Dark"}', True),
        ("not settings at all", None),
    ],
)
def test_the_theme_is_read_from_jupyterlabs_own_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, dark: bool | None
) -> None:
    target = tmp_path / _FILE
    target.parent.mkdir(parents=True)
    target.write_text(text, "utf-8")
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path))
    monkeypatch.delenv("OO_PREVIEW_THEME", raising=False)
    assert lab_theme_is_dark() is dark
