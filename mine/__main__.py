import os
import sys

from .cli import main

if __name__ == "__main__":  # importing it (an API reference, a test) runs nothing
    code = main()
    # Every table is written and closed, and the pool is gone: the interpreter's teardown of
    # polars and pyarrow (~0.2 s, on the run's critical path) has nothing left to do.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
