"""Peers' minimal-pair suites (DESIGN.md §7): readers, SyntaxGym predictions, scoring, results.

`python -m evaluate.suite FILE…` runs them (`evaluate/suite.py`); `load_suite_results(path)` reads
what it wrote.
"""

from .results import load_suite_results

__all__ = ["load_suite_results"]
