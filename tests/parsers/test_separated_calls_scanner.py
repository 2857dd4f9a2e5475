"""DeepSeek V3 / V3.1 call readers (`engines/separated_scan.py`) against vLLM's regexes.

The regexes stay the contract: on random text built from the formats' pieces the readers
give the same matches, groups and spans; on long adversarial text they finish (the regexes
backtrack for cubic time there).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from calls_support import make, oneshot, run_stream, tokenizer, tool
from marker_texts import marker_text

from tokenfront.parsers.engines.separated_scan import (
    CallFormat,
    read_name,
    read_partial,
    scan_calls,
)
from tokenfront.parsers.tools.deepseek_v3 import DeepSeekV3ToolParser
from tokenfront.parsers.tools.deepseek_v31 import DeepSeekV31ToolParser

B, S, E = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
CALLS_B, CALLS_E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
FENCE = "\n```json\n"
PIECES = [B, S, E, CALLS_B, CALLS_E, "\n", "```json", "\n```", FENCE, "function", "f", "{}", " "]
PIECES.append("x")
SPECS = [DeepSeekV3ToolParser, DeepSeekV31ToolParser]
# A format's literals in call order: random text follows them part of the time, so that
# calls match often and miss in every way.
SPINES = {
    "deepseek_v3": [B, "function", S, FENCE, "\n```" + E],
    "deepseek_v31": [B, S, E],
}


def random_texts(seed: int, count: int, spine: list[str]) -> list[str]:
    rng = random.Random(seed)
    return [marker_text(rng, spine, PIECES, 24, follow=0.4) for _ in range(count)]


def regex_calls(pattern: re.Pattern[str], text: str) -> list[tuple[object, ...]]:
    out = []
    for m in pattern.finditer(text):
        groups = m.groupdict()
        out.append((m.start(), m.end(), groups.get("type"), groups["name"], groups["arguments"]))
    return out


def regex_partial(pattern: re.Pattern[str], text: str) -> tuple[str, str] | None:
    m = pattern.match(text)
    return None if m is None else (m.group("name"), m.group("arguments"))


def regex_name(pattern: re.Pattern[str], text: str) -> str | None:
    m = pattern.match(text)
    return None if m is None else m.group("name")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_scan_calls_equals_call_regex_finditer_on_random_text(spec: type) -> None:
    matched = 0
    for text in random_texts(20260, 4000, SPINES[spec.name]):
        want = regex_calls(spec.call_regex, text)
        assert [tuple(c) for c in scan_calls(text, spec.call_format)] == want, text
        matched += bool(want)
    assert matched > 300  # the alphabet produces matches, not only misses


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_partial_readers_equal_portion_and_name_regex_match_on_random_text(spec: type) -> None:
    read = 0
    for text in random_texts(7, 4000, SPINES[spec.name]):
        # Streaming reads a call's text after its begin marker.
        body = text.split(B)[-1]
        for sample in (text, body):
            want = regex_partial(spec.portion_regex, sample)
            assert read_partial(sample, spec.call_format) == want, sample
            assert read_name(sample, spec.call_format) == regex_name(spec.name_regex, sample)
            read += want is not None
    assert read > 300


def test_v3_type_ends_at_the_last_separator_and_name_at_the_line_end() -> None:
    fmt = DeepSeekV3ToolParser.call_format
    text = f"{B}a{S}b{S}c\n```json\n{{}}\n```{E}"
    assert [tuple(c) for c in scan_calls(text, fmt)] == [(0, len(text), f"a{S}b", "c", "{}")]


def test_v31_name_ends_at_the_first_separator_on_the_begin_line() -> None:
    fmt = DeepSeekV31ToolParser.call_format
    text = f"{B}a{S}b{S}c{E}{B}x\n{S}{E}"
    first = (0, text.index(E) + len(E), None, "a", f"b{S}c")
    assert [tuple(c) for c in scan_calls(text, fmt)] == [first]


def test_format_refuses_a_separator_spanning_lines() -> None:
    with pytest.raises(ValueError):
        CallFormat(begin=B, sep="\n", end=E)


# Long adversarial text: the regexes backtrack for cubic time here (hours at 200,000
# characters), the readers are linear. (spec, repeated unit, tail, calls for n units)
ADVERSARIAL: dict[str, tuple[type, str, str, Callable[[int], int]]] = {
    "v3 begin and separators on one line": (
        DeepSeekV3ToolParser,
        CALLS_B + B + "function" + S + "get_weat",
        "",
        lambda n: 0,
    ),
    "v3 separators on one line, a fence, no end": (
        DeepSeekV3ToolParser,
        B + "function" + S + "ab",
        FENCE + "{",
        lambda n: 0,
    ),
    # The first begin's type runs to the last separator: one call.
    "v3 separators on one line, one closed call": (
        DeepSeekV3ToolParser,
        B + "function" + S + "ab",
        FENCE + "{}\n```" + E,
        lambda n: 1,
    ),
    "v31 begin and separator, no end": (
        DeepSeekV31ToolParser,
        CALLS_B + B + "f" + S + "get_weat",
        "",
        lambda n: 0,
    ),
    # Each `g` call runs to the next `f` call's end marker.
    "v31 half a call list repeated": (
        DeepSeekV31ToolParser,
        B + "f" + S + '{"a": 1}' + E + B + "g" + S + '{"b"',
        "",
        lambda n: n,
    ),
}


@pytest.mark.parametrize("case", ADVERSARIAL, ids=str)
def test_long_adversarial_text_is_scanned_like_the_regex(case: str) -> None:
    spec, unit, tail, count = ADVERSARIAL[case]
    small = unit * 40 + tail
    want = regex_calls(spec.call_regex, small)
    assert [tuple(c) for c in scan_calls(small, spec.call_format)] == want
    assert len(want) == count(40)
    repeats = 200_000 // len(unit) + 1
    assert len(scan_calls(unit * repeats + tail, spec.call_format)) == count(repeats)


def test_long_call_text_is_read_partially_like_the_regex() -> None:
    v3, v31 = DeepSeekV3ToolParser.call_format, DeepSeekV31ToolParser.call_format
    seps = "function" + (S + "ab") * 16_000
    assert read_name(seps, v3) is None and read_partial(seps, v3) is None
    fenced = seps + FENCE + "{" + "`" * 1000 + "x" + "\n`" * 1000
    assert read_name(fenced, v3) == "ab"
    assert read_partial(fenced, v3) == ("ab", "{" + "`" * 1000 + "x")
    name = "f" + (S + "ab") * 15_999
    assert read_name(name + S + "ab", v31) == name
    assert read_partial(name + S + "ab", v31) == (name, "ab")


def test_parsers_read_long_adversarial_output_one_shot_and_in_one_chunk() -> None:
    text = (CALLS_B + B + "f" + S + '{"a": 1}' + E + B + "g" + S + '{"b"') * 4000
    v31 = make("deepseek_v31", "deepseek")
    calls, _ = oneshot(v31, text)
    assert len(calls) == 4000 and calls[0] == ("f", '{"a": 1}')
    v3 = make("deepseek_v3", "deepseek")
    text = CALLS_B + B + "function" + (S + "ab") * 16_000 + "\nx"
    assert oneshot(v3, text) == ([], None)
    _, _, calls = run_stream(v3, [(text, tokenizer("deepseek").encode(text))])
    assert calls == [("ab", "")]  # named once the header line ends, as the regex reads it


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_the_kept_call_text_is_what_splitting_at_the_last_call_begin_finds(
    spec: type,
) -> None:
    # the streamed text is kept from its last call-begin marker on, in a head and pieces
    # joined only when needed; read at any point it is what vLLM's split of the whole text
    # at that marker gives, and the call text ends at the first call-end marker after it
    parser = make(spec.name, "deepseek")
    rng = random.Random(2416)
    for text in random_texts(2416, 1500, SPINES[spec.name]):
        state = parser.initial_state()
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(1, 8))))
        seen = ""
        for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
            seen += text[start:end]
            parser._keep(state, text[start:end])
            body = seen.split(B)[-1]
            if rng.random() < 0.5:
                assert parser._call_text(state) == body.split(E)[0], seen
            assert parser._call_body(state) == body, seen
            assert state["text"].startswith(B) == (B in seen)


def test_kimi_k2_retyped_arguments_are_settled_once_per_run_of_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tokenfront.parsers.engines import section_calls

    settled = [0]
    original = section_calls.settled_prefix

    def counted(raw: str, props: dict) -> str:
        settled[0] += 1
        return original(raw, props)

    monkeypatch.setattr(section_calls, "settled_prefix", counted)
    value = "x" * 3000
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        f'<|tool_call_argument_begin|>{{"city": "{value}", "days": 3}}'
        "<|tool_call_end|><|tool_calls_section_end|>"
    )
    properties = {"city": {"type": "string"}, "days": {"type": "integer"}}
    parser = make("kimi_k2", "synthetic-multi", [tool("get_weather", properties)])
    result = parser.extract_tool_calls(text)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", f'{{"city": "{value}", "days": 3}}')
    ]
    assert settled[0] <= 2
