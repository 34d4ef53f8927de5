"""Walking and editing a JSON value by path (keys and list indices), for the tests that
feed the report tools every field of a report changed or removed."""

from __future__ import annotations


def paths(value, prefix=()) -> list[tuple]:
    """Every path (keys and indices) in `value`, `prefix` first."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, prefix + (i,))
    return out


def shape_of(path: tuple) -> tuple:
    """A path with its list indices as None: the field it names in any run or row."""
    return tuple(None if isinstance(k, int) else k for k in path)


def get(value, path):
    for k in path:
        value = value[k]
    return value


def with_change(report: dict, path: tuple, new=None, delete: bool = False) -> dict:
    """`report` (a copy the caller owns) with the value at `path` set to `new`, or deleted."""
    parent = get(report, path[:-1])
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return report


def kind(v) -> str:
    """A JSON value's kind, booleans apart from numbers."""
    return "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__
