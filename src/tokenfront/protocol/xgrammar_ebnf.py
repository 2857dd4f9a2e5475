"""Whether xgrammar 0.2.8's EBNF parser accepts a grammar (an approximation: rule structure,
quantifier bounds, character classes and escapes; checked against xgrammar on the recorded table
of tests/protocol/data/structural_tag_verdicts.json): the grammar of a structural tag's
`grammar` format."""

from __future__ import annotations

import re

_EBNF_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|\#[^\n]*)
    | (?P<assign>::=)
    | (?P<string>"(?:\\(?:[\x22'?\\abfnrtv0e]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})|[^"\\\n])*")
    | (?P<cls>\[(?:\\.|[^\]\\])*\])
    | (?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)
    | (?P<repeat>\{\s*\d+\s*(?:,\s*\d*\s*)?\})
    | (?P<op>[()|*+?=,])
    """,
    re.VERBOSE,
)


def grammar_error(text: str) -> str | None:
    """Why xgrammar's EBNF parser refuses `text` (approximation), or None."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _EBNF_TOKEN.match(text, pos)
        if m is None:
            return f"unexpected character {text[pos]!r}"
        pos = m.end()
        kind = m.lastgroup or ""
        if kind != "ws":
            tokens.append((kind, m.group()))
    rules: list[tuple[str, list[tuple[str, str]]]] = []
    for k, (kind, value) in enumerate(tokens):
        if kind == "assign":
            if k == 0 or tokens[k - 1][0] != "name":
                return "a rule needs a name before '::='"
            rules.append((tokens[k - 1][1], []))
        elif k + 1 < len(tokens) and tokens[k + 1][0] == "assign":
            continue  # the name of the next rule
        elif not rules:
            return "expected a rule definition"
        else:
            rules[-1][1].append((kind, value))
    if not rules:
        return "the grammar has no rules"
    names = {name for name, _ in rules}
    if len(names) != len(rules):
        return "a rule is defined more than once"
    if "root" not in names:
        return 'The root rule with name "root" is not found.'
    for _, body in rules:
        error = _ebnf_body_error(body, names)
        if error:
            return error
    return None


def _ebnf_body_error(body: list[tuple[str, str]], names: set[str]) -> str | None:
    depth = 0
    prev = "start"  # the previous token: start (of an alternative) / open / atom / op
    if not body:
        return "a rule has an empty body"
    for k, (kind, value) in enumerate(body):
        calls = kind == "name" and k + 1 < len(body) and body[k + 1] == ("op", "(")
        if kind == "name" and not calls and value not in names:
            return f'Rule "{value}" is not defined'
        if kind == "cls" and _ebnf_class_error(value):
            return "a character class range is reversed"
        if value == "(" and k + 1 < len(body) and body[k + 1] == ("op", "="):
            if body[-1] != ("op", ")") or depth:
                return "a lookahead assertion must end the rule"
        if kind in ("string", "cls", "name"):
            prev = "atom"
        elif value == "(":
            depth += 1
            prev = "open"
        elif value == ")":
            depth -= 1
            if depth < 0 or prev == "start":
                return "unbalanced ')' or an empty alternative"
            prev = "atom"
        elif value == "|":
            if prev in ("start", "open"):
                return "an alternative is empty"
            prev = "start"
        elif kind == "repeat" or value in "*+?":
            if prev != "atom" or (kind == "repeat" and _ebnf_repeat_error(value)):
                return "a quantifier needs an element before it and valid bounds"
            prev = "op"
        else:
            prev = "start"
    if depth or prev in ("start", "open"):
        return "unbalanced '(' or an empty alternative"
    return None


def _ebnf_repeat_error(value: str) -> bool:
    bounds = [b.strip() for b in value[1:-1].split(",")]
    return len(bounds) == 2 and bounds[1] != "" and int(bounds[1]) < int(bounds[0])


def _ebnf_class_error(value: str) -> bool:
    """Whether a `[...]` class has a reversed range (escapes read as their code points)."""
    body = value[1:-1].removeprefix("^")
    points = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            points.append(ord(_SIMPLE_ESCAPE_CHARS.get(body[i + 1], body[i + 1])))
            i += 2
        else:
            points.append(-1 if body[i] == "-" else ord(body[i]))
            i += 1
    return any(
        points[j] == -1 and 0 < j < len(points) - 1 and points[j - 1] > points[j + 1] >= 0
        for j in range(len(points))
    )


_SIMPLE_ESCAPE_CHARS = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v", "0": "\0"}
