"""Image-input cases for the dsimage corpus (DeepSeek V4 / V4.1 encoders given image parts), recorded
by `scripts/record_render41_golden.py --cases-module golden_cases_dsimage`.
"""

from __future__ import annotations

from typing import Any

from golden_cases import TOOLS

Body = dict[str, Any]

PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAA"
    "AABJRU5ErkJggg=="
)
_IMG = {"type": "image_url", "image_url": {"url": PNG}}
_TEXT = {"type": "text", "text": "What is in the picture?"}

IMAGES: dict[str, Body] = {
    "image_and_text": {"messages": [{"role": "user", "content": [_TEXT, _IMG]}]},
    "image_only": {"messages": [{"role": "user", "content": [_IMG]}]},
    "two_images": {"messages": [{"role": "user", "content": [_IMG, _TEXT, _IMG]}]},
    "input_image_part": {
        "messages": [
            {"role": "user", "content": [_TEXT, {"type": "input_image", "image_url": PNG}]}
        ]
    },
    "bad_base64": {
        "messages": [
            {
                "role": "user",
                "content": [
                    _TEXT,
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,!!!"}},
                ],
            }
        ]
    },
    "image_with_tools": {"messages": [{"role": "user", "content": [_TEXT, _IMG]}], "tools": TOOLS},
    "image_in_history": {
        "messages": [
            {"role": "user", "content": [_IMG, _TEXT]},
            {"role": "assistant", "content": "A dot."},
            {"role": "user", "content": "Sure?"},
        ]
    },
    "image_uuid_only": {
        "messages": [
            {
                "role": "user",
                "content": [_TEXT, {"type": "image_url", "image_url": None, "uuid": "img-1"}],
            }
        ]
    },
    "image_tools_none": {
        "messages": [{"role": "user", "content": [_TEXT, _IMG]}],
        "tools": TOOLS,
        "tool_choice": "none",
    },
    "tok_image": {
        "_endpoint": "tokenize",
        "messages": [{"role": "user", "content": [_TEXT, _IMG]}],
    },
    "tok_plain": {"_endpoint": "tokenize", "messages": [{"role": "user", "content": "Hi"}]},
    "tok_system_strs": {
        "_endpoint": "tokenize",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        "return_token_strs": True,
    },
    "tok_tools_history": {
        "_endpoint": "tokenize",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "Cold"},
        ],
        "tools": TOOLS,
    },
    "tok_no_gen": {
        "_endpoint": "tokenize",
        "messages": [{"role": "user", "content": "Hi"}],
        "add_generation_prompt": False,
    },
    "tok_thinking_off": {
        "_endpoint": "tokenize",
        "messages": [{"role": "user", "content": "Hi"}],
        "chat_template_kwargs": {"thinking": False},
    },
    "tok_special_tokens": {
        "_endpoint": "tokenize",
        "messages": [{"role": "user", "content": "Hi"}],
        "add_special_tokens": True,
    },
}

RENDER_CASES: dict[str, dict[str, Body]] = {"images": IMAGES}
