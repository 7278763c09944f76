"""The offline demo: bundled problems, a simulated endpoint, the real OpenCompass CLI."""
