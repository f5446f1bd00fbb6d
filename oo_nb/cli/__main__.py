"""``python -m oo_nb.cli``: the same program as ``oo`` and ``python -m oo_nb``."""

import sys

from oo_nb.cli.main import main

sys.exit(main())
