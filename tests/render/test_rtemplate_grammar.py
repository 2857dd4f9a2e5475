"""The structural tag `beam` derives from a response template (`render/rtemplate_grammar.py`,
`render/rtemplate_values_grammar.py`); byte parity with vLLM in tests/golden/vllm-beamgrammarrender.jsonl."""

from __future__ import annotations

from typing import Any

import pytest

from tokenfront.parsers.engines.rtemplate_spec import load_template
from tokenfront.render import rtemplate_grammar as grammar
from tokenfront.render import rtemplate_values_grammar as vg

XML_CALLS = {
    "open_pattern": "<tool_call>\\n<function=(?P<name>[^>\\n]+)>\\n",
    "close": "</function>\n</tool_call>",
    "repeats": True,
    "content": "xml-inline",
    "content_args": {"tag_pattern": "<parameter=(?P<key>[^>\\n]+)>\\n(?P<value>.*?)\\n</parameter>\\n"},
    "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
}
JSON_CALLS = {**XML_CALLS, "open_pattern": "<tool_call>\\n<function=(?P<name>\\w+)>\\n", "content": "json",
              "content_args": {}, "close": "\n</function>\n</tool_call>"}
THINKING = {"open": "<think>\n", "close": "\n</think>\n\n"}
ANSWER = {"open": "<response>\n", "close": "</response>"}
WEATHER = {"name": "get_weather", "parameters": {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}, "days": {"type": "integer"}},
    "required": ["city"],
}}


def _fields(calls: dict[str, Any] = XML_CALLS, **extra: Any) -> Any:
    fields = {"tool_calls": calls, "thinking": THINKING, "content": ANSWER}
    fields.update(extra)
    return load_template({"start_anchor": "<|im_start|>assistant\n", "fields": fields}).fields


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


def test_reasoning_is_required_and_nonempty_at_the_message_start_with_thinking_on() -> None:
    fields = _fields()
    tag = grammar.tool_call_tag(fields["tool_calls"], [], parallel=True, thinking=fields["thinking"],
                                answer=fields["content"], message_start=["<|im_start|>assistant\n"],
                                requires_reasoning=True)
    assert tag is not None
    think, reply = tag["format"]["elements"]
    assert think["type"] == "tag" and think["begin"] == "<think>\n" and think["end"] == ["\n</think>\n\n"]
    first = think["content"]["elements"][0]
    assert first["type"] == "regex" and first["pattern"].startswith("[^\\n]|\n[^\\n<]")
    assert reply["elements"][0] == {"type": "const_string", "value": "<response>\n"}
    assert reply["elements"][1] == {"type": "any_text", "excludes": ["</response>"]}


def test_reasoning_is_optional_after_the_message_start() -> None:
    fields = _fields()
    tag = grammar.tool_call_tag(fields["tool_calls"], [WEATHER], parallel=True, thinking=fields["thinking"],
                                answer=fields["content"])
    assert tag is not None
    first = tag["format"]["elements"][0]
    assert first["type"] == "optional" and first["content"]["content"] == {"type": "any_text"}


def test_calls_or_answer_with_free_calls_to_other_names() -> None:
    fields = _fields()
    tag = grammar.tool_call_tag(fields["tool_calls"], [WEATHER], parallel=True, answer=fields["content"],
                                strict_arguments=True, sorted_too=True)
    assert tag is not None
    choice = tag["format"]["elements"][0]
    calls, reply = choice["elements"]
    openers = [node["pattern"] for node in _walk(calls) if node.get("type") == "regex" and "function=" in node["pattern"]]
    assert "<tool_call>\\n<function=get_weather>\\n" in openers
    assert any("(?:" in pattern and "get_weather" not in pattern for pattern in openers)  # any other name
    assert calls["elements"][1]["type"] == "star"  # parallel calls behind the closer
    assert calls["elements"][-1] == {"type": "optional", "content": {"type": "const_string",
                                                                      "value": "</function>\n</tool_call>"}}
    assert reply["elements"][0]["value"] == "<response>\n"


def test_parallel_false_and_forced_calls_have_no_star_and_no_answer() -> None:
    fields = _fields()
    tag = grammar.tool_call_tag(fields["tool_calls"], [WEATHER], parallel=False, strict_arguments=True)
    assert tag is not None
    assert not [node for node in _walk(tag) if node.get("type") == "star" and "function=" in str(node)]
    assert "<response>" not in str(tag)


