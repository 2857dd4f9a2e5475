#!/usr/bin/env python3
"""Record vLLM 0.33.0's verdicts on structural tags into tests/protocol/data/.

Run with the recording venv (vLLM and xgrammar are never tokenfront dependencies):
    VLLM_TARGET_DEVICE=cpu /work/vllm-venv/bin/python scripts/record_structural_tag_verdicts.py
Each case is a `structured_outputs.structural_tag` payload (a JSON value is sent as its JSON
text, a string as is) checked with vLLM's `validate_structural_tag_payload`, or (`"via":
"response_format"`) a response format dict checked with `validate_structural_tag_response_format`.
A format object `F` stands for the payload `{"type": "structural_tag", "format": F}`.
Optional arguments: an input JSON list of extra cases and an output path (for exploring).
"""

from __future__ import annotations

import json
import os
import random
import sys
import warnings
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "tests" / "protocol" / "data" / "structural_tag_verdicts.json"

CS = {"type": "const_string", "value": "a"}
AT = {"type": "any_text"}
JS = {"type": "json_schema", "json_schema": {"type": "object"}}


def tag(begin: Any = "<a>", content: Any = None, end: Any = "</a>", **kw: Any) -> dict:
    return {"type": "tag", "begin": begin, "content": CS if content is None else content, "end": end, **kw}


def fmt(kind: str, **kw: Any) -> dict:
    return {"type": kind, **kw}


def nest(depth: int) -> dict:
    node: dict = CS
    for _ in range(depth):
        node = fmt("optional", content=node)
    return node


