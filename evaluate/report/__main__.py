"""`python -m evaluate.report RESULTS… --out DIR`."""

import sys

from .html import main

sys.exit(main())
