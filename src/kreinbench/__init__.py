"""kreinbench: learning with indefinite kernels (Krein spaces), reproducibly."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kreinbench")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0+unknown"

__all__ = ["__version__"]
