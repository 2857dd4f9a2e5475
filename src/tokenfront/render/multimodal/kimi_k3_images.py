"""Image parts of a chat request on a Kimi K3 vision checkpoint, as vLLM 0.33.0 renders them.

The steps, in vLLM's order:
1. every image part is registered (`--limit-mm-per-prompt`) and decoded in its own mode (K3's
   default media settings keep the mode; the processor converts to RGB itself);
2. the K3 renderer reads messages in the "string" content format: a message with images gets
   one `<|kimi_image_placeholder|>` per image not already written in its text, in front of the
   text, joined with newlines; the tokenizer's chat template encodes that conversation to ids;
3. the i-th placeholder of the ids becomes the tokens of
   `<|media_begin|>image {W}x{H}<|media_content|>` + N media tokens + `<|media_end|>` for the
   i-th image (W x H: the decoded size; N: the processor's token count), the whole replacement
   being the image's placeholder range; `features` carry hashes, ranges and processed tensors.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.render.multimodal.images import (
    _Item,
    _limit,
    decode_items,
    placeholder_features,
    take_image_part,
)
from tokenfront.render.multimodal.kimi_k3_vision import K3VisionConfig, process_image
from tokenfront.tokenization.registry import ModelLoadError, ServedModel, resolve_model_dir

K3_VISION_ARCHITECTURES = frozenset({"KimiK3ForConditionalGeneration"})
DEFAULT_PLACEHOLDER = "<|kimi_image_placeholder|>"
MEDIA_PAD = "<|media_pad|>"
DEFAULT_MEDIA_TOKEN_ID = 163605  # vLLM's KimiK3Config default
# What vLLM's processor call is given besides the images (named in its failure message).
_PROCESSOR_KWARGS = "{'do_normalize': False, 'do_rescale': False, 'return_tensors': 'pt'}"


def k3_vision_config(model: ServedModel) -> K3VisionConfig | None:
    """The image processor settings of a K3 checkpoint with a vision tower, else None."""
    config = model.hf_config if isinstance(model.hf_config, dict) else {}
    if not any(a in K3_VISION_ARCHITECTURES for a in config.get("architectures") or ()):
        return None
    if not isinstance(config.get("vision_config"), dict):
        return None
    return _vision_config(model.path, model.options.revision)


@functools.lru_cache(maxsize=16)
def _vision_config(path: str, revision: str | None) -> K3VisionConfig | None:
    try:
        model_dir = resolve_model_dir(path, revision)
    except ModelLoadError:
        return None
    return K3VisionConfig.from_model_dir(model_dir)


def _placeholder(model: ServedModel) -> str:
    value = model.hf_config.get("image_placeholder") if isinstance(model.hf_config, dict) else None
    return value if isinstance(value, str) and value else DEFAULT_PLACEHOLDER


def _media_token_id(model: ServedModel) -> int:
    """`<|media_pad|>`'s id when the tokenizer knows it, else the config's placeholder id."""
    tokenizer = model.tokenizer
    configured = model.hf_config.get("media_placeholder_token_id", DEFAULT_MEDIA_TOKEN_ID)
    resolved = tokenizer.convert_tokens_to_ids(MEDIA_PAD)
    unk = getattr(tokenizer, "unk_token_id", None)
    if isinstance(resolved, int) and (unk is None or resolved != unk):
        return resolved
    return int(configured) if isinstance(configured, int) else DEFAULT_MEDIA_TOKEN_ID


@dataclass
class K3ImageInputs:
    """A request's image parts and the messages the renderer reads without them."""

    messages: list[Any]
    items: list[_Item]
    counts: list[int]  # images per message
    features: dict[str, Any] | None = None
    placeholder: str = DEFAULT_PLACEHOLDER
    cfg: K3VisionConfig = field(default_factory=K3VisionConfig)

    def place(self, conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each message's missing placeholders in front of its (string) content."""
        out = []
        for message, count in zip(conversation, self.counts, strict=True):
            if count:
                text = message.get("content") or ""
                missing = count - text.count(self.placeholder)
                if missing < 0:
                    raise RequestValidationFailure(
                        f"Found more '{self.placeholder}' placeholders in input prompt than "
                        "actual multimodal data items.",
                        parameter="messages",
                    )
                parts = [self.placeholder] * missing + ([text] if text else [])
                message = {**message, "content": "\n".join(parts)}
            out.append(message)
        return out

    def expand(
        self,
        model: ServedModel,
        token_ids: list[int],
        *,
        with_tensors: bool,
        params: Any = None,
    ) -> list[int]:
        """Grow each placeholder into its image's media block; sets `self.features`."""
        from tokenfront.render.multimodal.features import k3_item_fields

        items = self.items
        for index, item in enumerate(items):
            if item.loaded is None and item.uuid is None:
                raise RequestValidationFailure(
                    f"multi_modal_data['image'][{index}] is empty but "
                    f"multi_modal_uuids['image'][{index}] is missing.",
                    parameter="multi_modal_uuids",
                )
        if any(item.loaded is None for item in items):  # no processor cache holds them
            shown = ", ".join(_image_repr(item.loaded.image if item.loaded else None) for item in items)
            raise APIError(
                f"Failed to apply KimiK3Processor on data={{'images': [{shown}]}} "
                f"with kwargs={_PROCESSOR_KWARGS}"
            )
        processed = [process_image(item.loaded.image, self.cfg) for item in items]  # type: ignore[union-attr]
        tokenizer = model.tokenizer
        target = list(tokenizer.encode(self.placeholder, add_special_tokens=False))
        media_token = tokenizer.decode([_media_token_id(model)])
        out: list[int] = []
        placeholders: list[tuple[int, int]] = []
        i = next_image = 0
        while i < len(token_ids):
            if next_image < len(items) and token_ids[i : i + len(target)] == target:
                image = items[next_image].loaded.image  # type: ignore[union-attr]
                block = (
                    f"<|media_begin|>image {image.width}x{image.height}<|media_content|>"
                    f"{media_token * processed[next_image].num_tokens}<|media_end|>"
                )
                ids = list(tokenizer.encode(block, add_special_tokens=False))
                placeholders.append((len(out), len(ids)))
                out.extend(ids)
                i += len(target)
                next_image += 1
            else:
                out.append(token_ids[i])
                i += 1
        if next_image != len(items):
            raise APIError(f"Failed to apply prompt replacement for mm_items['image'][{next_image}]")
        out, self.features = placeholder_features(
            model,
            items,
            (out, placeholders),
            k3_item_fields(processed),
            params,
            with_tensors=with_tensors,
        )
        return out


def _image_repr(image: Any) -> str:
    if image is None:
        return "None"
    return re.sub(r" at 0x[0-9a-fA-F]+>", ">", repr(image))


def k3_request_images(model: ServedModel, messages: list[Any]) -> K3ImageInputs | None:
    """The request's decoded images on a K3 vision checkpoint (None: no image parts, or a
    checkpoint tokenfront has no K3 image processor settings for)."""
    cfg = k3_vision_config(model)
    if cfg is None:
        return None
    items: list[_Item] = []
    kept: list[Any] = []
    counts: list[int] = []
    limit = _limit(model)
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        count = 0
        if isinstance(content, list):
            parts = []
            for part in content:
                if take_image_part(part, items, limit):
                    count += 1
                else:
                    parts.append(part)
            if count:
                message = {**message, "content": parts}
        kept.append(message)
        counts.append(count)
    if not items:
        return None
    decode_items(items, to_rgb=False)
    return K3ImageInputs(kept, items, counts, placeholder=_placeholder(model), cfg=cfg)
