"""The engines' whitespace rule for streamed content (`parsers/engines/content_whitespace.py`)."""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.engines.content_whitespace import hold_leading_whitespace, settle_content


def _settle(state: dict[str, Any], parts: list[str], **flags: Any) -> str:
    options = {"seen_tool": False, "has_deltas": False, "has_slots": False, "finished": False}
    options.update(flags)
    return settle_content(state, parts, state["deferred"], **options)


def test_leading_whitespace_waits_for_text_then_goes_out_with_it() -> None:
    state: dict[str, Any] = {}
    assert hold_leading_whitespace(state, "\n\n", False, held="h", seen="s") == ""
    assert hold_leading_whitespace(state, "Hi", False, held="h", seen="s") == "\n\nHi"
    assert hold_leading_whitespace(state, " ", False, held="h", seen="s") == " "


def test_held_whitespace_is_sent_at_the_end_of_the_output() -> None:
    state: dict[str, Any] = {}
    assert hold_leading_whitespace(state, " ", False, held="h", seen="s") == ""
    assert hold_leading_whitespace(state, "", True, held="h", seen="s") == " "


def test_whitespace_before_a_call_is_dropped_once_a_call_slot_exists() -> None:
    state = {"deferred": "", "nonws": False}
    assert _settle(state, ["\n"]) == ""
    assert state["deferred"] == "\n"
    assert _settle(state, [], seen_tool=True, has_deltas=True, has_slots=True) == ""
    assert _settle(state, [], has_slots=True) == ""
    assert state["deferred"] == ""


def test_whitespace_before_a_call_is_sent_when_the_engine_keeps_it() -> None:
    state = {"dc": "\n", "nonws": False}
    content = settle_content(state, [], "\n", seen_tool=False, has_deltas=False, has_slots=True,
                             finished=False, deferred="dc", drop_before_calls=False)
    assert content == "\n"


def test_text_after_a_call_in_the_same_chunk_waits_while_the_call_streams() -> None:
    state = {"deferred": "", "nonws": True}
    state["deferred"] = " after"  # the engine holds text that follows a call event
    assert _settle(state, ["Sure."], seen_tool=True, has_deltas=True, has_slots=True) == "Sure."
    assert state["deferred"] == " after"
    assert _settle(state, [], has_slots=True) == " after"
