"""`python -m evaluate.suite FILE…`: the suites' command line, which lives in `suites/cli.py`."""

import sys

from .suites.cli import main

if __name__ == "__main__":
    sys.exit(main())
