"""Notebook display: sandboxed previews and widgets (imported only when shown)."""
