"""Data: LiveMathBench files and versions, and the config/abbr naming convention (pure core)."""
