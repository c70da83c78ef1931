"""ud-agree evaluator: masked and causal LMs and a frequency baseline scored on a mined corpus's
agreement relations (class-average reading) and minimal pairs (pair reading), and on peers' suites."""

from .output.results import load_results

__all__ = ["load_results"]
