"""A run's output: the chunked, resumable results writer and the readers of result folders."""
