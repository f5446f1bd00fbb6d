"""Jupyter: the ``%oo`` magic (``magics``), what each verb returns in a notebook (``results``),
sandboxed previews, the review widget and the live update view. No business logic: every verb
runs the same function the ``oo`` CLI runs (``oo_nb.cli``)."""
