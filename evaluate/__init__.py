"""ud-agree evaluator: masked-LM agreement accuracy over a mined corpus."""

from .output.results import load_results

__all__ = ["load_results"]
