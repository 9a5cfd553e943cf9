"""The validation helpers: one-line errors (:func:`one_line`, :func:`_error`) and the
validator ``_V`` of the fields' types and ranges, which every section's check uses.
"""

from __future__ import annotations

from sskernels.errors import SpecError
from sskernels.spec.fields import maximum_reason
from sskernels.spec_limits import _finite


def one_line(text, limit=None):
    """``text`` as one printable line.

    Every character that is not printable, and so every
    one :meth:`str.splitlines` breaks at (``\\n``, ``\\r``, ``\\x0b``, ``\\x0c``,
    ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``, ``\\u2029``), is written as its escape;
    longer than ``limit`` characters (when given), it is cut and says how long it was.

    Parameters
    ----------
    text : object
        The text (anything else is taken as its ``str``).
    limit : int, default=None
        The most characters kept; None for no limit.

    Returns
    -------
    str
        The line.
    """
    text = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in str(text))
    if limit is not None and len(text) > limit:
        return f"{text[:limit]}... ({len(text)} characters)"
    return text


def _error(path, field_, expected, got=None):
    """A :class:`SpecError` whose message is one line whatever the path, the field's name or
    the values quoted in ``expected`` hold (``got`` is quoted by its ``repr``)."""
    return SpecError(one_line(path), one_line(field_), one_line(expected), got)


class _V:
    def __init__(self, path):
        self.path = path

    def fail(self, field_, expected, got=None):
        raise _error(self.path, field_, expected, got)

    def mapping(self, value, field_, allowed):
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(field_, "a mapping", value)
        for key in value if allowed is not None else ():
            if key not in allowed:
                self.fail(
                    f"{field_}.{key}" if field_ else str(key),
                    f"one of the fields {', '.join(allowed)} (unknown field)",
                )
        return value

    def integer(self, value, field_, minimum=None, maximum=None):
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field_, "an integer", value)
        if minimum is not None and value < minimum:
            self.fail(field_, f"an integer >= {minimum}", value)
        if maximum is not None and value > maximum:
            self.fail(field_, f"an integer <= {maximum} ({maximum_reason(field_)})", value)
        return value

    def number(
        self, value, field_, positive=False, optional=False, minimum=None, maximum=None, reason=None
    ):
        """A finite number (nan and inf are refused everywhere), within ``[minimum,
        maximum]`` when given (``reason``: why, said in the error); ``optional``: None
        passes."""
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(
                field_,
                "a number" + (" or null" if optional else "") + _yaml_number_hint(value),
                value,
            )
        if not _finite(value):
            self.fail(field_, "a finite number (within the range of a float)", value)
        if positive and not value > 0:
            self.fail(field_, "a positive number", value)
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            lo = "" if minimum is None else f" >= {minimum:g}"
            hi = "" if maximum is None else f" <= {maximum:g}"
            self.fail(
                field_,
                f"a number{lo}{' and' if lo and hi else ''}{hi}"
                + (f" ({reason})" if reason else ""),
                value,
            )
        return float(value)

    def choice(self, value, field_, choices):
        if value not in choices:
            self.fail(field_, f"one of {', '.join(choices)}", value)
        return value

    def string(self, value, field_, optional=False):
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(field_, "a non-empty string", value)
        return value


def _yaml_number_hint(value):
    """A hint for a text that reads as a number (YAML 1.1 reads ``1e300`` as a string)."""
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return ""
        return " (YAML reads an exponent without a dot and sign as text: write 1.0e+300)"
    return ""
