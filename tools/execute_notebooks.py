"""Run the notebooks top to bottom and save their outputs in place, as nbval then compares them
(``make notebooks``; after a change to what a verb shows). Runs on the test suite's own settings
folders (``tests/support/isolation.py``), so your theme, IPython profile or API key never end up
in a saved output, and in each notebook's folder, as JupyterLab and nbval run them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/*.ipynb")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may take")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.support.isolation import isolate

    isolate()  # before the kernel starts: it inherits this environment
    import nbformat
    from nbclient import NotebookClient

    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
        client = NotebookClient(
            notebook,
            timeout=args.timeout,
            kernel_name="python3",
            record_timing=False,  # no wall-clock noise in the diff
            store_widget_state=False,  # MBs of widget models; the widgets' text repr is saved
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute()
        nbformat.write(notebook, path)  # type: ignore[no-untyped-call]
        print(f"executed {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
