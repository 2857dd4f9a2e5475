"""The grammar xgrammar 0.2.8 makes for an integer range (`minimum` / `maximum` / exclusive ones).

xgrammar writes the range as a regular expression of digit patterns, one alternative per digit
count (fixed leading digits, then a digit class, then any digits), and turns that expression
into a grammar of its own: rule `root` holds the alternatives, every `\\d{n}` / `\\d{n,}` becomes
a repetition of a rule `root_N` holding `[0-9]` (numbered in text order), and a group of several
alternatives after a minus sign becomes a rule of its own, numbered after those. The caller
merges the rules into the schema's grammar (`json_schema_ebnf`).
"""

from __future__ import annotations

from dataclasses import dataclass

# An atom: a printed element, or ("rep", n, m) for `[0-9]{n,m}` (m = -1: unbounded).
Atom = str | tuple[str, int, int]
Pattern = list[Atom]


@dataclass
class _Group:
    """`-(alternatives)` in the expression."""

    alternatives: list[Pattern]


def _digit_class(low: str, high: str) -> Atom:
    if low == high:
        return f'"{low}"'
    return "[0-9]" if (low, high) == ("0", "9") else f"[{low}-{high}]"


def _any_digits(count: int) -> list[Atom]:
    if count == 0:
        return []
    return ["[0-9]"] if count == 1 else [("rep", count, count)]


def _with_digits(low: str, high: str, count: int) -> Pattern:
    return [_digit_class(low, high), *_any_digits(count)]


def _same_length(low: str, high: str) -> list[Pattern]:
    """Patterns for the digit strings from `low` to `high` (same length, leading zeros allowed)."""
    size = len(low)
    if size == 1:
        return [[_digit_class(low, high)]]
    if low == "0" * size and high == "9" * size:
        return [_any_digits(size)]
    if low[0] == high[0]:
        return [[f'"{low[0]}"', *rest] for rest in _same_length(low[1:], high[1:])]
    if low[1:] == "0" * (size - 1) and high[1:] == "9" * (size - 1):
        return [_with_digits(low[0], high[0], size - 1)]
    out = [[f'"{low[0]}"', *rest] for rest in _same_length(low[1:], "9" * (size - 1))]
    if int(high[0]) - int(low[0]) > 1:
        out.append(_with_digits(str(int(low[0]) + 1), str(int(high[0]) - 1), size - 1))
    out += [[f'"{high[0]}"', *rest] for rest in _same_length("0" * (size - 1), high[1:])]
    return out


def _positive(low: int, high: int) -> list[Pattern]:
    """Patterns for low..high, 1 <= low <= high, one digit count after the other."""
    out: list[Pattern] = []
    for size in range(len(str(low)), len(str(high)) + 1):
        first, last = 10 ** (size - 1), 10**size - 1
        out += _same_length(str(max(low, first)), str(min(high, last)))
    return out


def _alternatives(start: int | None, end: int | None) -> list[Pattern | _Group]:
    parts: list[Pattern | _Group] = []
    if end is None:
        assert start is not None
        if start <= 0:
            if start < 0:
                parts.append(_Group(_positive(1, -start)))
            parts += [['"0"'], ["[1-9]", "[0-9]*"]]
        else:
            size = len(str(start))
            parts += _positive(start, 10**size - 1)
            parts.append(["[1-9]", ("rep", size, -1)])
        return parts
    if start is None:
        if end >= 0:
            parts += [['"-"', "[1-9]", "[0-9]*"], ['"0"']]
            if end > 0:
                parts += _positive(1, end)
        else:
            size = len(str(-end))
            parts += [['"-"', *p] for p in _positive(-end, 10**size - 1)]
            parts.append(['"-"', "[1-9]", ("rep", size, -1)])
        return parts
    if start < 0:
        parts.append(_Group(_positive(-min(-1, end), -start)))
    if start <= 0 <= end:
        parts.append(['"0"'])
    if end > 0:
        parts += _positive(max(1, start), end)
    return parts


def _choices(alternatives: list[list[str]]) -> str:
    return "(" + " | ".join("(" + " ".join(a) + ")" for a in alternatives) + ")"


def integer_range(start: int | None, end: int | None) -> list[tuple[str, str]]:
    """The range's own grammar, root first (at least one bound given, start <= end)."""
    repeats: list[str] = []

    def printed(pattern: Pattern) -> list[str]:
        out: list[str] = []
        for atom in pattern:
            if isinstance(atom, tuple):
                repeats.append(f"root_{len(repeats) + 1}")
                out.append(f"{repeats[-1]}{{{atom[1]}, {atom[2]}}}")
            else:
                out.append(atom)
        return out

    top: list[list[str]] = []
    lifted: list[list[list[str]]] = []
    for part in _alternatives(start, end):
        if isinstance(part, _Group):
            inner = [printed(p) for p in part.alternatives]
            if len(inner) == 1:
                top.append(['"-"', *inner[0]])
            else:
                lifted.append(inner)
                top.append(['"-"', f"\x00{len(lifted)}"])
        else:
            top.append(printed(part))
    lift_names = [f"root_{len(repeats) + i}" for i in range(1, len(lifted) + 1)]

    def named(alternative: list[str]) -> list[str]:
        return [lift_names[int(a[1:]) - 1] if a.startswith("\x00") else a for a in alternative]

    rules = [("root", _choices([named(a) for a in top]))]
    rules += [(name, "(([0-9]))") for name in repeats]
    rules += [(name, _choices(body)) for name, body in zip(lift_names, lifted, strict=True)]
    return rules
