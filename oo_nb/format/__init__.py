"""The o-o format: bytes in, typed views out, edits spliced back byte for byte.

``document`` (the codec: spans, parse, to_bytes, with_block / with_article), ``jsonblock`` and
``jsonsplice`` (the four JSON blocks, rewritten value by value), ``blocks`` (typed views of every
block variant), ``article`` (sections, pids, ``[sN]``, references), ``legacy_script`` (the
original page script's quirks), ``sanitize`` (the one HTML allow-list), ``check``, ``findings``,
``slug``, ``summary``, ``surrogates`` (text no UTF-8 file can hold), ``display`` (the seam a notebook's rich display plugs into), ``names``
(every name of the format) and ``template/`` (the page code documents we write carry).
Nothing here writes a file, reaches the network or displays anything.
"""
