"""The literal lexer finds literals with one regex search and walks its buffer by offset; these
pin it to two plain readings of its rules (slicing the buffer after every lexeme; one character
at a time), fed whole and in random pieces, over several literal sets."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tokenfront.parsers.engines.markup_lexer import (
    CONTENT,
    Lexeme,
    LiteralTable,
    ScannerDecoding,
    flush_lexer,
    lex,
    lex_kept_text,
    silent_in_content,
)

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
            out.append((CONTENT, buffer))
            buffer = ""
            break
        pairs = list(table.names.items())
        starts = [(lit, name) for lit, name in pairs if buffer.startswith(lit)]
        best = max(starts, key=lambda p: len(p[0]), default=None)
        if buffer in table.prefixes and not final:
            if best is None or any(
                len(lit) > len(best[0]) and lit.startswith(buffer) for lit, _ in pairs
            ):
                break
        if best is not None:
            out.append((best[1], best[0]))
            buffer = buffer[len(best[0]) :]
            continue
        end = next(
            (
                i
                for i in range(1, len(buffer))
                if any(
                    buffer[i:].startswith(lit) or lit.startswith(buffer[i:])
                    for lit, _ in pairs
                )
            ),
            len(buffer),
        )
        out.append((CONTENT, buffer[:end]))
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
            want.append((CONTENT, ref_state["buf"]))
        assert got == want, pieces


def test_a_table_without_literals_reads_everything_as_text() -> None:
    assert lex(LiteralTable([]), {}, "a<b>c") == [(CONTENT, "a<b>c")]
    assert LiteralTable([]).flush("a<b>c") == [(CONTENT, "a<b>c")]


class ReferenceLexer:
    def __init__(self, literals: list[tuple[str, str]]) -> None:
        self.literals = [(lit, name) for name, lit in literals if lit]
        self.first_chars = frozenset(lit[0] for lit, _ in self.literals)
        self.prefixes = frozenset(lit[:i] for lit, _ in self.literals for i in range(1, len(lit)))

    def drain(self, buf: str, final: bool) -> tuple[list[tuple[str, str]], str]:
        tokens: list[tuple[str, str]] = []
        while buf:
            if not any(ch in self.first_chars for ch in buf):
                tokens.append((CONTENT, buf))
                return tokens, ""
            best: tuple[str, str] | None = None
            for lit, name in self.literals:
                if lit[0] == buf[0] and buf.startswith(lit):
                    if best is None or len(lit) > len(best[0]):
                        best = (lit, name)
            if not final and buf in self.prefixes:
                return tokens, buf
            if best is not None:
                tokens.append((best[1], best[0]))
                buf = buf[len(best[0]) :]
                continue
            end = len(buf)
            for i in range(1, len(buf)):
                if buf[i] in self.first_chars and any(
                    buf[i : i + min(len(buf) - i, len(lit))] == lit[: min(len(buf) - i, len(lit))]
                    for lit, _ in self.literals
                ):
                    end = i
                    break
            tokens.append((CONTENT, buf[:end]))
            buf = buf[end:]
        return tokens, ""


LITERAL_SETS: list[list[tuple[str, str]]] = [
    [("THINK_START", "<think>"), ("THINK_END", "</think>"), ("TOOL_START", "<tool_call>"),
     ("TOOL_END", "</tool_call>"), ("DROP", "<|im_end|>"), ("DROP", "<|endoftext|>")],
    [("A", "<a"), ("B", "<ab>"), ("C", "b<"), ("D", "aa"), ("E", "<"), ("F", "a<a")],
    [("X", "[TOOL_CALLS]"), ("Y", "[ARGS]"), ("Z", "]"), ("E", "")],
    [("ONE", "x"), ("TWO", "x")],
    [],
]
ALPHABETS = ["<>/abthinkol_|[]x \n", "<ab ", "[]TOOL_CALSRGx "]


def _random_text(rng: random.Random, literals: list[tuple[str, str]], alphabet: str) -> str:
    parts = []
    for _ in range(rng.randint(0, 12)):
        roll = rng.random()
        if literals and roll < 0.3:
            lit = rng.choice(literals)[1]
            parts.append(lit[: rng.randint(1, len(lit))] if lit and roll < 0.1 else lit)
        else:
            parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))))
    return "".join(parts)


def _stream(lexer: LiteralTable | ReferenceLexer, text: str, cuts: list[int]) -> list[tuple[str, str]]:
    buf, out, last = "", [], 0
    for cut in [*cuts, len(text)]:
        if isinstance(lexer, LiteralTable):
            tokens, buf = lexer.feed(buf, text[last:cut])
        else:
            tokens, buf = lexer.drain(buf + text[last:cut], final=False)
        out.append(tokens)
        out.append([("BUF", buf)])
        last = cut
    if isinstance(lexer, LiteralTable):
        out.append(lexer.flush(buf))
    else:
        tokens, rest = lexer.drain(buf, final=True)
        out.append(tokens + ([(CONTENT, rest)] if rest else []))
    return [t for chunk in out for t in chunk]


@pytest.mark.parametrize("index", range(len(LITERAL_SETS)))
def test_same_lexemes_as_the_character_reading(index: int) -> None:
    literals = LITERAL_SETS[index]
    fast, ref = LiteralTable(literals), ReferenceLexer(literals)
    rng = random.Random(index)
    for _ in range(3000):
        text = _random_text(rng, literals, rng.choice(ALPHABETS))
        for final in (False, True):
            assert fast._drain(text, final=final) == ref.drain(text, final), (text, final)
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(0, 4))))
        assert _stream(fast, text, cuts) == _stream(ref, text, cuts), (text, cuts)


def test_markers_and_text() -> None:
    lexer = LiteralTable(LITERAL_SETS[0])
    tokens, rest = lexer.feed("", "a<b <think>x</think>y<tool_call>{}</tool_ca")
    assert tokens == [
        (CONTENT, "a<b "),
        ("THINK_START", "<think>"),
        (CONTENT, "x"),
        ("THINK_END", "</think>"),
        (CONTENT, "y"),
        ("TOOL_START", "<tool_call>"),
        (CONTENT, "{}"),
    ]
    assert rest == "</tool_ca"
    assert lexer.flush(rest) == [(CONTENT, "</tool_ca")]


class _Decoder:
    """A tokenizer of 100 ids that records what it is asked to decode."""

    def __init__(self) -> None:
        self.decoded: list[int] = []

    def __len__(self) -> int:
        return 100

    def decode(self, ids: list[int]) -> str:
        self.decoded.extend(ids)
        return ""


@pytest.mark.parametrize(
    ("held", "text", "ids", "decoded"),
    [
        ("", "plain", [5, 500], []),  # the fast path: nothing decoded
        ("", "", [5, 500], []),  # no text, no scanned id
        ("", "a<b", [5, 500], [500]),  # a literal's first character
        ("</thi", "x", [5, 500], [500]),  # a held tail
        ("", "", [7, 500], [500]),  # a scanned id
        ("", "a<b", [5, 6], []),  # every id in the vocabulary
    ],
)
def test_scanner_decoding_decodes_out_of_vocabulary_ids_where_the_engine_would(
    held: str, text: str, ids: list[int], decoded: list[int]
) -> None:
    tokenizer = _Decoder()
    decoding = ScannerDecoding(tokenizer, LiteralTable(LITERALS))
    decoding.scanned_ids = frozenset({7})  # a marker's id
    decoding.check(held, text, ids)
    assert tokenizer.decoded == decoded


def test_kept_text_holds_a_marker_prefix_and_drops_the_dropped_terminal() -> None:
    table = LiteralTable([*LITERALS, ("DROP", "<|im_end|>")])
    state: dict[str, Any] = {}
    assert lex_kept_text(table, state, "a </thi", final=False, dropped="DROP") == "a "
    assert lex_kept_text(table, state, "nk><|im_end|>b<", final=False, dropped="DROP") == "</think>b"
    assert lex_kept_text(table, state, "", final=True, dropped="DROP") == "<"
    assert state["kh"] == ""


def test_silent_in_content_names_the_terminals_content_consumes_without_output() -> None:
    transitions = {
        ("TEXT", "THINK_END"): ("TEXT", ()),  # a repeated `</think>`: dropped
        ("TEXT", "CALL"): ("TOOL", ("CALL_START",)),
        ("REASONING", "THINK_END"): ("TEXT", ("END",)),
        ("TOOL", "CALL_END"): ("TOOL", ()),  # silent, but not in the content state
    }
    assert silent_in_content(transitions, "TEXT") == {"THINK_END"}
    assert silent_in_content(transitions, "TEXT", keep={"THINK_END"}) == set()
