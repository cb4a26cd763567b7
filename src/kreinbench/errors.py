"""Exceptions that name the culprit (dataset, file, line, parameter)."""


class KreinbenchError(ValueError):
    """Base class of every error kreinbench raises on bad input: a ``ValueError``, as scikit-learn
    expects of an estimator given a bad parameter or bad data (``GridSearchCV``'s ``error_score``,
    ``check_estimator``)."""


class DataError(KreinbenchError, ValueError):
    """A dataset, raw file or split file is unusable; the message names which and where."""


class CacheMismatchError(KreinbenchError, ValueError):
    """A cached HDF5 file does not match what the caller asked for."""
