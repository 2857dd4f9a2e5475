"""Mistral tool-call cases for the parser golden corpus (imported with `--cases-module`).

Two whole case lists in `golden_cases.CASE_LISTS` (configs name them as `"cases": ["list", NAME]`):

* `mistral_v11`: the v11 format `[TOOL_CALLS]NAME{args}` / `[TOOL_CALLS]NAME[ARGS]{args}`, for a
  v11 tokenizer (tests/models/mistral-v11), including vLLM's parser-test outputs;
* `mistral_pre_v11_edges`: outputs of the shared pre-v11 `mistral` model whose text after
  `[TOOL_CALLS]` is not valid JSON but is not the v11 shape either (junk, prose, a name then a
  JSON array), so vLLM 0.33.0's pre-v11 answers apply to them unchanged.
"""

from __future__ import annotations

import json
from typing import Any

import golden_cases as gc
from golden_cases import Call, Case

BOT, ARGS = "[TOOL_CALLS]", "[ARGS]"


def _js(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False)


def v11(calls: list[Call], sep: str = "") -> str:
    return "".join(f"{BOT}{name}{sep}{_js(args)}" for name, args in calls)


def v11_cases() -> list[Case]:
    one, par, nested = v11(gc.ONE), v11(gc.PARALLEL), v11(gc.NESTED)
    return [
        Case("plain", "The capital of France is Paris."),
        Case("one_call", one),
        Case("one_call_args_token", v11(gc.ONE, ARGS)),
        Case("parallel_calls", par),
        Case("parallel_calls_args_token", v11(gc.PARALLEL, ARGS)),
        Case("text_before_call", "Let me check that for you.\n" + one),
        Case("whitespace_before_call", "\n\n" + one),
        Case("text_after_call", one + "\nDone."),
        Case("unicode_nested", nested),
        Case("cut_off", one[: len(one) * 2 // 3], finish_reason="length"),
        Case("cut_off_in_name", f"{BOT}get_wea", finish_reason="length"),
        Case("tool_choice_none", "Sure. " + one, request={"tool_choice": "none"}),
        Case("no_tools_in_request", one, with_tools=False),
        Case("braces_in_content", "hi{hi" + one),
        Case("braces_in_string", f'{BOT}search{{"query": "a {{b}} [c] \\"d\\""}}'),
        Case("typed_values", f'{BOT}get_weather{{"city": "Paris", "days": "3"}}'),
        Case("empty_args", f"{BOT}get_weather{{}}"),
        Case("args_token_no_body", f"{BOT}get_weather{ARGS}"),
        Case("no_name", f'{BOT}{{"city": "Paris"}}'),
        Case("pre_v11_json", f'{BOT}[{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}]'),
        Case("vllm_test_add", f'{BOT}add_this_and_that{{"a": 3.5, "b": 4}}'),
        Case("vllm_test_complex", "hi{hi" + BOT + 'bash{"command": "print(\\"hello world!\\")\\nre.compile(r\'{}\')'),
        Case("vllm_test_wrong_json", "hi{hi" + BOT + 'bash{"command": "print(\\"hello world!\\")\\nre.compile(r\'{}\')"}'),
        Case("vllm_test_bare_name", f"{BOT}toolname_no_args"),
    ]


def pre_v11_edge_cases() -> list[Case]:
    call = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    return [
        Case("not_json", f"{BOT} not json at all"),
        Case("junk_then_array", f"{BOT}  junk {call} trail"),
        Case("name_space_array", f"{BOT}get_weather {call}"),
        Case("name_then_array", f"{BOT}get_weather{call}"),
        Case("name_then_bracket_text", f"{BOT}get_weather[A]"),
        Case("prose_after_marker", f"{BOT}Sorry, I cannot call tools."),
        Case("whitespace_then_array", f"{BOT}\n  {call}"),
        Case("two_markers", f"{BOT}{BOT}{call}"),
    ]


CASE_LISTS = getattr(gc, "CASE_LISTS", {})
CASE_LISTS.update({"mistral_v11": v11_cases, "mistral_pre_v11_edges": pre_v11_edge_cases})
gc.CASE_LISTS = CASE_LISTS  # type: ignore[attr-defined]
