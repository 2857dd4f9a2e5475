"""Fill-in-the-middle completion prompts of the DeepSeek V4 / V4.1 renderers."""

from __future__ import annotations

from pathlib import Path

from tokenfront.render.encoders.fim import fim_prompt


def test_v4_modes_wrap_prompt_and_suffix() -> None:
    for mode in ("deepseek_v4", "deepseek_v41"):
        fim = fim_prompt(mode, None)
        assert fim is not None
        assert fim("a", "b") == "<｜fim▁begin｜>a<｜fim▁hole｜>b<｜fim▁end｜>"


def test_other_modes_have_none(tmp_path: Path) -> None:
    assert fim_prompt("deepseek_v32", None) is None
    assert fim_prompt("hf", None) is None
    (tmp_path / "config.json").write_text('{"architectures": ["DeepseekV41ForCausalLM"]}')
    assert fim_prompt("auto", tmp_path) is not None
