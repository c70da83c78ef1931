"""A run's summary (DESIGN.md §5.1, §6): accuracy and balanced accuracy by breakdown with their
bootstrap intervals (stats.py, bins.py), as the tables every run folder holds (tables.py). Below
the report, the run and the merge of shards, which all write or read it."""
