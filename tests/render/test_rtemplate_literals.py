"""Spelling response-template delimiter patterns out as literals (`render/rtemplate_literals.py`)."""

from __future__ import annotations

import pytest

from tokenfront.parsers.engines.rtemplate_spec import load_template
from tokenfront.render import rtemplate_literals as lit


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("<think>", ["<think>"]),
        ("<think>\\n?", ["<think>", "<think>\n"]),
        ("(?:<a>|<b>)\\n", ["<a>\n", "<b>\n"]),
        ("a|b|a", ["a", "b"]),
        ("\\<\\|x\\|\\>", ["<|x|>"]),
    ],
)
def test_plain_patterns_expand_to_their_strings(pattern: str, expected: list[str]) -> None:
    assert lit.expand(pattern) == expected


@pytest.mark.parametrize("pattern", ["\\s*<x>", "<x>.", "[ab]", "a+", "(?P<n>a)", "\\d", "a{2}", "x$"])
def test_richer_patterns_do_not_expand(pattern: str) -> None:
    assert lit.expand(pattern) is None


def test_expansion_is_bounded_to_sixteen_strings() -> None:
    assert lit.expand("a?" * 4) is not None
    assert lit.expand("a?b?c?d?e?") is None  # 32 strings


def test_start_marker_only_at_the_message_start() -> None:
    assert lit.expand("^<think>\\n|<x>") is None
    assert lit.expand("^<think>\\n|<x>", message_start=True) == ["<think>\n", "<x>"]
    assert lit.expand("a^b", message_start=True) == []


def test_a_final_lookahead_only_when_allowed() -> None:
    assert lit.expand("</p>|(?=<p=)") is None
    assert lit.expand("</p>|(?=<p=)", lookahead=True) == ["</p>", lit.AHEAD + "<p="]
    assert lit.expand("(?=<p=)x", lookahead=True) is None  # nothing may follow a lookahead


def test_openers_add_their_rest_after_a_message_start_anchor() -> None:
    template = load_template({
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {"thinking": {"open_pattern": "^<think>\\n|<\\|im_start\\|>assistant\\n<think>\\n", "close": "</think>"},
                   "content": {}},
    })
    thinking = template.fields["thinking"]
    assert lit.openers(thinking) is None  # `^` is only readable at the message start
    assert lit.openers(thinking, lit.anchors(template)) == ["<think>\n", "<|im_start|>assistant\n<think>\n"]
    assert lit.closers(thinking) == ["</think>"]
    assert lit.closers(template.fields["content"]) == []


def test_split_group_respects_nesting_and_classes() -> None:
    assert lit.split_group("<f=(?P<name>[^)>]+(?:x))>\\n", "name") == ("<f=", "[^)>]+(?:x)", ">\\n")
    assert lit.split_group("<f>", "name") is None


def test_escape_backslashes_regex_metacharacters_only() -> None:
    assert lit.escape("<a.b|c>\n") == "<a\\.b\\|c>\n"
    assert lit.class_char("\n") == "\\n" and lit.class_char("]") == "\\]" and lit.class_char("a") == "a"


def test_a_closer_spelled_across_argument_pieces_is_found() -> None:
    pieces = (lit.literal_piece(["<p="]), ("(?:\\w+)", "", False), lit.literal_piece([">"]), lit.TEXT_PIECE,
              lit.literal_piece(["</p>"]))
    assert not lit.spells_closer(("</f>",), pieces, repeats=True)
    assert lit.spells_closer(("</p><p=",), pieces, repeats=True)  # a value end and the next opener
    assert lit.spells_closer(("}}",), (lit.JSON_PIECE,))  # JSON may end on the first half
    assert not lit.spells_closer(("</f>",), (lit.JSON_PIECE,))
