"""Small numpy helpers of the reader."""

from __future__ import annotations

import numpy as np

MAX_DIGITS = 8  # IDs and HEADs read from one 8-byte word; longer ones in Python


def everything(index: np.ndarray, n: int) -> bool:
    """Whether an increasing index of n items picks all of them."""
    return len(index) == n and (n == 0 or index[-1] == n - 1)


def pick(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """values[index] for an increasing index, without a copy when it picks everything."""
    return values if everything(index, len(values)) else values[index]