def test_strict_xml_arguments_in_declared_and_sorted_order() -> None:
    fields = _fields()
    order = {"name": "order", "parameters": {"type": "object", "properties": {
        "zeta": {"type": "string"}, "alpha": {"type": "integer"}}, "required": ["zeta", "alpha"]}}
    args = grammar.arguments_format(fields["tool_calls"], order["parameters"], strict=True, sorted_too=True)
    assert args is not None and args["type"] == "or"
    begins = [[node["begin"] for node in _walk(branch) if node.get("type") == "tag"] for branch in args["elements"]]
    assert begins == [["<parameter=zeta>\n", "<parameter=alpha>\n"], ["<parameter=alpha>\n", "<parameter=zeta>\n"]]
    integer = next(node for node in _walk(args) if node.get("type") == "json_schema")
    assert integer["json_schema"] == {"type": "integer"}
    assert integer["excludes"] == ["</function>\n</tool_call>", "\n</parameter>\n"]


def test_string_enums_are_constant_strings() -> None:
    fields = _fields()
    args = grammar.arguments_format(fields["tool_calls"], WEATHER["parameters"], strict=True)
    assert args is not None
    consts = [node["value"] for node in _walk(args) if node.get("type") == "const_string"]
    assert "c" in consts and "f" in consts


def test_json_arguments_are_one_json_schema_node() -> None:
    fields = _fields(JSON_CALLS)
    args = grammar.arguments_format(fields["tool_calls"], WEATHER["parameters"], strict=True)
    assert args == {"type": "json_schema", "json_schema": WEATHER["parameters"],
                    "excludes": ["\n</function>\n</tool_call>"]}
    loose = grammar.arguments_format(fields["tool_calls"], WEATHER["parameters"], strict=False)
    assert loose is not None and loose["json_schema"] == {"type": "object"}


def test_names_the_template_cannot_spell_raise() -> None:
    fields = _fields()
    with pytest.raises(ValueError, match="tool name 'a>b' cannot be encoded"):
        grammar.tool_call_tag(fields["tool_calls"], [{"name": "a>b"}], parallel=True)
    odd = {"name": "odd", "strict": True, "parameters": {"type": "object", "properties": {"a>b": {"type": "string"}}}}
    with pytest.raises(ValueError, match="parameter name 'a>b' cannot be encoded"):
        grammar.tool_call_tag(fields["tool_calls"], [odd], parallel=True)


def test_unsupported_keywords_leave_strict_arguments_underivable() -> None:
    fields = _fields()
    ranged = {"type": "object", "properties": {"n": {"type": "integer"}}, "minProperties": 1}
    assert grammar.arguments_format(fields["tool_calls"], ranged, strict=True) is None
    assert grammar.arguments_format(fields["tool_calls"], ranged, strict=False) is not None


def test_a_string_pattern_that_may_write_a_closer_is_not_held() -> None:
    assert vg.value_format({"type": "string", "pattern": "[a-z]+"}, {}, False, ["</x>"]) == {
        "type": "regex", "pattern": "[a-z]+"}
    assert vg.value_format({"type": "string", "pattern": "<b>[a-z]+"}, {}, False, ["</x>"]) is None
    assert vg.value_format({"type": "string", "format": "date"}, {}, False, ["</x>"])["pattern"].startswith("[0-9]{4}")


def test_answer_rest_and_regex_delimiters() -> None:
    fields = _fields()
    assert grammar.answer_rest_tag(fields["content"]) == {"type": "structural_tag", "format": {
        "type": "sequence", "elements": [
            {"type": "any_text", "excludes": ["</response>"]},
            {"type": "optional", "content": {"type": "const_string", "value": "</response>"}},
        ]}}
    regex_closer = _fields(thinking={"open": "<think>", "close_pattern": "\\s*</think>"})
    assert grammar.tool_call_tag(regex_closer["tool_calls"], [WEATHER], parallel=True,
                                 thinking=regex_closer["thinking"]) is None


def test_other_names_excludes_exactly_the_held_names() -> None:
    import regex

    pattern = grammar._other_names("\\w+", ["ab", "a"])
    assert pattern is not None
    compiled = regex.compile(pattern)
    assert not compiled.fullmatch("ab") and not compiled.fullmatch("a")
    assert compiled.fullmatch("abc") and compiled.fullmatch("b") and compiled.fullmatch("aa")
    assert grammar._other_names("[a-z]+", ["a"]) is None
