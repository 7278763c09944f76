"""The package version, in one place: the package, the results files' writer field and
pyproject (read statically by setuptools) take it from here. A leaf module, so the pure
core can name its writer without importing the package's API module."""

__version__ = "0.3.0"
