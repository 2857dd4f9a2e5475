"""Structural tags for DSML tool calls (DeepSeek V3.2 / V4 / V4.1), MiMo and PLaMo 3.

The DeepSeek and MiMo formats are xgrammar builtins that vLLM requests without a reasoning
prefix; PLaMo 3's is vLLM's own. Each builder takes the (name, argument schema) tools and the
simplified choice "auto" / "required" / "forced", like `structural_tags.BUILDERS`.
"""

from __future__ import annotations

from typing import Any

from tokenfront.render.structural_tags import (
    Fmt,
    Tool,
    any_text,
    const,
    json_schema,
    sequence,
    tag,
    triggered,
    with_separator,
)

_THINK = ["<think>", "</think>"]
_DSML = "｜DSML｜"


def _dsml(tools: list[Tool], choice: str, *, invoke: str, calls: str, style: str) -> Fmt:
    """DSML calls block: `<DSML{calls}>` then one `<DSML{invoke} name="...">` per call."""
    calls_begin = f"<{_DSML}{calls}>\n"
    calls_end = f"</{_DSML}{calls}>"

    def call(name: str, schema: Any) -> Fmt:
        return tag(
            f'<{_DSML}{invoke} name="{name}">\n', json_schema(schema, style), f"</{_DSML}{invoke}>\n"
        )

    if choice == "forced":
        return sequence([const("\n\n" + calls_begin), call(*tools[0]), const(calls_end)])
    tags = [call(name, schema) for name, schema in tools]
    if choice == "required":
        return sequence([
            const("\n\n" + calls_begin), with_separator(tags, "", at_least_one=True), const(calls_end)
        ])  # fmt: skip
    if not tags:
        return any_text(_THINK + ([f"<{_DSML}{calls}>"] if calls == " calls" else []))
    block = tag(calls_begin, with_separator(tags, "", at_least_one=True), calls_end)
    return triggered([f"<{_DSML}{calls}>"], [block], excludes=_THINK)


def deepseek_v3_2(tools: list[Tool], choice: str) -> Fmt:
    return _dsml(tools, choice, invoke="invoke", calls="function_calls", style="deepseek_xml")


def deepseek_v4(tools: list[Tool], choice: str) -> Fmt:
    return _dsml(tools, choice, invoke="invoke", calls="tool_calls", style="deepseek_xml")


def deepseek_v4_1(tools: list[Tool], choice: str) -> Fmt:
    return _dsml(tools, choice, invoke=" invoke", calls=" calls", style="deepseek_v4_1_xml")


def mimo(tools: list[Tool], choice: str) -> Fmt:
    """`<tool_call><function=NAME>` + Qwen-XML parameters, no newlines between wrappers."""
    excludes = ["<think>", "</think>", "</tool_call>", "<function="]
    tags = [
        tag(f"<tool_call><function={name}>", json_schema(schema, "qwen_xml"), "</function></tool_call>")
        for name, schema in tools
    ]
    if choice == "forced":
        return tags[0]
    if not tags:
        return any_text(["<tool_call>", *excludes])
    return triggered(["<tool_call>"], tags, at_least_one=choice == "required", excludes=excludes)


_PLAMO = "<|plamo:{}:plamo|>"


def plamo3(tools: list[Tool], choice: str) -> Fmt:
    """`begin_tool_requests` block of `begin_tool_request` entries with JSON arguments."""
    requests_begin = _PLAMO.format("begin_tool_requests")
    requests_end = _PLAMO.format("end_tool_requests")
    arguments_begin = _PLAMO.format("begin_tool_arguments") + "<|plamo:constrain|>json<|plamo:msg|>"
    entries = [
        tag(
            _PLAMO.format("begin_tool_request") + _PLAMO.format("begin_tool_name") + name
            + _PLAMO.format("end_tool_name") + arguments_begin,
            json_schema(schema),
            _PLAMO.format("end_tool_arguments") + _PLAMO.format("end_tool_request"),
        )
        for name, schema in tools
    ]  # fmt: skip
    inner = with_separator(entries, "", at_least_one=True, stop_after_first=choice == "forced")
    block: Fmt = {"type": "tag", "begin": requests_begin, "content": inner,
                  "end": [requests_end, requests_end + "<|plamo:tag|>"]}  # fmt: skip
    if choice == "auto":
        return triggered([requests_begin], [block])
    return block
