"""``python3 -m oo_nb`` is the same program as ``oo``."""

import sys

from oo_nb.cli.main import main

sys.exit(main())
