"""Image parts of a chat request on a DeepSeek V4.1 vision checkpoint, as vLLM 0.33.0 renders them.

The steps, in vLLM's order:
1. every image part of every message is registered (at most `--limit-mm-per-prompt` images,
   999 by default), then every image is decoded (the first failure answers);
2. the V4.1 encoder writes one `<｜deepseek_image｜>` per image part of the content it keeps; the
   images take the order of those placeholders in the prompt (tokenfront swaps each image part for
   a unique marker before encoding, reads the marker order, then writes the placeholders);
3. after tokenization each placeholder id grows into the image's span of
   `n_llm_h * (n_llm_w + 1) + 2` image ids, and the answer's `features` carry each image's hash,
   span and processed tensors.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.render.multimodal.deepseek_v41_vision import (
    IMAGE_TOKEN,
    IMAGE_TOKEN_ID,
    VisionConfig,
    process_image,
)
from tokenfront.render.multimodal.media import (
    DecodeBudget,
    LoadedImage,
    MediaError,
    decode_image,
    read_url,
)
from tokenfront.tokenization.registry import ServedModel

VISION_ARCHITECTURES = frozenset({"DeepseekV41ForCausalLM"})
DEFAULT_IMAGE_LIMIT = 999
_IMAGE_TYPES = ("image_url", "input_image")
HASH_ALGORITHM = "blake3"


def supports_images(model: ServedModel) -> bool:
    """A DeepSeek V4.1 checkpoint with a vision tower, encoded by vLLM's V4.1 encoder."""
    config = model.hf_config if isinstance(model.hf_config, dict) else {}
    if not any(a in VISION_ARCHITECTURES for a in config.get("architectures") or ()):
        return False
    return isinstance(config.get("vision_config"), dict)


@dataclass
class _Item:
    url: str | None
    uuid: str | None
    loaded: LoadedImage | None = None


@dataclass
class ImageInputs:
    """A request's image parts: decoded images and the messages the encoder reads instead."""

    messages: list[Any]
    items: list[_Item]
    markers: list[str]
    order: list[int] = field(default_factory=list)
    features: dict[str, Any] | None = None

    def finish_text(self, text: str) -> str:
        """Placeholder order from the encoded prompt; the markers become image placeholders."""
        found = sorted((text.find(marker), index) for index, marker in enumerate(self.markers))
        self.order = [index for pos, index in found if pos >= 0]
        for marker in self.markers:
            text = text.replace(marker, IMAGE_TOKEN)
        return text

    def tokenize(
        self,
        model: ServedModel,
        text: str,
        params: Any,
        want_offsets: bool,
        with_tensors: bool,
        features_out: list[dict[str, Any]] | None,
    ) -> tuple[list[int], list[list[int]] | None]:
        """Tokenize the encoded prompt and expand its image placeholders (render endpoint)."""
        from tokenfront.render.tokens import encode_text_with_offsets

        ids, offsets = encode_text_with_offsets(
            model, self.finish_text(text), params, want_offsets=want_offsets
        )
        ids = expand_prompt(model, self, ids, with_tensors=with_tensors, params=params)
        if features_out is not None and self.features is not None:
            features_out.append(self.features)
        # vLLM reports no token offsets for multimodal prompts.
        return ids, (None if self.features is not None else offsets)


_DETAILS = {
    "image_url": ("ChatCompletionContentPartImageParam", ("auto", "low", "high")),
    "input_image": ("ResponseInputImageParam", ("low", "high", "auto", "original")),
}


def _invalid(model: str, loc: str, message: str) -> APIError:
    """vLLM validates typed image parts with pydantic; its 400 names the part's model."""
    return APIError(f"1 validation error for {model}\n{loc}\n  {message}")


