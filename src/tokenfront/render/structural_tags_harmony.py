"""vLLM's `harmony` structural tag (tool parser `openai`): calls as Harmony messages.

After an optional analysis message and an optional commentary message (each followed by
`<|start|>assistant`), the output is one of: a call to a tool, its header written either as
`<|channel|>C to=functions.NAME` or ` to=functions.NAME<|channel|>C` for the channels
commentary / analysis / final and with ` json` or ` <|constrain|>json`, its arguments the tool's
JSON schema; or (tool_choice "auto") a final-channel answer of any text. A Responses request
that also lists builtin tools (web search preview, ...) gets vLLM's fallback instead: any call
header (`to=` or `<|channel|>C to=`) with any text.
"""

from __future__ import annotations

from typing import Any

from tokenfront.render.structural_tags import Fmt, Tool, any_text, const, json_schema, sequence, tag

END = ["<|end|>", ""]  # Harmony's stop tokens are written as "" (sampling stops there)
CONSTRAINS = (" json", " <|constrain|>json")
CALL_CHANNELS = ("<|channel|>commentary", "<|channel|>analysis", "<|channel|>final")
CALL_BEGINS = (
    " to=functions.{name}{channel}{constrain}<|message|>",
    "{channel} to=functions.{name}{constrain}<|message|>",
)
FINAL_BEGIN = "<|channel|>final{constrain}<|message|>"


def _optional_message(channel: str) -> Fmt:
    return {
        "type": "optional",
        "content": sequence(
            [tag(f"<|channel|>{channel}<|message|>", any_text(), "<|end|>"), const("<|start|>assistant")]
        ),
    }


def channel_tag(content: Fmt, *, commentary: bool = True) -> Fmt:
    """The sequence vLLM wraps around the answer: optional analysis (and commentary) first."""
    elements = [_optional_message("analysis")]
    if commentary:
        elements.append(_optional_message("commentary"))
    return sequence([*elements, content])


def final_answer(answer: Fmt) -> Fmt:
    """vLLM's reasoning-aware answer: after an optional analysis message, a JSON schema in a
    `final` message with either `constrain` spelling, other formats in a plain one."""
    if answer.get("type") == "json_schema":
        final: Fmt = {
            "type": "or",
            "elements": [tag(FINAL_BEGIN.format(constrain=c), answer, END) for c in CONSTRAINS],  # type: ignore[arg-type]
        }
    else:
        final = tag(FINAL_BEGIN.format(constrain=""), answer, END)  # type: ignore[arg-type]
    return channel_tag(final, commentary=False)


def _final_any(choice: str) -> list[Any]:
    if choice != "auto":
        return []
    return [tag(FINAL_BEGIN.format(constrain=c), any_text(), END) for c in (*CONSTRAINS, "")]  # type: ignore[arg-type]


def harmony_builtin(choice: str) -> Fmt:
    """The fallback when builtin tools are listed beside (or instead of) the functions."""
    calls: list[Any] = [tag("to=", any_text(["<|start|>"]), END)]  # type: ignore[arg-type]
    calls += [
        tag(f"{channel} to=", any_text(["<|start|>", "<|channel|>"]), END)  # type: ignore[arg-type]
        for channel in CALL_CHANNELS
    ]
    return channel_tag({"type": "or", "elements": calls + _final_any(choice)})


def harmony(tools: list[Tool], choice: str) -> Fmt:
    tags: list[Any] = [
        tag(begin.format(name=name, channel=channel, constrain=constrain), json_schema(schema), END)  # type: ignore[arg-type]
        for name, schema in tools
        for begin in CALL_BEGINS
        for constrain in CONSTRAINS
        for channel in CALL_CHANNELS
    ]
    return channel_tag({"type": "or", "elements": tags + _final_any(choice)})
