"""`python -m evaluate.suites FILE…` (the same as `python -m evaluate.suite`)."""

import sys

from .cli import main

sys.exit(main())
