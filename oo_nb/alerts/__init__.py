"""Alerts: telling someone when a library left running needs them (a sentinel's event occurred,
a proposal awaits review, an update failed or ran out of budget, a source went dead or moved).

A layer of its own above library, agent and store (it reads the changes frame, the update-all
outcome, proposals and link results; none of those may know about alerts) and below the CLI,
which calls it at the end of ``update-all`` and offers ``oo alerts``. Settings:
``DIR/.oo/alerts.json`` (``alerts.config``); record of what was sent: ``DIR/.oo/alerts-sent.jsonl``.
"""
