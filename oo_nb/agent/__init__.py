"""The research agent: context, backends, budget, proposal -> candidate document.

The agent never writes a file: it returns a candidate for review (or ``--yes``) and the store writes.
"""
