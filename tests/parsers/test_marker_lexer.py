"""The marker lexer against a direct transcription of its rules (one character at a time).

`MarkerLexer` finds markers with one regex search instead of walking the text; the reference
below is the straightforward algorithm it replaced. Both must give the same tokens and the
same hold-back buffer for every input, streamed in any chunking.
"""

from __future__ import annotations

import random

import pytest

from tokenfront.parsers.engines.marker_lexer import CONTENT, MarkerLexer


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


def _stream(lexer: MarkerLexer | ReferenceLexer, text: str, cuts: list[int]) -> list[tuple[str, str]]:
    buf, out, last = "", [], 0
    for cut in [*cuts, len(text)]:
        if isinstance(lexer, MarkerLexer):
            tokens, buf = lexer.feed(buf, text[last:cut])
        else:
            tokens, buf = lexer.drain(buf + text[last:cut], final=False)
        out.append(tokens)
        out.append([("BUF", buf)])
        last = cut
    if isinstance(lexer, MarkerLexer):
        out.append(lexer.flush(buf))
    else:
        tokens, rest = lexer.drain(buf, final=True)
        out.append(tokens + ([(CONTENT, rest)] if rest else []))
    return [t for chunk in out for t in chunk]


@pytest.mark.parametrize("index", range(len(LITERAL_SETS)))
def test_same_tokens_as_the_reference(index: int) -> None:
    literals = LITERAL_SETS[index]
    fast, ref = MarkerLexer(literals), ReferenceLexer(literals)
    rng = random.Random(index)
    for _ in range(3000):
        text = _random_text(rng, literals, rng.choice(ALPHABETS))
        for final in (False, True):
            assert fast._drain(text, final=final) == ref.drain(text, final), (text, final)
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(0, 4))))
        assert _stream(fast, text, cuts) == _stream(ref, text, cuts), (text, cuts)


def test_markers_and_text() -> None:
    lexer = MarkerLexer(LITERAL_SETS[0])
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
