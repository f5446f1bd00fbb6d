"""The ``oo`` command line: ``main`` parses and runs one verb; one module per verb, each a plain
``run(ns)`` returning data (``verbs`` lists them) that the ``%oo`` magic shares."""

from oo_nb.cli.main import main

__all__ = ["main"]
