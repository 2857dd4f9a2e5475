"""Structural tags forcing tool-call syntax (byte-exact JSON, checked against vLLM 0.33.0)."""

from __future__ import annotations

import json

from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.render.structural_tags import apply_structural_tag, mistral_pre_v11_schema

TOOL = {
    "type": "function",
    "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}},
}
ANY_JSON = {
    "type": "json_schema",
    "json_schema": True,
    "style": "json",
    "any_order": False,
    "max_whitespace_cnt": None,
    "excludes": [],
}


def request(**kw) -> ChatCompletionRequest:
    body = {"messages": [{"role": "user", "content": "x"}], "tools": [TOOL], **kw}
    return ChatCompletionRequest.model_validate(body)


def tag_of(req: ChatCompletionRequest) -> dict:
    assert req.structured_outputs is not None
    return json.loads(req.structured_outputs.structural_tag)


def test_hermes_required_is_exact() -> None:
    req = request(tool_choice="required")
    apply_structural_tag(req, "hermes", False)
    assert req.structured_outputs.structural_tag.startswith(
        '{"type": "structural_tag", "format": {"type": "tags_with_separator", "tags": '
        '[{"type": "tag", "begin": "<tool_call>\\n{\\"name\\": \\"f\\", \\"arguments\\": ", '
    )
    fmt = tag_of(req)["format"]
    assert fmt["tags"][0]["content"] == ANY_JSON
    assert [fmt["separator"], fmt["at_least_one"], fmt["stop_after_first"]] == ["", True, False]


def test_deepseek_r1_uses_ensure_ascii_escapes() -> None:
    req = request(tool_choice="required")
    apply_structural_tag(req, "deepseek_r1", False)
    raw = req.structured_outputs.structural_tag
    assert "\\uff5ctool\\u2581calls\\u2581begin\\uff5c" in raw
    assert tag_of(req)["format"]["content"]["separator"] == "\n"


def test_auto_without_strict_tools_leaves_request() -> None:
    req = request(tool_choice="auto")
    apply_structural_tag(req, "hermes", False)
    assert req.structured_outputs is None


def test_glm_auto_is_constrained_and_typed() -> None:
    req = request(tool_choice="auto")
    apply_structural_tag(req, "glm_4_7", True)
    fmt = tag_of(req)["format"]
    assert fmt["type"] == "triggered_tags"
    pair = fmt["tags"][0]["content"]["content"]["elements"]
    assert pair[1]["json_schema"] == {"type": "integer"}


def test_single_call_and_named_choice() -> None:
    req = request(tool_choice={"type": "function", "function": {"name": "f"}}, parallel_tool_calls=False)
    apply_structural_tag(req, "kimi", False)
    fmt = tag_of(req)["format"]
    assert fmt["type"] == "sequence"
    assert fmt["elements"][1]["begin"] == "<|tool_call_begin|>functions.f:"


def test_auto_with_structured_output_is_or() -> None:
    strict = {"type": "function", "function": {"name": "s", "strict": True, "parameters": {"type": "object"}}}
    req = ChatCompletionRequest.model_validate(
        {
            "messages": [{"role": "user", "content": "x"}],
            "tools": [strict],
            "tool_choice": "auto",
            "structured_outputs": {"regex": "a+"},
        }
    )
    apply_structural_tag(req, "hermes", False)
    fmt = tag_of(req)["format"]
    assert fmt["type"] == "or"
    assert fmt["elements"][1] == {"type": "regex", "pattern": "a+"}


def test_mistral_named_schema() -> None:
    req = request(tool_choice={"type": "function", "function": {"name": "f"}})
    schema = mistral_pre_v11_schema(req)
    assert schema["maxItems"] == 1
    assert schema["items"]["anyOf"][0]["properties"]["name"]["enum"] == ["f"]
