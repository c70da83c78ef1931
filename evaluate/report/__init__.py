"""What a reader sees: summary tables, bootstrap statistics, figures and the HTML report."""