FORMATS: list[Any] = [
    # top level / payload shape
    {}, [], "x", 5, None,
    # const_string
    CS, fmt("const_string", value=""), fmt("const_string", value=1), fmt("const_string"),
    fmt("const_string", value="x", extra=1), {"value": "x"}, {"value": 1}, fmt("const_string", value=None),
    # unknown / bad types
    fmt("bogus"), {"type": 5}, {"type": None, "value": "x"}, fmt("structural_tag"),
    # any_text
    AT, fmt("any_text", excludes=[]), fmt("any_text", excludes=[""]), fmt("any_text", excludes="x"),
    fmt("any_text", excludes=["a", "b"]), fmt("any_text", excludes=[1]), {"excludes": ["a"]}, {"excludes": []},
    fmt("any_text", max_tokens=5), fmt("any_text", max_tokens=-1), fmt("any_text", max_tokens=1.5),
    fmt("any_text", max_tokens=None), fmt("any_text", max_tokens="5"), fmt("any_text", max_chars=0),
    fmt("any_text", max_chars=2**31), fmt("any_text", max_tokens=True), fmt("any_text", extra="y"),
    # sequence / or
    fmt("sequence", elements=[]), fmt("sequence", elements=[AT]), fmt("sequence"), fmt("sequence", elements={}),
    fmt("sequence", elements=[CS, AT, CS]), fmt("sequence", elements=[CS, 5]), fmt("or", elements=[]),
    fmt("or", elements=[CS]), fmt("or", elements=[CS, fmt("bogus")]), {"elements": [CS]}, {"elements": []},
    fmt("sequence", elements=[AT, AT]),
    # tag
    tag("", AT, ""), tag(content=AT, end=["</a>", "</b>"]), tag(content=AT, end=[]), tag(5, AT, "x"),
    tag(), tag(""), tag(end=""), tag(content=AT, end=""), tag(content=AT, end=["", ""]),
    tag(content=AT, end=["", "x"]), tag(end=[1]), tag(end=5), tag(end=None), tag(content=5),
    {"type": "tag", "begin": "a", "end": "b"}, {"type": "tag", "content": CS, "end": "b"},
    {"type": "tag", "begin": "a", "content": CS}, {"begin": "a", "content": CS, "end": "b"},
    {"begin": "a", "content": AT, "end": ""}, tag(content=fmt("any_text", excludes=["x"]), end=""),
    tag(content=fmt("sequence", elements=[CS, AT]), end=""), tag(content=fmt("or", elements=[CS, CS]), end=""),
    tag(content=fmt("optional", content=AT), end=""), tag(content=fmt("optional", content=CS), end=""),
    tag(content=fmt("star", content=CS), end=""), tag(content=fmt("plus", content=CS), end=""),
    tag(content=fmt("repeat", min=1, max=3, content=CS), end=""),
    tag(content=fmt("repeat", min=1, max=-1, content=CS), end=""),
    tag(content=fmt("repeat", min=0, max=0, content=AT), end=""),
    tag(content=fmt("repeat", min=0, max=2, content=AT), end=""),
    tag(content=JS, end=""), tag(content=fmt("any_tokens"), end=""),
    tag(content=fmt("any_tokens", exclude_tokens=[5]), end=""),
    tag(content=fmt("sequence", elements=[fmt("any_text", excludes=["q"]), CS]), end=""),
    tag({"type": "token", "token": 5}, AT, "</a>"), tag("<a>", AT, {"type": "token", "token": 7}),
    tag({"token": 5}, CS, "x"), tag({"type": "token", "token": "<a>"}, CS, "x"), tag({"type": "token"}, CS, "x"),
    tag({"type": "token", "token": 5}, AT, ""), tag("<a>", AT, {"token": -1}),
    tag(content=AT, end="</a>", extra=[1]),
    # triggered_tags
    fmt("triggered_tags", triggers=[], tags=[]), fmt("triggered_tags", triggers=["<a"], tags=[]),
    fmt("triggered_tags", triggers=[""], tags=[tag(content=AT)]),
    fmt("triggered_tags", triggers=["<a", "<a>"], tags=[tag(content=AT)]),
    fmt("triggered_tags", triggers=["<a"], tags=[{"begin": "<a>", "content": AT, "end": "</a>"}]),
    fmt("triggered_tags", triggers=["<a"], tags=[tag()]), fmt("triggered_tags", triggers=["<b"], tags=[tag()]),
    fmt("triggered_tags", triggers=["<a", "<b"], tags=[tag()]),
    fmt("triggered_tags", triggers=["<a"], tags=[tag(), tag("<ab>")]),
    fmt("triggered_tags", triggers=["<a"], tags=[tag(end="")]),
    fmt("triggered_tags", triggers=["<a"], tags=[tag(content=AT, end="")]),
    fmt("triggered_tags", triggers=["<a"], tags=[fmt("const_string", value="x")]),
    fmt("triggered_tags", triggers=["<a"], tags=[tag()], excludes=["x"]),
    fmt("triggered_tags", triggers=["<a"], tags=[tag()], excludes=[""]),
    fmt("triggered_tags", triggers=["<a"], tags=[tag()], excludes="x"),
    fmt("triggered_tags", triggers=["<a"], tags=[tag()], at_least_one=True, stop_after_first=True),
    fmt("triggered_tags", triggers=["<a"], tags=[tag()], at_least_one=1),
    fmt("triggered_tags", triggers=["<a"], tags=[tag()], stop_after_first="yes"),
    fmt("triggered_tags", triggers=["<a"], tags=[tag({"type": "token", "token": 5})]),
    fmt("triggered_tags", triggers=[5], tags=[tag()]), fmt("triggered_tags", triggers="<a", tags=[tag()]),
    fmt("triggered_tags", triggers=["<a>"], tags=[tag()]), fmt("triggered_tags", triggers=["<a>x"], tags=[tag()]),
    fmt("triggered_tags", triggers=["<a", "<c"], tags=[tag()]),
    {"triggers": ["<a"], "tags": [tag()]},
    tag(content=fmt("triggered_tags", triggers=["<a"], tags=[tag()]), end=""),
    # tags_with_separator
    fmt("tags_with_separator", tags=[], separator=","), fmt("tags_with_separator", tags=[tag(content=AT)], separator=""),
    fmt("tags_with_separator", tags=[tag(content=AT)], separator=","), fmt("tags_with_separator", tags=[tag()]),
    fmt("tags_with_separator", tags=[tag()], separator=1), fmt("tags_with_separator", tags=[CS], separator=","),
    fmt("tags_with_separator", tags=[tag()], separator=",", at_least_one=True, stop_after_first=True),
    fmt("tags_with_separator", tags=[tag()], separator=",", at_least_one="x"),
    fmt("tags_with_separator", tags=[tag({"type": "token", "token": 3})], separator=","),
    {"tags": [tag()], "separator": ","}, tag(content=fmt("tags_with_separator", tags=[tag()], separator=","), end=""),
    # json_schema / qwen_xml_parameter
    fmt("json_schema", json_schema=True), fmt("json_schema", json_schema=False), fmt("json_schema", json_schema={}),
    fmt("json_schema", json_schema={"type": "integer", "minimum": 5, "maximum": 1}),
    fmt("json_schema", json_schema={"type": "object"}, style="qwen_xml"),
    fmt("json_schema", json_schema={"type": "object"}, style="bogus"),
    fmt("json_schema", json_schema={"type": "object"}, style=5),
    fmt("json_schema", json_schema={"type": "object"}, style="gemma"),
    fmt("json_schema", json_schema={"type": "object"}, style="minimax_xml"),
    fmt("json_schema", json_schema={"type": "object"}, style="glm_xml"),
    fmt("json_schema", json_schema={"type": "object"}, style="deepseek_xml"),
    fmt("json_schema", json_schema={"type": "object"}, style="kimi_k3_xml"),
    fmt("json_schema", json_schema={"type": "object"}, style="cohere_xml"),
    fmt("json_schema", json_schema={"type": "object"}, style="cohere_xml", excludes=["x"]),
    fmt("json_schema", json_schema={"type": "object"}, style="qwen_xml", excludes=[" x"]),
    fmt("json_schema", json_schema={"type": "object"}, excludes=[" x"]),
    fmt("json_schema", json_schema={"type": "object"}, excludes=[""]),
    fmt("json_schema", json_schema={"type": "object"}, excludes="x"),
    fmt("json_schema", json_schema={"type": "object"}, any_order=True),
    fmt("json_schema", json_schema={"type": "object"}, any_order="yes"),
    fmt("json_schema", json_schema={"type": "object"}, max_whitespace_cnt=2),
    fmt("json_schema", json_schema={"type": "object"}, max_whitespace_cnt=None),
    fmt("json_schema", json_schema={"type": "object"}, max_whitespace_cnt="2"),
    fmt("json_schema", json_schema="{}"), fmt("json_schema", json_schema=None), fmt("json_schema", json_schema=[]),
    fmt("json_schema"), {"json_schema": {"type": "string"}}, {"json_schema": False},
    fmt("json_schema", json_schema={"type": "bogus"}), fmt("json_schema", json_schema={"type": "string", "pattern": "(?=a)"}),
    fmt("json_schema", json_schema={"type": "string", "minLength": 5, "maxLength": 2}),
    fmt("json_schema", json_schema={"type": "array", "minItems": 3, "maxItems": 1}),
    fmt("json_schema", json_schema={"$ref": "#/$defs/missing"}),
    fmt("json_schema", json_schema={"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
    fmt("json_schema", json_schema={"enum": []}), fmt("json_schema", json_schema={"anyOf": []}),
    fmt("json_schema", json_schema={"type": "number", "minimum": 3, "maximum": 1}),
    fmt("json_schema", json_schema={"type": "string", "format": "email"}),
    fmt("json_schema", json_schema={"type": "object"}, style="qwen_xml", excludes=["x"]),
    fmt("json_schema", json_schema=True, style="qwen_xml"), fmt("json_schema", json_schema={"type": "string"}, style="qwen_xml"),
    fmt("qwen_xml_parameter", json_schema={"type": "object"}), fmt("qwen_xml_parameter", json_schema=False),
    fmt("qwen_xml_parameter", json_schema=True), fmt("qwen_xml_parameter", json_schema={"type": "object"}, style="bogus"),
    fmt("qwen_xml_parameter"),
    # regex
    fmt("regex", pattern=""), fmt("regex", pattern="[a-"), fmt("regex", pattern="a{2,1}"), fmt("regex", pattern="(?=a)"),
    fmt("regex", pattern="abc"), fmt("regex", pattern="a+b*c?"), fmt("regex", pattern="[a-z]+"), fmt("regex", pattern="\\d{3}-\\d{4}"),
    fmt("regex", pattern="(a|b)*"), fmt("regex", pattern="(?:ab)+"), fmt("regex", pattern="(?P<x>a)"), fmt("regex", pattern="(?<x>a)"),
    fmt("regex", pattern="(?!a)"), fmt("regex", pattern="(?<=a)b"), fmt("regex", pattern="(?i)a"), fmt("regex", pattern="(a"),
    fmt("regex", pattern="a)"), fmt("regex", pattern="*a"), fmt("regex", pattern="a**"), fmt("regex", pattern="a*?"),
    fmt("regex", pattern="a+?b"), fmt("regex", pattern="a{2}"), fmt("regex", pattern="a{2,}"), fmt("regex", pattern="a{,2}"),
    fmt("regex", pattern="a{"), fmt("regex", pattern="a{x}"), fmt("regex", pattern="\\1"), fmt("regex", pattern="(a)\\1"),
    fmt("regex", pattern="\\bword\\b"), fmt("regex", pattern="[\\b]"), fmt("regex", pattern="\\p{L}"), fmt("regex", pattern="\\"),
    fmt("regex", pattern="[]"), fmt("regex", pattern="[^]"), fmt("regex", pattern="[z-a]"), fmt("regex", pattern="[\\d-z]"),
    fmt("regex", pattern="[a\\]]"), fmt("regex", pattern="^abc$"), fmt("regex", pattern="a^b"), fmt("regex", pattern="a$b"),
    fmt("regex", pattern="."), fmt("regex", pattern="a|"), fmt("regex", pattern="|"), fmt("regex", pattern="()"),
    fmt("regex", pattern="(|a)"), fmt("regex", pattern="\\u0041"), fmt("regex", pattern="\\u{1F600}"), fmt("regex", pattern="\\u{110000}"),
    fmt("regex", pattern="\\x41"), fmt("regex", pattern="\\xZZ"), fmt("regex", pattern="\\cA"), fmt("regex", pattern="\\c1"),
    fmt("regex", pattern="\\q"), fmt("regex", pattern="a{ 2 , 3 }"), fmt("regex", pattern="é+"), fmt("regex", pattern="[é-ü]"),
    fmt("regex", pattern="a?*"), fmt("regex", pattern="a{2}{3}"), fmt("regex", pattern="(a)*"), fmt("regex", pattern="()*"),
    fmt("regex", pattern="\\w+@\\w+\\.com"), fmt("regex", pattern="[\\w.-]+"), fmt("regex", pattern="a{3,3}"),
    fmt("regex", pattern="a{0}"), fmt("regex", pattern="\\k<x>"), fmt("regex", pattern="\\0"), fmt("regex", pattern="[-a]"),
    fmt("regex", pattern="[a-]"), fmt("regex", pattern="\\/"), fmt("regex", pattern=5), fmt("regex"),
    # grammar
    fmt("grammar", grammar='root ::= "a"'), fmt("grammar", grammar='x ::= "a"'), fmt("grammar", grammar=""),
    fmt("grammar", grammar='root ::= x\nx ::= "a"'), fmt("grammar", grammar="root ::= x"),
    fmt("grammar", grammar='root ::= "a" | "b"'), fmt("grammar", grammar='root ::= ("a" "b")*'),
    fmt("grammar", grammar='root ::= ("a"'), fmt("grammar", grammar='root ::= "a'), fmt("grammar", grammar="root ::="),
    fmt("grammar", grammar='root ::= [a-z]+ "x"?'), fmt("grammar", grammar='root ::= "a"{2,3}'),
    fmt("grammar", grammar='root ::= "a"\nroot ::= "b"'), fmt("grammar", grammar="root ::= *"),
    fmt("grammar", grammar='# comment\nroot ::= "a" # trailing'), fmt("grammar", grammar='root ::= "a" (= "b")'),
    fmt("grammar", grammar="root ::= [a-"), fmt("grammar", grammar='root = "a"'), fmt("grammar", grammar="   "),
    fmt("grammar", grammar='root ::= ""'), fmt("grammar", grammar='root ::= "\\n" [^\\n]'),
    fmt("grammar", grammar='root ::= TagDispatch(("<a", x))\nx ::= "b"'), fmt("grammar", grammar="?start: \"a\""),
    fmt("grammar", grammar='root ::= "a" |'), fmt("grammar", grammar='root ::= | "a"'), fmt("grammar", grammar='root ::= "a" ) '),
    fmt("grammar", grammar='root ::= a-b\na-b ::= "x"'), fmt("grammar", grammar='root ::= "a"+?'),
    fmt("grammar", grammar=5),
    # optional / plus / star / repeat
    fmt("optional", content=AT), fmt("optional"), fmt("optional", content=5), fmt("plus", content=CS), fmt("star", content=CS),
    fmt("star"), fmt("plus", content=fmt("bogus")), {"content": CS},
    fmt("repeat", min=2, max=1, content=CS), fmt("repeat", min=1, max=3, content=CS), fmt("repeat", min=0, max=-1, content=CS),
    fmt("repeat", min=0, max=-2, content=CS), fmt("repeat", min=-1, max=3, content=CS), fmt("repeat", min="1", max=3, content=CS),
    fmt("repeat", min=1, max=3), fmt("repeat", max=3, content=CS), fmt("repeat", min=1.5, max=3, content=CS),
    fmt("repeat", min=0, max=2**40, content=CS), fmt("repeat", min=2**40, max=-1, content=CS), {"min": 1, "max": 2, "content": CS},
    fmt("repeat", min=True, max=3, content=CS),
    # token / exclude_token / any_tokens
    fmt("token", token="<|im_end|>"), fmt("token", token=5), fmt("token", token=-1), fmt("token", token=1.5),
    fmt("token", token=""), fmt("token"), fmt("token", token=[5]), fmt("token", token=2**31), fmt("token", token=0),
    fmt("token", token=True), fmt("exclude_token"), fmt("exclude_token", exclude_tokens=[1, 2]),
    fmt("exclude_token", exclude_tokens=["x"]), fmt("exclude_token", exclude_tokens=[-1]), fmt("exclude_token", exclude_tokens=5),
    fmt("exclude_token", exclude_tokens=[""]), fmt("any_tokens"), fmt("any_tokens", exclude_tokens=[1]),
    fmt("any_tokens", exclude_tokens=["a"]), fmt("any_tokens", max_tokens=5), fmt("any_tokens", max_tokens=-5),
    fmt("any_tokens", exclude_tokens=[1.5]),
    # token_triggered_tags
    fmt("token_triggered_tags", trigger_tokens=[5], tags=[tag({"type": "token", "token": 5}, AT, "</a>")]),
    fmt("token_triggered_tags", trigger_tokens=[5], tags=[tag({"type": "token", "token": 6}, AT, "</a>")]),
    fmt("token_triggered_tags", trigger_tokens=[5, 5], tags=[tag({"type": "token", "token": 5}, AT, "</a>")]),
    fmt("token_triggered_tags", trigger_tokens=[5], tags=[tag("<a>", AT, "</a>")]),
    fmt("token_triggered_tags", trigger_tokens=[], tags=[tag({"type": "token", "token": 5}, AT, "</a>")]),
    fmt("token_triggered_tags", trigger_tokens=[5], tags=[]),
    fmt("token_triggered_tags", trigger_tokens=["<a>"], tags=[tag({"type": "token", "token": 5}, AT, "</a>")]),
    fmt("token_triggered_tags", tags=[tag({"type": "token", "token": 5}, AT, "</a>")]),
    fmt("token_triggered_tags", trigger_tokens=[5], tags=[tag({"type": "token", "token": 5}, CS, "")], exclude_tokens=[3]),
    fmt("token_triggered_tags", trigger_tokens=[5], tags=[tag({"type": "token", "token": 5}, CS, "")], at_least_one=True, stop_after_first=True),
    # dispatch / token_dispatch
    fmt("dispatch", rules=[]), fmt("dispatch", rules=[["<a", CS]]), fmt("dispatch", rules=[["", CS]]),
    fmt("dispatch", rules=[["<a", CS, 1]]), fmt("dispatch", rules=[[5, CS]]), fmt("dispatch", rules=[["<a", 5]]),
    fmt("dispatch", rules=[["<a", CS]], loop=False), fmt("dispatch", rules=[["<a", CS]], loop="no"),
    fmt("dispatch", rules=[["<a", CS]], excludes=["x"]), fmt("dispatch", rules=[["<a", CS]], excludes=[""]),
    fmt("dispatch", rules=[["<a", CS], ["<a", CS]]), fmt("dispatch", rules=[["<a", CS], ["<ab", CS]]),
    fmt("dispatch", rules={"<a": CS}), fmt("dispatch"), {"rules": [["<a", CS]]}, {"rules": [[5, CS]]},
    tag(content=fmt("dispatch", rules=[["<a", CS]]), end=""),
    tag(content=fmt("dispatch", rules=[["<a", CS]], excludes=["z"]), end=""),
    fmt("token_dispatch", rules=[[5, CS]]), fmt("token_dispatch", rules=[["<x>", CS]]), fmt("token_dispatch", rules=[[-1, CS]]),
    fmt("token_dispatch", rules=[]), fmt("token_dispatch", rules=[[1.5, CS]]), fmt("token_dispatch", rules=[[5, CS]], exclude_tokens=[1]),
    fmt("token_dispatch", rules=[[5, CS]], exclude_tokens=["x"]), fmt("token_dispatch", rules=[[5, CS], [5, CS]]),
    # nesting
    nest(10), nest(50), nest(63), nest(78), nest(79), nest(90), nest(99), nest(120),
    # a realistic tool-call tag
    fmt("triggered_tags", triggers=["<tool_call>"], tags=[tag("<tool_call>\n{\"name\": \"f\", \"arguments\": ", fmt("json_schema", json_schema={"type": "object", "properties": {"x": {"type": "string"}}}), "}\n</tool_call>")]),
]

RAW: list[Any] = [
    '{"type": "structural_tag", "structures": [], "triggers": []}',
    '{"type": "structural_tag"}', "{}", "[]", '"x"', "not json", "", " ", "null", "5",
    '{"format": {"type": "any_text"}}', '{"type": "other", "format": {"type": "any_text"}}',
    '{"type": 5, "format": {"type": "any_text"}}', '{"type": "structural_tag", "format": {"type": "any_text"}, "extra": 1}',
    '{"format": {"type": "const_string", "value": NaN}}', '{"format": {"type": "repeat", "min": 1, "max": Infinity, "content": {"value": "a"}}}',
    '{"format": {"type": "any_text"}} trailing', '{"format": {"type": "any_text"},}',
    '{"format": {"type": "const_string", "value": "a"}, "format": {"type": "bogus"}}',
    '{"format": {"type": "bogus"}, "format": {"type": "const_string", "value": "a"}}',
    '["structures"]', '"structures"',
]

LEGACY: list[Any] = [
    {"structures": [{"begin": "<a>", "schema": {"type": "object"}, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {"type": "object"}, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {"type": "object"}, "end": "</a>"}], "triggers": ["<b"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {"type": "object"}, "end": "</a>"}], "triggers": []},
    {"type": "structural_tag", "structures": [], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": None, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": True, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": 1, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": "yes", "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": "{}", "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": False, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": 5, "schema": {}, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": ""}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {"type": "bogus"}, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": ["<a", "<a>"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": "<a"},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": [""]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": [5]},
    {"type": "structural_tag", "structures": {"a": 1}, "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}]},
    {"type": "other", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": ["<a"]},
    {"structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": ["<a"], "format": {"type": "bogus"}},
]

RESPONSE_FORMATS: list[Any] = [
    {"type": "structural_tag", "format": {}},
    {"type": "structural_tag", "format": {"type": "bogus"}},
    {"type": "structural_tag", "format": "string"},
    {"type": "structural_tag", "format": None},
    {"type": "structural_tag", "format": CS},
    {"type": "structural_tag", "format": AT, "extra": 1},
    {"type": "structural_tag"},
    {"type": "structural_tag", "structures": [], "triggers": []},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {"type": "object"}, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": True, "end": "</a>"}], "triggers": ["<a"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": ["<b"]},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": ["<a"], "format": AT},
    {"type": "structural_tag", "structures": [{"begin": "<a>", "schema": {}, "end": "</a>"}], "triggers": "<a", "format": AT},
    {"type": "structural_tag", "structures": "x", "triggers": ["<a"], "format": AT},
    {"type": "structural_tag", "format": fmt("regex", pattern="(a")},
    {"type": "structural_tag", "format": fmt("grammar", grammar='x ::= "a"')},
    {"type": "structural_tag", "format": fmt("json_schema", json_schema=False)},
]


