"""``python3 -m oo_nb`` is the same program as ``oo``."""

import sys

from .cli import main

sys.exit(main())