def _check_typed_part(kind: str, part: dict[str, Any]) -> None:
    model, details = _DETAILS[kind]
    raw = part.get("image_url")
    if kind == "image_url":
        if not isinstance(raw, dict):
            raise _invalid(model, "image_url", "Input should be a valid dictionary [type=dict_type]")
        if not isinstance(raw.get("url"), str):
            problem = "Field required [type=missing]" if "url" not in raw else "Input should be a valid string [type=string_type]"
            raise _invalid(model, "image_url.url", problem)
        detail, loc = raw.get("detail", "auto"), "image_url.detail"
    else:
        if raw is not None and not isinstance(raw, str):
            raise _invalid(model, "image_url", "Input should be a valid string [type=string_type]")
        if "detail" not in part:
            raise _invalid(model, "detail", "Field required [type=missing]")
        detail, loc = part["detail"], "detail"
    if detail not in details:
        allowed = ", ".join(f"'{d}'" for d in details)
        raise _invalid(model, loc, f"Input should be {allowed} [type=literal_error]")


def _image_part(part: Any) -> tuple[str | None, str | None] | None:
    """(url, uuid) of an image part vLLM's V4.1 path counts, or None for any other part."""
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    uuid = part.get("uuid")
    if kind not in _IMAGE_TYPES:
        return None
    if uuid is None:
        _check_typed_part(kind, part)
    raw = part.get("image_url")
    url = raw.get("url") if isinstance(raw, dict) else raw
    return (url if isinstance(url, str) else None), (None if uuid is None else str(uuid))


def _limit(model: ServedModel) -> int:
    if model.options.language_model_only:  # vLLM's: every modality's limit is 0
        return 0
    limits = getattr(model.options, "limit_mm_per_prompt", None) or {}
    value = limits.get("image", DEFAULT_IMAGE_LIMIT)
    if isinstance(value, dict):
        value = value.get("count", DEFAULT_IMAGE_LIMIT)
    return int(value)


def collect_images(model: ServedModel, messages: list[Any]) -> ImageInputs | None:
    """Decode the request's images (None when it has none): vLLM's limits and errors."""
    items: list[_Item] = []
    swapped: list[Any] = []
    markers: list[str] = []
    nonce = secrets.token_hex(8)
    limit = _limit(model)
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            swapped.append(message)
            continue
        parts: list[Any] = []
        for part in content:
            if not take_image_part(part, items, limit):
                parts.append(part)
                continue
            marker = f"\ue000tfimg{nonce}:{len(markers)}\ue001"
            markers.append(marker)
            parts.append({"type": "text", "text": marker})
        swapped.append({**message, "content": parts})
    if not items:
        return None
    decode_items(items)
    return ImageInputs(swapped, items, markers)


def take_image_part(part: Any, items: list[_Item], limit: int) -> bool:
    """Add `part` to `items` when it is an image part (at most `limit` per prompt, as vLLM
    allows); False for any other part."""
    image = _image_part(part)
    if image is None:
        return False
    if len(items) + 1 > limit:
        raise RequestValidationFailure(
            f"At most {limit} image(s) may be provided in one prompt.", parameter="image"
        )
    items.append(_Item(*image))
    return True


def decode_items(items: list[_Item], *, to_rgb: bool = True) -> None:
    """Fetch and decode each item given by URL, under one request-wide decode budget."""
    budget = DecodeBudget()
    for item in items:
        if not item.url:
            continue
        try:
            item.loaded = decode_image(read_url(item.url), budget, to_rgb=to_rgb)
        except MediaError as exc:
            raise APIError(str(exc)) from None


def placeholder_features(
    model: ServedModel,
    items: list[_Item],
    expanded: tuple[list[int], list[tuple[int, int]]],
    fields: Any,
    params: Any,
    *,
    with_tensors: bool,
) -> tuple[list[int], Any]:
    """The expanded prompt ids (truncated as `params` ask) and their multimodal features: each
    image's hash (its uuid, else the blake3 of model id and image) at its placeholder span."""
    from tokenfront.render.multimodal.features import build_features
    from tokenfront.render.multimodal.hashing import hash_item

    out, placeholders = expanded
    model_id = str(model.options.model)
    hashes = [
        item.uuid
        if item.uuid is not None
        else hash_item(HASH_ALGORITHM, model_id=model_id, image=item.loaded.hashed)  # type: ignore[union-attr]
        for item in items
    ]
    if params is not None:
        out, placeholders = _truncate_expanded(out, placeholders, params)
    return out, build_features(hashes, placeholders, fields, with_tensors=with_tensors)


