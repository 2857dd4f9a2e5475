"""Media content parts on text-only models.

vLLM hands every media part to its multimodal tracker while reading the messages; on an
architecture without multimodal support that fails first, before the media is fetched or
decoded: 400 "<served model name> is not a multimodal model". tokenfront processes no media,
so on multimodal models (the DeepSeek V4 / V4.1 and K3 vision architectures, or a config with a
vision / audio section) whose features vLLM computes, the request keeps tokenfront's own
"not supported" 400.
"""

from __future__ import annotations

from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.tokenization.registry import ServedModel

MULTIMODAL_ARCHITECTURES = frozenset(
    {
        "DeepseekV41ForCausalLM",
        "DeepseekV4ForConditionalGeneration",
        "KimiK3ForConditionalGeneration",
    }
)
# Config sections of multimodal checkpoints (tokenfront has no model registry to ask).
_MULTIMODAL_CONFIG_KEYS = ("vision_config", "audio_config", "vision_tower", "mm_vision_tower")
_MEDIA_KEYS = (
    "image_url",
    "input_image",
    "image_pil",
    "image_embeds",
    "audio_url",
    "input_audio",
    "audio_embeds",
    "video_url",
    "video_embeds",
)


def is_media_part(part: Any) -> bool:
    """A content part vLLM would pass to its multimodal tracker."""
    if not isinstance(part, dict):
        return False
    kind = part.get("type")
    if isinstance(kind, str) and part.get("uuid") is None:
        return kind in _MEDIA_KEYS
    return any(key in part for key in _MEDIA_KEYS)


def has_media(messages: list[Any]) -> bool:
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(is_media_part(part) for part in content):
            return True
    return False


def served_name(model: ServedModel) -> str:
    names = model.options.served_model_name
    return names[0] if names else str(model.options.model)


def check_media_support(model: ServedModel, messages: list[Any]) -> None:
    """vLLM's answer to media parts on an architecture it has no multimodal processor for."""
    if not has_media(messages):
        return
    config = model.hf_config if isinstance(model.hf_config, dict) else {}
    if any(arch in MULTIMODAL_ARCHITECTURES for arch in config.get("architectures") or ()):
        return
    if any(key in config for key in _MULTIMODAL_CONFIG_KEYS):  # likely a multimodal model
        return
    raise APIError(f"{served_name(model)} is not a multimodal model")
