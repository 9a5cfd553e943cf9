"""Reading a spec file's YAML: bounded, strict about its types, and every failure one
exception.

:func:`read_yaml` is PyYAML's safe loader with these changes, so that whatever a spec file
holds, reading it ends with a plain document (text, numbers, booleans, null, lists and
mappings) or a :class:`SpecYAMLError` (a ``yaml.YAMLError``: a problem and, where known, its
line and column), never another exception:

* the composed node graph is bounded before any Python object is built
  (:data:`MAX_YAML_NODES` nodes with aliases expanded, :data:`MAX_YAML_DEPTH` levels): an
  alias bomb ("billion laughs") or a pathologically nested file is refused, not a hang;
* a key given twice in one mapping is refused (the last would silently win), and so is an
  alias that contains itself;
* the types no spec field takes are refused where they appear: ``!!set``, ``!!omap``,
  ``!!pairs``, ``!!binary`` and dates and times (``!!timestamp``, which a plain
  ``2002-12-14`` is too: quoted, it is text);
* any other exception a constructor raises (``!!int abc``, ``2001-02-30``, ``!!map`` on a
  scalar) or the scanner raises (``"\\U00110000"``) is the problem of that node, or of that
  place in the text.

:func:`sskernels.spec.load_spec` turns each into a one-line SpecError naming the file.
"""

from __future__ import annotations

import yaml

#: bounds on a spec file's YAML before it is built: the nodes it expands to (aliases counted
#: at every use: a "billion laughs" file of a few lines expands to 10^9) and its nesting depth
MAX_YAML_NODES = 100_000
MAX_YAML_DEPTH = 50

_TAG = "tag:yaml.org,2002:"
#: tags of types no spec field takes (the schema is text, numbers, booleans, lists, mappings)
REFUSED_TAGS = {f"{_TAG}{t}": t for t in ("set", "omap", "pairs", "binary", "timestamp")}
#: what an explicitly tagged scalar must be, for the message when it is not
_SCALAR_KINDS = {"int": "an integer", "float": "a number", "bool": "true or false", "null": "null"}


class SpecYAMLError(yaml.MarkedYAMLError):
    """A spec file's YAML that cannot be read: ``problem`` at ``problem_mark`` (or None).
    ``limit``: a bound of :data:`MAX_YAML_NODES` / :data:`MAX_YAML_DEPTH` was exceeded
    (``problem`` says what was expected, ``got`` what the file holds)."""

    def __init__(self, problem, mark=None, limit=False, got=None):
        super().__init__(problem=problem, problem_mark=mark)
        self.limit, self.got = limit, got


def _tag(tag):
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


class SpecLoader(yaml.SafeLoader):
    """PyYAML's safe loader: unique keys, no set / omap / pairs / binary / timestamp, and any
    exception while building a node raised as a :class:`SpecYAMLError` at that node.

    Every node is built deep (whole, before its parent is returned): an alias that contains
    itself is refused (PyYAML: "found unconstructable recursive node") instead of becoming a
    list or mapping that holds itself, and a failure is raised where its node is."""

    def construct_object(self, node, deep=False):
        """Build a node's Python object, whole, refusing the types no spec field takes.

        Parameters
        ----------
        node : yaml.Node
            The composed node.
        deep : bool, default=False
            Ignored: every node is built deep.

        Returns
        -------
        object
            The node's value (text, number, boolean, None, list or dict).

        Raises
        ------
        SpecYAMLError
            For a refused tag or a plain date, an alias inside the value it names, or any
            exception of PyYAML's constructors, at the node.
        """
        kind = REFUSED_TAGS.get(node.tag)
        if (
            kind == "timestamp"
            and isinstance(node, yaml.ScalarNode)
            and self.resolve(yaml.ScalarNode, node.value, (True, False)) == node.tag
        ):  # a plain date
            raise SpecYAMLError(
                f"{_short_value(node)} reads as a date or time, which no spec "
                "field takes (quote it to write it as text)",
                node.start_mark,
            )
        if kind is not None:
            raise SpecYAMLError(
                f"the tag !!{kind}, which no spec field takes (a spec holds "
                "text, numbers, booleans, null, lists and mappings)",
                node.start_mark,
            )
        if node in self.recursive_objects:
            raise SpecYAMLError(
                "an alias inside the value it names (a value that contains itself)", node.start_mark
            )
        try:
            return super().construct_object(node, deep=True)
        except (yaml.YAMLError, RecursionError, MemoryError):
            raise
        except Exception as exc:  # noqa: BLE001 - PyYAML's constructors raise anything
            raise SpecYAMLError(_construct_problem(node, exc), node.start_mark) from None

    def construct_mapping(self, node, deep=False):
        """Build a mapping node's dict; a key given twice is refused.

        Parameters
        ----------
        node : yaml.Node
            The node, a mapping node.
        deep : bool, default=False
            Passed on to PyYAML (the keys and values are built deep anyway).

        Returns
        -------
        dict
            The mapping.

        Raises
        ------
        SpecYAMLError
            If the node is not a mapping (a ``!!map`` tag on a scalar or a sequence), or a
            key is given twice.
        """
        if not isinstance(node, yaml.MappingNode):
            raise SpecYAMLError(
                f"{_tag(node.tag)} on a {node.id}: it tags a mapping", node.start_mark
            )
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                dup = key in seen
            except TypeError:  # an unhashable key: PyYAML's own error follows
                dup = False
            if dup:
                raise SpecYAMLError(f"duplicate key {key!r} (each field once)", key_node.start_mark)
            try:
                seen.add(key)
            except TypeError:
                pass
        return super().construct_mapping(node, deep=deep)