# ---- more regexes and grammars, and random trees (seeded) mixing valid and broken parts ----
MORE_REGEX = ["a{1}", "a{01,2}", "a{2,2}?", "[[]", "[a-z-]", "[\\w-z]", "[a-\\w]", "\\d+?", "(a)(b)", "((a)|b)+", "a||b", "(?:)", "(?<n>a)(?<n>b)", "(?<1a>x)",
 "\\u00e9", "\\u{}", "\\u{1234567}", "\\x4", "\\cz", "\\c", "\\n\\t\\r", "[\\n-\\r]", "[^\\d]", "\\.", "a{1000}", "a+{2}", "a{2}*", "[a]]", "]", "}", "a}", "{", "x{2,3}?", "\\B", "[\\B]", "\\P{L}", "\\8", "\\0\\0", "(a|b|)", "(*)", "(+a)", "a|*", "^*", "$", "^", "^$", "a$*", "\\$+", "[\\]]", "[\\\\]", "[a\\-z]", "\\-", "\\e", "\\z", "\\A", "\\Z"]
MORE_GRAMMARS = ['root ::= "a" "b"', 'root ::= ( "a" )', 'root ::= ()', 'root ::= "a"*?', 'root ::= "a"{2}', 'root ::= "a"{,2}', 'root ::= "a"{2,}', 'root ::= "a"{3,1}', 'root ::= "a"{}',
 'root ::= [^a-z]', 'root ::= []', 'root ::= [z-a]', "root ::= 'a'", 'root::="a"', 'root ::= "a"\n\nfoo ::= "b"', 'root ::= "\\x41"', 'root ::= "\\q"', 'root ::= "a" (= "b") "c"',
 'root ::= x (= "b")\nx ::= "a"', 'root ::= "a" ;', 'root ::= "a"\n# c\n', 'Root ::= "a"', 'root ::= root', 'root ::= "a" root | ""', 'root ::= "a" | "b" | "c"', 'root ::= (("a"))', 'root ::= ("a" | )',
 'root ::= [a-z]{2,3}', 'root ::= "é"', 'root ::= x1\nx1 ::= "a"', 'root ::= _x\n_x ::= "a"', 'root ::= x.y\nx.y ::= "a"', 'root ::= 5', 'root ::= "a" "b"\n  | "c"', 'root ::= Repeat(x, 1, 2)\nx ::= "a"', 'root ::= "a" + "b"', 'root ::= <[1]>', 'root ::= "a" # c "b']

