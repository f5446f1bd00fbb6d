"""A folder of documents as data: the walk's per-document digests (``digest``, ``pool``), the
pandas frames (``frames``, ``library``), the audit, plots, and the index page. Reads documents;
writes only the index page, through the store."""
