"""Kimi K3 image preprocessing: resize plan, zero padding to merge cells, uint8 patch layout."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from tokenfront.render.multimodal.kimi_k3_vision import (
    K3VisionConfig,
    process_image,
    resize_plan,
)

CFG = K3VisionConfig()  # tests/models/kimi-k3/preprocessor_config.json's values


@pytest.mark.parametrize(
    ("size", "tokens"),
    [
        ((1, 1), 1),
        ((20, 10), 1),
        ((64, 48), 6),  # 3 x 2 cells of 28 px
        ((1000, 700), 900),  # 71 x 50 whole patches: under the limit, padded to 36 x 25 cells
        ((2000, 20), 72),
    ],
)
def test_token_counts(size: tuple[int, int], tokens: int) -> None:
    plan = resize_plan(*size, CFG)
    assert plan.num_tokens == tokens
    cell = CFG.merge_kernel_size * CFG.patch_size
    assert (plan.new_width + plan.pad_width) % cell == 0
    assert (plan.new_height + plan.pad_height) % cell == 0


def test_patch_limits() -> None:
    plan = resize_plan(2000, 1400, CFG)  # 142 x 100 patches: scaled down, aspect kept
    assert plan.new_width < 2000 and plan.new_height < 1400
    assert (plan.new_width // 14) * (plan.new_height // 14) <= CFG.in_patch_limit
    assert abs(plan.new_width / plan.new_height - 2000 / 1400) < 0.01
    wide = resize_plan(20000, 20, CFG)
    assert wide.new_width <= CFG.patch_limit_on_one_side * CFG.patch_size


def test_config_from_preprocessor_json(tmp_path) -> None:
    cfg = {"patch_size": 16, "merge_kernel_size": [3, 3], "in_patch_limit": 100,
           "patch_limit_on_one_side": 20, "fixed_output_tokens": 7}  # fmt: skip
    (tmp_path / "preprocessor_config.json").write_text(json.dumps({"media_proc_cfg": cfg}))
    got = K3VisionConfig.from_model_dir(tmp_path)
    assert got == K3VisionConfig(16, 3, 100, 20, 7)
    assert resize_plan(500, 500, got).num_tokens == 7
    assert K3VisionConfig.from_model_dir(tmp_path / "missing") is None


def test_patches_are_raw_pixels_padded_with_zeros() -> None:
    pixels = np.arange(10 * 20 * 3, dtype=np.uint8).reshape(10, 20, 3)
    out = process_image(Image.fromarray(pixels, "RGB"), CFG)
    assert out.grid_thw == (1, 2, 2) and out.patch_shape == (4, 3, 14, 14)
    patches = np.frombuffer(out.patches, dtype=np.uint8).reshape(out.patch_shape)
    # patch 0 covers rows 0-13, columns 0-13; channel-first
    assert (patches[0, :, :10, :14] == pixels[:, :14].transpose(2, 0, 1)).all()
    assert (patches[0, :, 10:, :] == 0).all()
    assert (patches[1, :, :10, :6] == pixels[:, 14:].transpose(2, 0, 1)).all()
    assert (patches[1, :, :, 6:] == 0).all()
    assert (patches[2:] == 0).all()


def test_modes_convert_without_background() -> None:
    rgba = Image.new("RGBA", (3, 3), (10, 20, 30, 0))  # fully transparent: colour kept, no white
    out = process_image(rgba, CFG)
    patches = np.frombuffer(out.patches, dtype=np.uint8).reshape(out.patch_shape)
    assert patches[0, :, 0, 0].tolist() == [10, 20, 30]
