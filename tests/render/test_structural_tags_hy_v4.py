"""HY V4's structural tag: required keys in order, optional ones in any order, suffixed markers."""

from __future__ import annotations

import json

from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.render.structural_tags import apply_structural_tag
from tokenfront.render.structural_tags_hy_v4 import hy_v4

PARAMS = {"properties": {"a": {}, "b": {}, "c": {}}, "required": ["b", "z"]}


def _keys(node: dict) -> list[str]:
    return [e["elements"][1]["value"] for e in node["elements"] if e["type"] == "sequence"]


def test_markers_carry_the_checkpoint_suffix() -> None:
    fmt = hy_v4([("f", PARAMS)], "forced", ":6124c78e")
    first, calls, last = fmt["elements"]
    assert (first["value"], last["value"]) == ("<tool_calls:6124c78e>", "</tool_calls:6124c78e>")
    call = calls["tags"][0]
    assert (call["begin"], call["end"]) == ("<tool_call:6124c78e>f", "</tool_call:6124c78e>")
    assert call["content"]["elements"][0]["elements"][0]["value"] == "<arg_key:6124c78e>"
    assert calls["stop_after_first"] is True


def test_required_keys_in_order_then_any_optional_ones() -> None:
    content = hy_v4([("f", PARAMS)], "required", "")["elements"][1]["tags"][0]["content"]
    assert _keys(content) == ["b", "z"]
    star = content["elements"][-1]
    assert star["type"] == "star" and [_keys({"elements": [e]})[0] for e in star["content"]["elements"]] == ["a", "c"]


def test_a_tool_without_keys_takes_any_text() -> None:
    call = hy_v4([("g", None)], "required", "")["elements"][1]["tags"][0]
    assert call["content"]["type"] == "any_text"


def test_auto_is_left_unconstrained() -> None:
    request = ChatCompletionRequest.model_validate(
        {
            "messages": [{"role": "user", "content": "x"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": PARAMS, "strict": True}}],
            "tool_choice": "auto",
        }
    )
    apply_structural_tag(request, "hy_v4", False)
    assert request.structured_outputs is None
    request.tool_choice = "required"
    apply_structural_tag(request, "hy_v4", False, token_suffix=":x")
    assert request.structured_outputs is not None
    assert "<tool_calls:x>" in json.loads(request.structured_outputs.structural_tag)["format"]["elements"][0]["value"]
