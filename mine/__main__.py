import os
import sys

from .cli import main
from .pool import started_for_command

if __name__ == "__main__":  # importing it (an API reference, a test) runs nothing
    code = main()
    if code == 0 and started_for_command():
        # Every table is written and closed, and the pool is gone: the interpreter's teardown
        # of polars and pyarrow (~0.2 s, on the run's critical path) has nothing left to do.
        # A failed or stopped run exits as usual, through the interpreter's teardown.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
