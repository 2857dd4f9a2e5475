"""Tool markers read while tool parsing is skipped (a reasoning pass): the open tool span."""

from __future__ import annotations

from tokenfront.parsers.base import JSONState


def tool_marker_counts(st: JSONState, opens: bool, exits: bool) -> bool:
    """Whether a tool marker acts as one (not an exit with no span open); keeps `st["span"]`."""
    if exits and not opens and not st["span"]:
        return False
    if opens:
        st["span"] = True
    elif exits:
        st["span"] = False
    return True
