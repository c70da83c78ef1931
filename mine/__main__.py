import os
import sys

from .cli import main


def _owns_process() -> bool:
    """Whether the interpreter was started to run this command (`python -m mine`), not a
    program that runs it in-process (`runpy`: a test, a notebook), which must go on after it."""
    argv = getattr(sys, "orig_argv", [])
    package = __spec__.parent if __spec__ is not None else None
    return "-m" in argv and argv[argv.index("-m") + 1 :][:1] == [package]


if __name__ == "__main__":  # importing it (an API reference, a test) runs nothing
    code = main()
    if code == 0 and _owns_process():
        # Every table is written and closed, and the pool is gone: the interpreter's teardown
        # of polars and pyarrow (~0.2 s, on the run's critical path) has nothing left to do.
        # A failed or stopped run exits as usual: its pool's semaphores are released there.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
