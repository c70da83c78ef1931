"""`python -m ud_agree` = `ud-agree`."""

import sys

from .cli import main

sys.exit(main())
