"""Exceptions that name the culprit (dataset, file, line, parameter)."""

import difflib


class KreinbenchError(ValueError):
    """Base class of every error kreinbench raises on bad input: a ``ValueError``, as scikit-learn
    expects of an estimator given a bad parameter or bad data (``GridSearchCV``'s ``error_score``,
    ``check_estimator``)."""


class DataError(KreinbenchError):
    """A dataset, raw file or split file is unusable; the message names which and where."""


class CacheMismatchError(KreinbenchError):
    """A cached HDF5 file does not match what the caller asked for."""


def did_you_mean(name: object, candidates) -> str:
    """``" (did you mean 'moons'?)"`` when ``name`` is close to one of ``candidates`` (a typo), else ``""``."""
    close = difflib.get_close_matches(str(name), [str(c) for c in candidates], n=3)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def raise_together(problems: list[str]) -> None:
    """Raise every problem found in one error (a user fixes them in one try), none: return."""
    if len(problems) == 1:
        raise KreinbenchError(problems[0])
    if problems:
        raise KreinbenchError(f"{len(problems)} problems:\n" + "\n".join(f"- {p}" for p in problems))
