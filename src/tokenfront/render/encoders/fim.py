"""Fill-in-the-middle completion prompts (`suffix`) of the renderers that have one.

vLLM's DeepSeek V4 / V4.1 renderers wrap a completion's text prompt and suffix in the FIM
markers; every other renderer refuses `suffix`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tokenfront.render.encoders.deepseek import encoder_mode

FIM_BEGIN = "<｜fim▁begin｜>"
FIM_HOLE = "<｜fim▁hole｜>"
FIM_END = "<｜fim▁end｜>"
_FIM_MODES = ("deepseek_v4", "deepseek_v41")


def _deepseek_fim(prompt: str, suffix: str) -> str:
    return f"{FIM_BEGIN}{prompt}{FIM_HOLE}{suffix}{FIM_END}"


def fim_prompt(tokenizer_mode: str, model_dir: str | Path | None) -> Callable[[str, str], str] | None:
    """The prompt+suffix renderer for the model, or None when it has no FIM rendering."""
    return _deepseek_fim if encoder_mode(tokenizer_mode, model_dir) in _FIM_MODES else None
