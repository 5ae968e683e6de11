"""``python -m irfair ...``: the ``irfair`` command line, as pyserini and ir_datasets users expect to call it."""
from .cli import run

if __name__ == "__main__":
    run()
