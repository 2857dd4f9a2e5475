"""Cases for the reasoning parsers `glm47` and `holo2` (imported with `--cases-module`).

Whole case lists in `golden_cases.CASE_LISTS` (configs name them as `"cases": ["list", NAME]`):

* `reasoning2_think`: the shared reasoning kinds of `golden_cases.reasoning_cases` with `<think>`
  markers, plus the thinking switch (`thinking` / `enable_thinking`, alone and mixed), an empty
  output, reasoning that a stop (not a length cut) leaves open, and repeated closers;
* `reasoning2_glm47_tools` / `reasoning2_hermes_tools`: the shared tool kinds of
  `golden_cases.tool_cases` in GLM-4.7 / hermes call format, plus reasoning before parallel
  calls, a call inside unclosed reasoning and calls with thinking switched off.
"""

from __future__ import annotations

from collections.abc import Callable

import golden_cases as gc
from golden_cases import Case

START, END = "<think>", "</think>"


def _kwargs(**values: bool) -> dict[str, dict[str, bool]]:
    return {"chat_template_kwargs": dict(values)}


def think_cases() -> list[Case]:
    extra = [
        Case(
            "thinking_false",
            f"{START}Hidden?{END}Shown.",
            request=_kwargs(thinking=False),
            with_tools=False,
        ),
        Case(
            "thinking_true_enable_false",
            f"{START}Both switches.{END}Answer.",
            request=_kwargs(thinking=True, enable_thinking=False),
            with_tools=False,
        ),
        Case(
            "enable_thinking_true",
            f"No opener here.{END}Answer.",
            request=_kwargs(enable_thinking=True),
            with_tools=False,
        ),
        Case(
            "disabled_with_markers",
            f"{START}Ignored.{END}Shown.",
            request=_kwargs(enable_thinking=False),
            with_tools=False,
        ),
        Case("empty_output", "", with_tools=False),
        Case("open_at_stop", f"{START}Never closed.", with_tools=False),
        Case("repeated_end", f"{START}One.{END}Two.{END}Three.", with_tools=False),
        Case("blank_reasoning", f"{START}\n\n{END}\n\nAfter blank.", with_tools=False),
    ]
    return gc.reasoning_cases(START, END) + extra


def _after_think(cases: list[Case]) -> list[Case]:
    """The call kinds again behind a closed reasoning block (an R1-style model that thinks first)."""
    kinds = {
        "one_call",
        "parallel_calls",
        "text_before_call",
        "text_around_call",
        "unicode_nested",
        "cut_off",
        "tool_choice_none",
        "no_tools_in_request",
        "malformed_call",
    }
    prefix = f"{START}Plan.{END}"
    return [
        Case(
            f"think_{c.scenario}", prefix + c.output, c.finish_reason, dict(c.request), c.with_tools
        )
        for c in cases
        if c.scenario in kinds
    ]


def _tool_cases(fmt: gc.ParserFormat, after_think: bool = False) -> Callable[[], list[Case]]:
    def cases() -> list[Case]:
        assert fmt.calls is not None
        f = fmt.calls
        extra = [
            Case("reasoning_and_parallel", f"{START}Two lookups.{END}" + f(gc.PARALLEL)),
            Case("call_in_open_reasoning", f"{START}Let me call.\n" + f(gc.ONE)),
            Case("thinking_disabled_call", f(gc.ONE), request=_kwargs(enable_thinking=False)),
            Case(
                "thinking_disabled_think_call",
                f"{START}x{END}" + f(gc.ONE),
                request=_kwargs(enable_thinking=False),
            ),
            Case(
                "reasoning_cut_off",
                f"{START}Need weather data.{END}" + f(gc.ONE)[:12],
                finish_reason="length",
            ),
        ]
        base = gc.tool_cases(fmt)
        return base + extra + (_after_think(base) if after_think else [])

    return cases


def glm_template_cases() -> list[Case]:
    """GLM-4.7 prompts (tests/models/glm47-synth): the generation prompt opens `<think>` (or closes
    it when `enable_thinking` is false), so the output starts inside the reasoning; a prompt that
    closes the reasoning in the current turn starts the parser in content (turn boundaries)."""
    call = gc.FORMATS["glm47"].calls
    assert call is not None
    one, par = call(gc.ONE), call(gc.PARALLEL)
    mixed = _kwargs(thinking=True, enable_thinking=False)
    history = [
        {"role": "user", "content": "Hi."},
        {
            "role": "assistant",
            "reasoning_content": "Earlier thought.",
            "content": "Earlier answer.",
        },
        {"role": "user", "content": "What's the weather in Paris?"},
    ]
    partial = [
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": "Let me"},
    ]
    cont = {"messages": partial, "add_generation_prompt": False, "continue_final_message": True}
    return [
        Case("open_reasoning_content", f"Thought.{END}Answer."),
        Case("open_reasoning_call", f"Need data.{END}" + one),
        Case("open_reasoning_parallel", f"Two lookups.{END}" + par),
        Case("call_inside_reasoning", "Need data.\n" + one),
        Case("open_reasoning_cut", "Still thinking", finish_reason="length"),
        Case("disabled_content", "Direct answer.", request=_kwargs(enable_thinking=False)),
        Case("disabled_call", one, request=_kwargs(enable_thinking=False)),
        Case("mixed_prompt_closed", "Direct answer.", request=mixed),
        Case("mixed_prompt_closed_think", f"{START}Late.{END}After.", request=mixed),
        Case("mixed_prompt_closed_call", "Sure.\n" + one, request=mixed),
        Case("history_reasoning", f"New thought.{END}New answer.", request={"messages": history}),
        Case(
            "history_disabled",
            "Plain.",
            request={"messages": history, **_kwargs(enable_thinking=False)},
        ),
        Case("continue_final", f" check.{START}Hmm.{END}Done.", request=cont),
        Case("continue_final_call", " check.\n" + one, request=cont),
        Case("tool_choice_none", f"Plan.{END}" + one, request={"tool_choice": "none"}),
        Case("no_tools_reasoning", f"Plan.{END}Answer.", with_tools=False),
    ]


def glm_template_cases_without_tools() -> list[Case]:
    """The same outputs without tools in the request (a server with only the reasoning parser
    refuses to render a request with tools under the default tool_choice)."""
    return [
        Case(c.scenario, c.output, c.finish_reason, dict(c.request), with_tools=False)
        for c in glm_template_cases()
        if "tool_choice" not in c.request
    ]


CASE_LISTS = getattr(gc, "CASE_LISTS", {})
CASE_LISTS.update(
    {
        "reasoning2_think": think_cases,
        "reasoning2_glm47_tools": _tool_cases(gc.FORMATS["glm47"]),
        "reasoning2_glm_template": glm_template_cases,
        "reasoning2_glm_template_notools": glm_template_cases_without_tools,
        "reasoning2_hermes_tools": _tool_cases(gc.FORMATS["hermes"], after_think=True),
    }
)
gc.CASE_LISTS = CASE_LISTS  # type: ignore[attr-defined]
