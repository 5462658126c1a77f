"""``python -m bounds``: see :mod:`bounds.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
