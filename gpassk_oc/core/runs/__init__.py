"""A run's files: the results-file schema, the run record, run health, the summary sidecar, and scoring a run's predictions into a results file (pure core)."""
