"""The report's output formats, one module each, registered once in :mod:`.format_registry`."""
