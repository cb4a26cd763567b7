"""kreinbench: learning with indefinite kernels (Krein spaces), reproducibly."""

# The one place the version is written (pyproject.toml reads it).  Not looked up with
# importlib.metadata, whose import took 45 ms of every pipeline job's start-up.
__version__ = "0.1.0"

__all__ = ["__version__"]
