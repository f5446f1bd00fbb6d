"""Hatch build hook: copy the widgets' front-end files (top-level ``widgets/``) into
``oo_nb/static/`` before every build, so wheels and editable installs both find them as
package data (``oo_nb/static/`` is ignored by git: ``widgets/`` is the source)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ASSET_SUFFIXES = (".css", ".js", ".mjs")


class WidgetAssetsHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        source, target = root / "widgets", root / "oo_nb" / "static"
        if not source.is_dir():
            return
        target.mkdir(exist_ok=True)
        for asset in sorted(source.iterdir()):
            if asset.is_file() and asset.suffix in ASSET_SUFFIXES:
                shutil.copyfile(asset, target / asset.name)
        # git ignores the copies; artifacts are packaged all the same
        build_data.setdefault("artifacts", []).append("oo_nb/static/*")