def _short_value(node, limit=60):
    if isinstance(node, yaml.ScalarNode):
        text = repr(node.value)
        return text if len(text) <= limit else f"{text[:limit]}..."
    return f"a {node.id}"


def _construct_problem(node, exc):
    """What a tagged or implicit value that could not be built is, in a few words."""
    tag = _tag(node.tag)
    kind = _SCALAR_KINDS.get(tag[2:]) if tag.startswith("!!") else None
    if kind is not None and isinstance(node, yaml.ScalarNode):
        return f"{tag} {_short_value(node)} is not {kind}"
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return f"{tag} {_short_value(node)} cannot be read ({type(exc).__name__}" + (
        f": {detail[:200]})" if detail else ")"
    )


def _check_size(root):
    """Refuse a node graph that expands to more than :data:`MAX_YAML_NODES` nodes or nests
    deeper than :data:`MAX_YAML_DEPTH` (measured before any Python object is built)."""
    sizes = {}

    def size(node, depth):
        """Nodes ``node`` expands to (memoized per node: an alias is the same node object)."""
        if depth > MAX_YAML_DEPTH:
            raise SpecYAMLError(
                f"YAML nested at most {MAX_YAML_DEPTH} levels deep",
                limit=True,
                got=f"more than {MAX_YAML_DEPTH}",
            )
        if id(node) in sizes:
            return sizes[id(node)]
        sizes[id(node)] = 1  # a cycle (a recursive alias) counts once
        if isinstance(node, yaml.MappingNode):
            n = 1 + sum(size(k, depth + 1) + size(v, depth + 1) for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            n = 1 + sum(size(v, depth + 1) for v in node.value)
        else:
            n = 1
        sizes[id(node)] = n
        return n

    expanded = size(root, 0)
    if expanded > MAX_YAML_NODES:
        raise SpecYAMLError(
            f"a spec of at most {MAX_YAML_NODES:,} YAML nodes once its aliases "
            "are expanded (an alias repeated at every level expands "
            "exponentially)",
            limit=True,
            got=f"{expanded:,} nodes",
        )


def read_yaml(text):
    """The document of a spec file's ``text`` (None for an empty one).

    Raises a ``yaml.YAMLError`` (PyYAML's parse errors, or :class:`SpecYAMLError`) and
    nothing else but ``MemoryError``.

    Parameters
    ----------
    text : str
        The file's text.

    Returns
    -------
    object
        The document: text, a number, a boolean, None, a list or a dict.

    Raises
    ------
    yaml.YAMLError
        PyYAML's parse errors, or a :class:`SpecYAMLError` (a bound exceeded, a refused
        type, a duplicate key, a value that cannot be built).
    """
    loader = SpecLoader(text)
    try:
        try:
            root = loader.get_single_node()
        except RecursionError:
            raise SpecYAMLError(
                f"YAML nested at most {MAX_YAML_DEPTH} levels deep", limit=True, got="deeper"
            ) from None
        except (yaml.YAMLError, MemoryError):
            raise
        except Exception as exc:  # noqa: BLE001 - the scanner's own (chr() out of range)
            detail = str(exc).splitlines()[0] if str(exc) else ""
            raise SpecYAMLError(
                f"unreadable text ({type(exc).__name__}"
                + (f": {detail[:200]})" if detail else ")"),
                loader.get_mark(),
            ) from None
        if root is None:
            return None
        _check_size(root)
        return loader.construct_document(root)
    finally:
        loader.dispose()
