"""``python -m irfair ...``: the ``irfair`` command line, as pyserini and ir_datasets users expect to call it."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
