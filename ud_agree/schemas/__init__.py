"""The tables' contract, declared once: the miner's corpus tables, the evaluator's results and the
suites' results. Both tools import it; neither imports the other."""
