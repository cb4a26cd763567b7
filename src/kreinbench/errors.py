"""Exceptions that name the culprit (dataset, file, line, parameter)."""


class KreinbenchError(Exception):
    """Base class of every error kreinbench raises on bad input."""


class DataError(KreinbenchError, ValueError):
    """A dataset, raw file or split file is unusable; the message names which and where."""


class CacheMismatchError(KreinbenchError, ValueError):
    """A cached HDF5 file does not match what the caller asked for."""
