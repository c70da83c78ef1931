"""What a reader sees: figures, heatmaps and the HTML report over run folders (the summary tables
and their statistics are `evaluate.summary`)."""
