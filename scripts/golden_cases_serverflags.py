"""Render cases for the server-flags corpus (`--exclude-tools-when-tool-choice-none`,
`--trust-request-mm-kwargs`, `--cohere-format`, `--override-generation-config`, engine-only
flags), recorded by `scripts/record_render41_golden.py --configs
tests/golden/configs-serverflags.json --out tests/golden/vllm-serverflags.jsonl
--cases-module golden_cases_serverflags`.

`RENDER_CASES["flags"]` maps a scenario to a request body (without `model`); `_endpoint` picks
completions, tokenize or messages instead of chat render.
"""

from __future__ import annotations

from typing import Any

from golden_cases import TOOLS

Body = dict[str, Any]

_ASK = [{"role": "user", "content": "Weather in Paris?"}]
_IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
_MESSAGES_TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]

FLAGS: dict[str, Body] = {
    "none_with_tools": {"messages": _ASK, "tools": TOOLS, "tool_choice": "none"},
    "auto_with_tools": {"messages": _ASK, "tools": TOOLS, "tool_choice": "auto"},
    "default_choice_with_tools": {"messages": _ASK, "tools": TOOLS},
    "none_without_tools": {"messages": _ASK, "tool_choice": "none"},
    "required_with_tools": {"messages": _ASK, "tools": TOOLS, "tool_choice": "required"},
    "named_with_tools": {
        "messages": _ASK,
        "tools": TOOLS,
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
    },
    "mm_processor_kwargs": {"messages": _ASK, "mm_processor_kwargs": {"num_crops": 4}},
    "media_io_kwargs": {"messages": _ASK, "media_io_kwargs": {"image": {"mode": "RGB"}}},
    "image_with_mm_kwargs": {
        "messages": [{"role": "user", "content": [_IMAGE, {"type": "text", "text": "What?"}]}],
        "mm_processor_kwargs": {"num_crops": 4},
    },
    "messages_none_with_tools": {
        "_endpoint": "messages",
        "max_tokens": 64,
        "messages": _ASK,
        "tools": _MESSAGES_TOOLS,
        "tool_choice": {"type": "none"},
    },
    "messages_auto_with_tools": {
        "_endpoint": "messages",
        "max_tokens": 64,
        "messages": _ASK,
        "tools": _MESSAGES_TOOLS,
        "tool_choice": {"type": "auto"},
    },
    "tokenize_tools": {"_endpoint": "tokenize", "messages": _ASK, "tools": TOOLS},
    "tokenize_mm_processor_kwargs": {
        "_endpoint": "tokenize",
        "messages": _ASK,
        "mm_processor_kwargs": {"num_crops": 4},
    },
    "max_tokens_over_a_cap": {"messages": _ASK, "max_tokens": 500, "temperature": 0.9},
    "completion_max_tokens": {"_endpoint": "completions", "prompt": "Hello", "max_tokens": 500},
    "completion_media_io_kwargs": {
        "_endpoint": "completions",
        "prompt": "Hello",
        "media_io_kwargs": {"image": {"mode": "RGB"}},
    },
}

RENDER_CASES: dict[str, dict[str, Body]] = {"flags": FLAGS}
