"""Loaded by pytest before anything is collected, for ``tests/`` and for ``notebooks/`` under
nbval alike: the run reads none of the machine's user settings (tests/support/isolation.py)."""

from tests.support.isolation import isolate

SETTINGS_HOME = isolate()
