"""`olmo3`: newline-separated Python calls, optionally inside `<function_calls>...</function_calls>`.

    <function_calls>get_weather(city="Paris", unit=null)
    search(query="ramen")</function_calls>

The calls (the block's body if there is one, else the whole output) are joined into a
`[call, call]` list and parsed like `pythonic`; JSON literals (`true`, `null`) are allowed.
Once a block parses, text outside it is dropped. Streaming only treats output that starts
with `<` as tool markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenfront.parsers.base import DeltaMessage, ExtractedToolCalls, JSONState, ToolParser
from tokenfront.parsers.engines.lazy_blocks import lazy_blocks
from tokenfront.parsers.engines.python_calls import (
    call_list_delta,
    calls_in_module,
    lines_as_list,
    looks_like_call_list,
    new_streaming_state,
    parse_module,
    unstreamed_call_args,
)
from tokenfront.parsers.registry import tool_parser

OPEN, CLOSE = "<function_calls>", "</function_calls>"


@tool_parser("olmo3")
class Olmo3ToolParser(ToolParser):
    name = "olmo3"

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        block = next(lazy_blocks(text, OPEN, CLOSE), None)  # vLLM's `OPEN(.*?)CLOSE`
        body = text[block[0] + len(OPEN) : block[1] - len(CLOSE)] if block else None
        source = lines_as_list(body.strip() if body is not None else text)
        if not looks_like_call_list(source):
            return ExtractedToolCalls(False, [], text)
        try:
            calls = calls_in_module(parse_module(source), skip_bad_calls=True)
        except Exception:
            return ExtractedToolCalls(False, [], text)
        return ExtractedToolCalls(True, calls, None)

    def initial_state(self) -> JSONState:
        return new_streaming_state()

    def remaining_args(self, state: JSONState) -> str:
        return unstreamed_call_args(state)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if "text" not in state:
            state.update(new_streaming_state())
        state["text"] += delta_text
        current = state["text"]
        if not current.startswith("<"):
            return DeltaMessage(content=delta_text)
        current = current.removeprefix(OPEN)
        current = current.removesuffix(CLOSE)
        return call_list_delta(state, current, one_per_line=True)
