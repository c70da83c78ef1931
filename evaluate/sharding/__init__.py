"""Sharded runs: the pure `--shard K/N` spec (`spec`); a set of shards is read as one run by the
store (`evaluate.output.store`) and merged by `python -m evaluate.merge`."""
