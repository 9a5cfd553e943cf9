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
