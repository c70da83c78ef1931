"""`python -m ud_agree` = `ud-agree`."""

import sys

from .cli import main

if __name__ == "__main__":  # importing it (an API reference, a test) runs nothing
    sys.exit(main())
