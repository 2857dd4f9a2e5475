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


CASE_LISTS = getattr(gc, "CASE_LISTS", {})
CASE_LISTS.update(
    {
        "reasoning2_think": think_cases,
        "reasoning2_glm47_tools": _tool_cases(gc.FORMATS["glm47"]),
        "reasoning2_hermes_tools": _tool_cases(gc.FORMATS["hermes"], after_think=True),
    }
)
gc.CASE_LISTS = CASE_LISTS  # type: ignore[attr-defined]
