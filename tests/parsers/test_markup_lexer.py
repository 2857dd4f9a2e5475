"""The literal lexer walks its buffer by offset; these pin it to the plain reading that
slices the buffer after every lexeme (the contract), fed whole and in random pieces."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tokenfront.parsers.engines.markup_lexer import CONTENT, Lexeme, LiteralTable, flush_lexer, lex

LITERALS = [
    ("CALL", "<tool_call>"), ("CALL_END", "</tool_call>"), ("FUNC", "<function="),
    ("FUNC_END", "</function>"), ("PARAM", "<parameter="), ("PARAM_END", "</parameter>"),
    ("THINK_END", "</think>"), ("GT", ">"), ("ARROW", "->"),
]  # fmt: skip
BITS = ["x", " ", "\n", "<", "</", ">", "-", "<tool", "call>", "</param", "eter>", "é", "</think"]


def reference_lex(
    table: LiteralTable, state: dict[str, Any], text: str, final: bool
) -> list[Lexeme]:
    """The slicing reading: the longest literal at the start, else plain text up to the first
    offset where a literal (or a prefix of one, at the end) could start; a tail that may
    still grow into a longer literal waits."""
    buffer = state.get("buf", "") + text
    out: list[Lexeme] = []
    while buffer:
        if table.first_chars.isdisjoint(buffer):
            out.append(Lexeme(CONTENT, buffer))
            buffer = ""
            break
        starts = [(lit, name) for lit, name in table.pairs if buffer.startswith(lit)]
        best = max(starts, key=lambda p: len(p[0]), default=None)
        if buffer in table.prefixes and not final:
            if best is None or any(
                len(lit) > len(best[0]) and lit.startswith(buffer) for lit, _ in table.pairs
            ):
                break
        if best is not None:
            out.append(Lexeme(best[1], best[0]))
            buffer = buffer[len(best[0]) :]
            continue
        end = next(
            (
                i
                for i in range(1, len(buffer))
                if any(
                    buffer[i:].startswith(lit) or lit.startswith(buffer[i:])
                    for lit, _ in table.pairs
                )
            ),
            len(buffer),
        )
        out.append(Lexeme(CONTENT, buffer[:end]))
        buffer = buffer[end:]
    state["buf"] = buffer
    return out


def _pieces(rnd: random.Random, text: str) -> list[str]:
    cuts = sorted(rnd.sample(range(1, len(text)), min(len(text) - 1, rnd.randint(0, 6))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


@pytest.mark.parametrize("seed", range(4))
def test_offset_lexer_equals_the_slicing_reading(seed: int) -> None:
    table = LiteralTable(LITERALS)
    rnd = random.Random(seed)
    for _ in range(400):
        text = "".join(rnd.choice(BITS) for _ in range(rnd.randint(1, 30)))
        pieces = _pieces(rnd, text) if len(text) > 1 else [text]
        got: list[Lexeme] = []
        want: list[Lexeme] = []
        state: dict[str, Any] = {}
        ref_state: dict[str, Any] = {}
        for piece in pieces:
            got += lex(table, state, piece)
            want += reference_lex(table, ref_state, piece, final=False)
            assert state.get("buf", "") == ref_state["buf"], (pieces, piece)
        got += flush_lexer(table, state)
        want += reference_lex(table, ref_state, "", final=True)
        if ref_state["buf"]:
            want.append(Lexeme(CONTENT, ref_state["buf"]))
        assert got == want, pieces


def test_a_table_without_literals_reads_everything_as_text() -> None:
    assert lex(LiteralTable([]), {}, "a<b>c", final=True) == [Lexeme(CONTENT, "a<b>c")]
