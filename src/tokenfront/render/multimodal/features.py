"""A render answer's `features`: hashes, placeholder ranges and the serialized processed items.

Each processed image is one `MultiModalKwargsItem` in vLLM's msgpack form (a map of field name ->
{"data": [dtype, shape, Ext(3, raw little-endian bytes)], "field": [kind, field options]}),
base64-encoded; `mm_metadata` holds the same map limited to the fields kept on the CPU.

Field order: vLLM builds each item's field map from a Python `set` of field names, so its order
follows the server process's string-hash seed and is not stable across vLLM restarts. tokenfront
writes the fields in one fixed order; every field's own bytes are identical to vLLM's.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Any

from tokenfront.render.multimodal.deepseek_v41_vision import ProcessedImage
from tokenfront.render.multimodal.msgpack_wire import Ext, packb

RAW_VIEW = 3  # vLLM's msgpack extension code for inline tensor bytes
FIELD_ORDER = ("vit_grid", "types", "patches", "llm_grid")


def _int64(values: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(values)}q", *values)


def _tensor(dtype: str, shape: Sequence[int], data: bytes) -> list[Any]:
    return [dtype, list(shape), Ext(RAW_VIEW, data)]


def _batched() -> list[Any]:
    return ["batched", {"keep_on_cpu": True}]


def _flat(sizes: Sequence[int], keep_on_cpu: bool) -> list[Any]:
    """A flat field: the slices of the whole processed batch (every item carries all of them)."""
    slices, start = [], 0
    for size in sizes:
        slices.append([[start, start + size, None]])
        start += size
    return ["flat", {"keep_on_cpu": keep_on_cpu, "slices": slices, "dim": 0}]


def dsv41_item_fields(batch: Sequence[ProcessedImage]) -> list[dict[str, dict[str, Any]]]:
    """The fields of each DeepSeek V4.1 image item of one processor call (all kept on the CPU
    except the patches). vLLM processes a request's images in one call; each item's flat fields
    keep the field object of that call, so they list the slices of every image of the batch."""
    types_field = _flat([image.span_length for image in batch], True)
    patches_field = _flat([image.patch_shape[0] for image in batch], False)
    out = []
    for image in batch:
        types = image.span_types()
        fields = {
            "vit_grid": {"data": _tensor("int64", [2], _int64(image.vit_grid)), "field": _batched()},
            "types": {"data": _tensor("int64", [len(types)], _int64(types)), "field": types_field},
            "patches": {
                "data": _tensor("bfloat16", image.patch_shape, image.patches),
                "field": patches_field,
            },
            "llm_grid": {"data": _tensor("int64", [2], _int64(image.llm_grid)), "field": _batched()},
        }
        out.append({key: fields[key] for key in FIELD_ORDER})
    return out


def k3_item_fields(batch: Sequence[Any]) -> list[dict[str, dict[str, Any]]]:
    """The fields of each Kimi K3 image item of one processor call (`K3ProcessedImage`s): the
    uint8 patches (flat over the whole batch) and `grid_thws` (batched, kept on the CPU), in the
    order vLLM writes them under PYTHONHASHSEED=8."""
    patches_field = _flat([image.patch_shape[0] for image in batch], False)
    return [
        {
            "pixel_values": {
                "data": _tensor("uint8", image.patch_shape, image.patches),
                "field": patches_field,
            },
            "grid_thws": {"data": _tensor("int64", [3], _int64(image.grid_thw)), "field": _batched()},
        }
        for image in batch
    ]


def _encode(fields: dict[str, Any]) -> str:
    return base64.b64encode(packb(fields)).decode("ascii")


def _cpu_fields(fields: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in fields.items() if v["field"][1].get("keep_on_cpu")}


def build_features(
    hashes: list[str],
    placeholders: list[tuple[int, int]],
    items: list[dict[str, dict[str, Any]]],
    *,
    with_tensors: bool = True,
) -> dict[str, Any]:
    """The `features` object for image items (one modality)."""
    features: dict[str, Any] = {
        "mm_hashes": {"image": hashes},
        "mm_placeholders": {"image": [{"offset": o, "length": n} for o, n in placeholders]},
        "kwargs_data": None,
        "mm_metadata": None,
    }
    if with_tensors and items:
        features["kwargs_data"] = {"image": [_encode(fields) for fields in items]}
        metadata = [_cpu_fields(fields) for fields in items]
        features["mm_metadata"] = {"image": [_encode(m) if m else None for m in metadata]}
    return features
