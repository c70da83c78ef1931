"""Sharded runs: the pure `--shard K/N` spec (`spec`) apart from reading and merging shards (`merging`)."""