def _truncate_expanded(
    ids: list[int], placeholders: list[tuple[int, int]], params: Any
) -> tuple[list[int], list[tuple[int, int]]]:
    """`truncate_prompt_tokens` again on the expanded prompt; image spans are never cut."""
    keep = params._keep()
    if keep is None or keep >= len(ids):
        return ids, placeholders
    left = (params.truncation_side or "left") == "left"
    start, stop = (len(ids) - keep, len(ids)) if left else (0, keep)
    if keep == 0:
        start, stop = 0, 0
    for offset, length in placeholders:
        end = offset + length
        if not (offset >= start and end <= stop):
            raise RequestValidationFailure(
                f"truncate_prompt_tokens={params.truncate_prompt_tokens} would split or drop "
                f"a(n) image item, which spans tokens {offset} to {end} of the "
                f"{len(ids)}-token prompt. Multimodal placeholders expand after truncation is "
                "applied, so the limit must leave every multimodal item intact. Please raise "
                "truncate_prompt_tokens or shorten the multimodal input.",
                parameter="truncate_prompt_tokens",
                value=params.truncate_prompt_tokens,
            )
    return ids[start:stop], [(offset - start, length) for offset, length in placeholders]


def expand_prompt(
    model: ServedModel,
    inputs: ImageInputs,
    token_ids: list[int],
    *,
    with_tensors: bool,
    params: Any = None,
) -> list[int]:
    """Grow each placeholder id into its image span; sets `inputs.features`."""
    from tokenfront.render.multimodal.features import dsv41_item_fields

    cfg = VisionConfig.from_hf_config(model.hf_config)
    chosen = [inputs.items[i] for i in inputs.order]
    if not chosen:
        return token_ids
    for index, item in enumerate(chosen):
        if item.loaded is None and item.uuid is None:
            raise RequestValidationFailure(
                f"multi_modal_data['image'][{index}] is empty but "
                f"multi_modal_uuids['image'][{index}] is missing.",
                parameter="multi_modal_uuids",
            )
    for index, item in enumerate(chosen):
        if item.loaded is None:
            raise APIError(f"Cache miss for image at index {index} but data is not provided.")
    processed = [process_image(item.loaded.image, cfg) for item in chosen]  # type: ignore[union-attr]
    out: list[int] = []
    placeholders: list[tuple[int, int]] = []
    next_image = 0
    for token in token_ids:
        if token == IMAGE_TOKEN_ID and next_image < len(processed):
            length = processed[next_image].span_length
            placeholders.append((len(out), length))
            out.extend([IMAGE_TOKEN_ID] * length)
            next_image += 1
        else:
            out.append(token)
    if next_image != len(processed):
        raise APIError(
            f"Failed to apply prompt replacement for mm_items['image'][{next_image}]"
        )
    out, inputs.features = placeholder_features(
        model,
        chosen,
        (out, placeholders),
        dsv41_item_fields(processed),
        params,
        with_tensors=with_tensors,
    )
    return out


def _has_image_part(messages: list[Any]) -> bool:
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(_image_part(part) is not None for part in content):
            return True
    return False


def request_images(model: ServedModel, mode: str | None, messages: list[Any]) -> ImageInputs | None:
    """The request's decoded images when vLLM would process them (V4.1 vision checkpoints)."""
    if mode != "deepseek_v41" or not supports_images(model) or not _has_image_part(messages):
        return None
    return collect_images(model, messages)
