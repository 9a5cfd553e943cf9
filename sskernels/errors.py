"""User-facing errors.

Every error a user can cause (a bad spec field, an unknown data set or method, a
corrupt or unreachable data file) is raised as a :class:`UserError`.  The CLI
prints its message as one line and exits with code 2, without a traceback.
"""


class UserError(Exception):
    """An error in the user's input; the message is one line, shown as is."""

    exit_code = 2


class SpecError(UserError):
    """A malformed experiment spec: names the file, the field and what was expected."""

    def __init__(self, path, field, expected, got=None):
        self.path, self.field, self.expected, self.got = str(path), field, expected, got
        msg = f"{_short(self.path)}: field '{_short(str(field))}': expected {expected}"
        if got is not None:
            msg += f", got {_short(repr(got))}"
        super().__init__(msg)


def _short(text, limit=200):
    """One line of at most ``limit`` characters (a 100 KB name stays a readable error)."""
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


class DataError(UserError):
    """A data set that cannot be fetched, verified or parsed."""


class UnknownNameError(UserError):
    """An unknown data set or method name."""


class ParameterError(ValueError, TypeError):
    """A parameter value a learner, graph or solver refuses (out of range, inconsistent with
    the data): the user's error, shown as one line by the runner.  A ``ValueError`` (and a
    ``TypeError``) too, as scikit-learn's estimator checks expect."""


class SolveFailure(RuntimeError):
    """A numerical solver that could not solve the problem these inputs pose (no optimum
    within its limits, e.g. HiGHS's status "Unknown" at extreme parameter values): reported
    to the user as one line, like a parameter error, since it is about the spec's values;
    :class:`sskernels.solvers.SolverError` is one."""


class InternalError(Exception):
    """An unexpected exception inside a fit: a defect of ours, not the user's.  ``detail``
    holds the traceback where it was raised (formatted there, so that it survives a
    process boundary); the CLI shows it and exits with code 1."""

    exit_code = 1

    def __init__(self, message, detail=""):
        super().__init__(message, detail)
        self.message, self.detail = message, detail

    def __str__(self):
        return self.message


def is_user_error(exc):
    """Tell whether an exception reports the user's input.

    True for a :class:`UserError`, a :class:`ParameterError`, a :class:`SolveFailure`, or
    scikit-learn's ``InvalidParameterError`` (an estimator's ``_parameter_constraints``).

    Parameters
    ----------
    exc : BaseException
        The exception to classify.

    Returns
    -------
    bool
        True when ``exc`` is one of the classes above (or a subclass of one), False otherwise
        (also when scikit-learn's ``InvalidParameterError`` cannot be imported).

    Examples
    --------
    >>> from sskernels.errors import ParameterError, is_user_error
    >>> is_user_error(ParameterError("k must be positive")), is_user_error(KeyError("k"))
    (True, False)
    """
    if isinstance(exc, (UserError, ParameterError, SolveFailure)):
        return True
    try:
        from sklearn.utils._param_validation import InvalidParameterError
    except ImportError:  # pragma: no cover - scikit-learn moved it
        return False
    return isinstance(exc, InvalidParameterError)
