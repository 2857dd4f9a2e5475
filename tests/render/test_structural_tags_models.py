"""Structural tags of the DSML (DeepSeek V3.2/V4/V4.1), MiMo, PLaMo 3 and Kimi K3 tool formats."""

from __future__ import annotations

import json

from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.render.structural_tags import apply_structural_tag

PARAMS = {"type": "object", "properties": {"a": {"type": "string"}}}
TOOL = {"type": "function", "function": {"name": "f", "parameters": PARAMS}}


def tag_of(model: str, **kw: object) -> dict:
    body = {"messages": [{"role": "user", "content": "x"}], "tools": [TOOL], **kw}
    req = ChatCompletionRequest.model_validate(body)
    apply_structural_tag(req, model, False)
    if req.structured_outputs is None:
        return {}
    return json.loads(req.structured_outputs.structural_tag)["format"]


def test_deepseek_v41_required_is_exact() -> None:
    body = {"messages": [{"role": "user", "content": "Hi"}], "tools": [TOOL], "tool_choice": "required"}
    req = ChatCompletionRequest.model_validate(body)
    apply_structural_tag(req, "deepseek_v4_1", False)
    assert req.structured_outputs.structural_tag == (
        '{"type": "structural_tag", "format": {"type": "sequence", "elements": [{"type": "const_string", '
        '"value": "\\n\\n<\\uff5cDSML\\uff5c calls>\\n"}, {"type": "tags_with_separator", "tags": '
        '[{"type": "tag", "begin": "<\\uff5cDSML\\uff5c invoke name=\\"f\\">\\n", "content": '
        '{"type": "json_schema", "json_schema": true, "style": "deepseek_v4_1_xml", "any_order": false, '
        '"max_whitespace_cnt": null, "excludes": []}, "end": "</\\uff5cDSML\\uff5c invoke>\\n"}], '
        '"separator": "", "at_least_one": true, "stop_after_first": false}, {"type": "const_string", '
        '"value": "</\\uff5cDSML\\uff5c calls>"}]}}'
    )


def test_deepseek_auto_is_untouched_without_strict_tools() -> None:
    assert tag_of("deepseek_v3_2", tool_choice="auto") == {}


def test_deepseek_v32_named_forces_one_invoke() -> None:
    fmt = tag_of("deepseek_v3_2", tool_choice={"type": "function", "function": {"name": "f"}})
    assert [e["type"] for e in fmt["elements"]] == ["const_string", "tag", "const_string"]
    assert fmt["elements"][0]["value"] == "\n\n<｜DSML｜function_calls>\n"
    assert fmt["elements"][1]["content"]["style"] == "deepseek_xml"


def test_deepseek_v4_single_call_auto_triggers_on_the_calls_block() -> None:
    fmt = tag_of("deepseek_v4", tool_choice="auto", parallel_tool_calls=False)
    assert fmt["type"] == "triggered_tags"
    assert fmt["triggers"] == ["<｜DSML｜tool_calls>"]
    assert fmt["stop_after_first"] is True
    assert fmt["tags"][0]["content"]["stop_after_first"] is True


def test_mimo_required() -> None:
    fmt = tag_of("mimo", tool_choice="required")
    assert fmt["type"] == "triggered_tags" and fmt["at_least_one"] is True
    assert fmt["tags"][0]["begin"] == "<tool_call><function=f>"
    assert fmt["excludes"] == ["<think>", "</think>", "</tool_call>", "<function="]


def test_plamo3_block_has_two_ends() -> None:
    fmt = tag_of("plamo3", tool_choice="required")
    assert fmt["end"] == ["<|plamo:end_tool_requests:plamo|>",
                          "<|plamo:end_tool_requests:plamo|><|plamo:tag|>"]


def test_kimi_k3_strict_arguments() -> None:
    strict = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "required": ["a"],
        "properties": {"a": {"type": "string", "enum": ["x", "y"]}, "n": {"type": "integer"},
                       "s": {"type": "string", "maxLength": 8}, "u": {"type": ["string", "null"]}},
    }, "strict": True}}
    body = {"messages": [{"role": "user", "content": "x"}], "tools": [strict], "tool_choice": "required"}
    req = ChatCompletionRequest.model_validate(body)
    apply_structural_tag(req, "kimi_k3", False)
    fmt = json.loads(req.structured_outputs.structural_tag)["format"]
    channel = fmt["elements"][2]
    args = channel["content"]["tags"][0]["content"]["elements"][2]
    assert args["type"] == "plus"
    enum, number, bounded, loose = args["content"]["elements"]
    assert enum["content"]["type"] == "or"
    assert number["begin"] == '<|open|>argument key="n" type="number"<|sep|>'
    assert bounded["content"] == {"type": "regex", "pattern": "(?:[^<]|<[^|]){0,8}"}
    assert loose["begin"] == "<|open|>argument "


def test_strict_level_function_constrains_auto_and_parameter_pins_schemas() -> None:
    body = {"messages": [{"role": "user", "content": "x"}], "tools": [TOOL], "tool_choice": "auto"}
    req = ChatCompletionRequest.model_validate(body)
    apply_structural_tag(req, "deepseek_v4_1", False, strict_level=1)
    fmt = json.loads(req.structured_outputs.structural_tag)["format"]
    assert fmt["tags"][0]["content"]["tags"][0]["content"]["json_schema"] is True
    req = ChatCompletionRequest.model_validate(body)
    apply_structural_tag(req, "deepseek_v4_1", False, strict_level=2)
    fmt = json.loads(req.structured_outputs.structural_tag)["format"]
    assert fmt["tags"][0]["content"]["tags"][0]["content"]["json_schema"] == PARAMS
    req = ChatCompletionRequest.model_validate(body)
    apply_structural_tag(req, "glm_4_7", True, strict_level=0)
    assert req.structured_outputs is None
