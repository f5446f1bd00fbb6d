"""Changes a person asks for, not research: new documents (``new``), contract edits (``contract``
and the ``%%oo contract`` cell syntax in ``contract_cells``), and ``sync`` (page code, migration)."""