rng = random.Random(7)

LEAVES = [
 lambda: {"type":"const_string","value":rng.choice(["a","", "<x>"])},
 lambda: {"type":"any_text", **rng.choice([{}, {"excludes":["q"]}, {"excludes":[""]}, {"max_tokens":3}])},
 lambda: {"type":"json_schema","json_schema":rng.choice([True, False, {}, {"type":"string"}, {"type":"integer","minimum":3,"maximum":1}, {"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}]), **rng.choice([{}, {"style":"qwen_xml"}, {"style":"nope"}])},
 lambda: {"type":"regex","pattern":rng.choice(["a+","(a","[0-9]{2}","x|y","", "(?=x)", "a{3,2}"])},
 lambda: {"type":"grammar","grammar":rng.choice(['root ::= "a"','x ::= "a"','root ::= r\nr ::= [a-z]*','root ::= "a" | ', ''])},
 lambda: {"type":"token","token":rng.choice([1,"t",-2])},
 lambda: {"type":"any_tokens", **rng.choice([{}, {"exclude_tokens":[2]}, {"exclude_tokens":["s"]}])},
 lambda: {"type":"exclude_token","exclude_tokens":rng.choice([[1],[],["x"]])},
]
def tree(d):
    if d <= 0 or rng.random() < 0.3:
        return rng.choice(LEAVES)()
    k = rng.choice(["sequence","or","tag","triggered_tags","tags_with_separator","optional","plus","star","repeat","dispatch","token_dispatch","token_triggered_tags"])
    if k in ("sequence","or"):
        return {"type":k,"elements":[tree(d-1) for _ in range(rng.choice([0,1,2,3]))]}
    if k == "tag":
        return {"type":"tag","begin":rng.choice(["<a>","", {"type":"token","token":4}]),"content":tree(d-1),"end":rng.choice(["</a>","",["","x"],[]])}
    if k == "triggered_tags":
        tags=[{"begin":rng.choice(["<a>","<b>","<ab>"]),"content":tree(d-1),"end":rng.choice(["</a>",""])} for _ in range(rng.choice([1,2]))]
        return {"type":k,"triggers":rng.choice([["<a"],["<a","<b"],["<"],["<a","<ab"]]),"tags":tags, **rng.choice([{}, {"at_least_one":True,"stop_after_first":True}, {"excludes":["z"]}])}
    if k == "tags_with_separator":
        return {"type":k,"tags":[{"type":"tag","begin":"<a>","content":tree(d-1),"end":rng.choice(["</a>",""])}],"separator":rng.choice([",",""])}
    if k in ("optional","plus","star"):
        return {"type":k,"content":tree(d-1)}
    if k == "repeat":
        return {"type":k,"min":rng.choice([0,1,2]),"max":rng.choice([-1,0,1,3]),"content":tree(d-1)}
    if k == "dispatch":
        return {"type":k,"rules":[[rng.choice(["<a",""]),tree(d-1)]], **rng.choice([{}, {"excludes":["e"]}, {"loop":False}])}
    if k == "token_dispatch":
        return {"type":k,"rules":[[rng.choice([3,"x"]),tree(d-1)]]}
    if k == "token_triggered_tags":
        return {"type":k,"trigger_tokens":rng.choice([[4],[4,5]]),"tags":[{"begin":{"type":"token","token":4},"content":tree(d-1),"end":rng.choice(["</a>",""])}], **rng.choice([{}, {"exclude_tokens":[9]}])}
def strip_types(x):
    if isinstance(x, dict):
        x = {k: strip_types(v) for k, v in x.items() if not (k == "type" and rng.random() < 0.3)}
    elif isinstance(x, list):
        x = [strip_types(v) for v in x]
    return x


def random_formats(count: int) -> list[Any]:
    out = []
    for i in range(count):
        t = tree(4)
        out.append(strip_types(t) if i % 3 == 0 else t)
    return out


def cases() -> list[dict[str, Any]]:
    formats = FORMATS + [fmt("regex", pattern=r) for r in MORE_REGEX]
    formats += [fmt("grammar", grammar=g) for g in MORE_GRAMMARS] + random_formats(300)
    out = [{"payload": {"type": "structural_tag", "format": f}} for f in formats]
    out += [{"payload": r} for r in RAW] + [{"payload": p} for p in LEGACY]
    out += [{"payload": rf, "via": "response_format"} for rf in RESPONSE_FORMATS]
    return out


def verdict(case: dict[str, Any]) -> tuple[bool, str]:
    from vllm.entrypoints.generate.base.protocol import (
        validate_structural_tag_payload,
        validate_structural_tag_response_format,
    )

    payload = case["payload"]
    try:
        if case.get("via") == "response_format":
            validate_structural_tag_response_format(payload)
        else:
            text = payload if isinstance(payload, str) else json.dumps(payload)
            validate_structural_tag_payload(text, parameter="structured_outputs")
    except Exception as exc:  # noqa: BLE001 - any refusal is a verdict
        cause = exc.__cause__ or exc
        return False, f"{type(exc).__name__}: {exc} | {cause!r}"[:300]
    return True, ""


def main() -> None:
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    warnings.filterwarnings("ignore")
    todo = json.loads(Path(sys.argv[1]).read_text()) if len(sys.argv) > 1 else cases()
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else OUT
    table = []
    for case in todo:
        valid, error = verdict(case)
        table.append({**case, "valid": valid, **({"error": error} if error else {})})
    out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(table)} cases, {sum(c['valid'] for c in table)} valid -> {out}")


if __name__ == "__main__":
    main()
