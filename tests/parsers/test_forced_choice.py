"""tool_choice required / named: vLLM's forced JSON path or the parser's auto path, with and
without strict tool calling (VLLM_ENFORCE_STRICT_TOOL_CALLING)."""

from __future__ import annotations

import pytest

from tokenfront.parsers import registry
from tokenfront.parsers.builtin_index import TOOL_PARSER_MODULES

# vLLM 0.33.0's `supports_required_and_named` with the variable unset (strict): the parsers
# that read required / named output as JSON themselves.
FORCED_JSON_STRICT = frozenset(
    "apertus beam cohere_command3 cohere_command4 ernie45 functiongemma gigachat3 granite "
    "granite-20b-fc granite4 hf hunyuan_a13b hy_v3 internlm jamba lfm2 llama4_pythonic minicpm5 "
    "olmo3 phi4_mini_json pythonic seed_oss step3 xlam".split()
)
# ... and with VLLM_ENFORCE_STRICT_TOOL_CALLING=0: every parser whose structural tag model was
# what turned it off (read from vLLM's ToolParserManager under both settings).
FORCED_JSON_UNLESS_STRICT = frozenset(
    "deepseek_v3 deepseek_v31 deepseek_v32 deepseek_v4 deepseek_v41 hermes kimi_k2 llama3_json "
    "llama4_json longcat mimo minimax_m2 openai qwen3_coder qwen3_json qwen3_xml step3p5 "
    "step5".split()
)


@pytest.mark.parametrize("name", sorted(TOOL_PARSER_MODULES))
@pytest.mark.parametrize("strict", [True, False])
def test_forced_json_choice_matches_vllm(name: str, strict: bool) -> None:
    want = name in FORCED_JSON_STRICT or (not strict and name in FORCED_JSON_UNLESS_STRICT)
    assert registry.get_tool_parser(name).forced_choice(strict) is want
