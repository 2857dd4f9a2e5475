"""The grammar xgrammar 0.2.8 makes for an integer range (`minimum` / `maximum` / exclusive ones).

xgrammar writes the range as a regular expression of digit patterns, one alternative per digit
count (fixed leading digits, then a digit class, then any digits), and turns that expression
into a grammar of its own: rule `root` holds the alternatives, every `\\d{n}` / `\\d{n,}` becomes
a repetition of a rule `root_N` holding `[0-9]` (numbered in text order), and a group of several
alternatives after a minus sign becomes a rule of its own, numbered after those. The caller
merges the rules into the schema's grammar (`json_schema_ebnf`).
"""

from __future__ import annotations

# An atom: a printed element, or ("rep", n, m) for `[0-9]{n,m}` (m = -1: unbounded).
Atom = str | tuple[str, int, int]
Pattern = list[Atom]


class _Group:
    """`-(alternatives)` in the expression."""

    def __init__(self, alternatives: list[Pattern]) -> None:
        self.alternatives = alternatives


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


# ---- number ranges ---------------------------------------------------------------------------
# xgrammar writes a number range as a regular expression over decimals with at most six fraction
# digits (bounds are first moved onto that grid), then converts it like a range of integers.
_PRECISION = 6
_INT64_MAX = 2**63 - 1


def _grid_text(value: float) -> str:
    """A bound on the six-digit grid, as xgrammar formats it (no trailing zeros)."""
    if -(2.0**63) <= value < 2.0**63 and value == int(value):
        return str(int(value))
    text = f"{value:.{_PRECISION}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _split(text: str) -> tuple[str, str]:
    whole, _, fraction = text.partition(".")
    return whole, fraction


def _step(text: str, up: bool) -> str:
    """The next grid point above (`up`) or below `text`."""
    whole, fraction = _split(text)
    scaled = int(whole + fraction.ljust(_PRECISION, "0"))
    scaled = scaled + 1 if up else max(scaled - 1, 0)
    digits = str(scaled).rjust(_PRECISION + 1, "0")
    whole, fraction = digits[:-_PRECISION].lstrip("0") or "0", digits[-_PRECISION:].rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


def _on_grid(value: float, lower: bool, strict: bool) -> tuple[str, bool]:
    """The bound moved onto the grid (inside the range) and whether it stays exclusive."""
    text = _grid_text(value)
    rounded = float(text)
    if rounded == value:
        return text, strict
    if lower and rounded < value:
        return _step(text, True), False
    if not lower and rounded > value:
        return _step(text, False), False
    return text, False


def _free(count: int) -> str:
    return f"\\d{{0,{count}}}" if count > 0 else ""


def _zeros(count: int) -> str:
    return f"0{{0,{count}}}" if count > 0 else ""


def _some_zeros(count: int) -> str:
    return f"0{{1,{count}}}"


def _digit(low: str, high: str) -> str:
    if low == high:
        return low
    return "\\d" if (low, high) == ("0", "9") else f"[{low}-{high}]"


def _above(bound: str, strict: bool, room: int) -> tuple[list[str], bool]:
    """Fractions (1..room digits) above `bound` (or equal unless strict); bool: bare int too."""
    out: list[str] = []
    size = len(bound)
    for i in range(size):
        if bound[i] < "9":
            out.append(bound[:i] + _digit(chr(ord(bound[i]) + 1), "9") + _free(room - i - 1))
    for extra in range(room - size):
        out.append(bound + "0" * extra + "[1-9]" + _free(room - size - extra - 1))
    bare = False
    if not strict:
        if size:
            out.append(bound + _zeros(room - size))
        else:
            bare = True
            if room >= 1:
                out.append(_some_zeros(room))
    return out, bare


def _below(bound: str, strict: bool, room: int) -> tuple[list[str], bool]:
    """Fractions (1..room digits) below `bound` (or equal unless strict); bool: bare int too."""
    out: list[str] = []
    size = len(bound)
    for i in range(size):
        if bound[i] > "0":
            out.append(bound[:i] + _digit("0", chr(ord(bound[i]) - 1)) + _free(room - i - 1))
    for i in range(size):
        if i == 0:
            if room >= 1:
                out.append(_some_zeros(room))
        else:
            out.append(bound[:i] + _zeros(room - i))
    if not strict:
        if size:
            out.append(bound + _zeros(room - size))
        elif room >= 1:
            out.append(_some_zeros(room))
    return out, size > 0 or not strict


def _between(low: str, strict_low: bool, high: str, strict_high: bool, room: int) -> tuple[list[str], bool]:
    out: list[str] = []
    bare = False
    common = 0
    while common < len(high) and (low[common] if common < len(low) else "0") == high[common]:
        common += 1
    prefix = high[:common]
    digit_low = low[common] if common < len(low) else "0"
    digit_high = high[common]
    if ord(digit_high) - ord(digit_low) >= 2:
        out.append(prefix + _digit(chr(ord(digit_low) + 1), chr(ord(digit_high) - 1))
                   + _free(room - common - 1))
    if common < len(low):
        parts, with_bare = _above(low[common + 1:], strict_low, room - common - 1)
        out += [prefix + digit_low + p for p in parts]
        if with_bare:
            out.append(prefix + digit_low)
    else:
        parts, _ = _above("", True, room - common - 1)
        out += [prefix + digit_low + p for p in parts]
        if not strict_low:
            if low:
                out.append(low + _zeros(room - len(low)))
            else:
                bare = True
                if room >= 1:
                    out.append(_some_zeros(room))
    parts, with_bare = _below(high[common + 1:], strict_high, room - common - 1)
    out += [prefix + digit_high + p for p in parts]
    if with_bare:
        out.append(prefix + digit_high)
    return out, bare


def _compare(a: tuple[str, str], b: tuple[str, str]) -> int:
    if len(a[0]) != len(b[0]):
        return -1 if len(a[0]) < len(b[0]) else 1
    if a[0] != b[0]:
        return -1 if a[0] < b[0] else 1
    width = max(len(a[1]), len(b[1]))
    fa, fb = a[1].ljust(width, "0"), b[1].ljust(width, "0")
    return 0 if fa == fb else (-1 if fa < fb else 1)


def _integer_regex(start: int | None, end: int | None) -> str:
    """xgrammar's integer-range expression (without anchors), from the same patterns."""
    def text(pattern: Pattern) -> str:
        out = ""
        for atom in pattern:
            if isinstance(atom, tuple):
                out += f"\\d{{{atom[1]},}}" if atom[2] == -1 else f"\\d{{{atom[1]}}}"
            elif atom == "[0-9]":
                out += "\\d"
            elif atom == "[0-9]*":
                out += "\\d*"
            else:
                out += atom.strip('"')
        return out

    parts: list[str] = []
    pending: list[str] = []
    for part in _alternatives(start, end):
        if isinstance(part, _Group):
            parts.append("-(" + "|".join(text(p) for p in part.alternatives) + ")")
        else:
            pending.append(text(part))
            parts.append(pending[-1])
    if start is not None and end is not None and end > 0:  # the positive side is one group
        positive = [text(p) for p in _positive(max(1, start), end)]
        head = parts[: len(parts) - len(positive)]
        parts = [*head, "(" + "|".join(positive) + ")"]
    elif start is None and end is not None and end > 0:
        positive = [text(p) for p in _positive(1, end)]
        parts = [*parts[: len(parts) - len(positive)], "(" + "|".join(positive) + ")"]
    return "(" + "|".join(parts) + ")"


def _positive_decimals(low: str, strict_low: bool, high: str | None, strict_high: bool) -> list[str]:
    out: list[str] = []
    whole_low, frac_low = _split(low)
    if (whole_low, frac_low) == ("0", ""):
        strict_low = True
    low_value = min(int(whole_low), _INT64_MAX)
    any_fraction = f"(\\.\\d{{1,{_PRECISION}}})?"

    def add(whole: str, found: tuple[list[str], bool]) -> None:
        out.extend(f"{whole}\\.{p}" for p in found[0])
        if found[1]:
            out.append(whole)

    if high is None:
        add(whole_low, _above(frac_low, strict_low, _PRECISION))
        if low_value < _INT64_MAX:
            out.append(_integer_regex(low_value + 1, None) + any_fraction)
        return out
    whole_high, frac_high = _split(high)
    high_value = min(int(whole_high), _INT64_MAX)
    order = _compare((whole_low, frac_low), (whole_high, frac_high))
    if order > 0 or (order == 0 and (strict_low or strict_high)):
        return out
    if order == 0:
        if not frac_low:
            out.append(f"{whole_low}(\\.{_some_zeros(_PRECISION)})?")
        else:
            out.append(f"{whole_low}\\.{frac_low}{_zeros(_PRECISION - len(frac_low))}")
        return out
    if whole_low == whole_high:
        add(whole_low, _between(frac_low, strict_low, frac_high, strict_high, _PRECISION))
        return out
    add(whole_low, _above(frac_low, strict_low, _PRECISION))
    if high_value - low_value >= 2:
        out.append(_integer_regex(low_value + 1, high_value - 1) + any_fraction)
    add(whole_high, _below(frac_high, strict_high, _PRECISION))
    return out


def number_regex(start: float | None, end: float | None, strict_start: bool, strict_end: bool) -> str:
    """xgrammar's expression for the decimals in the range (at least one bound, not empty)."""
    parts: list[str] = []
    negatives = start is None or start < 0
    if negatives:
        low, strict_low = "0", True
        if end is not None and end < 0:
            low, strict_low = _on_grid(-end, True, strict_end)
        high, strict_high = None, False
        if start is not None:
            high, strict_high = _on_grid(-start, False, strict_start)
        parts += ["-" + p for p in _positive_decimals(low, strict_low, high, strict_high)]
    zero = ((start is None or start < 0 or (start == 0 and not strict_start))
            and (end is None or end > 0 or (end == 0 and not strict_end)))
    if zero:
        parts.append(f"0(\\.{_some_zeros(_PRECISION)})?")
        if negatives:
            parts.append(f"-0(\\.{_some_zeros(_PRECISION)})")
    if end is None or end > 0:
        low, strict_low = "0", True
        if start is not None and start > 0:
            low, strict_low = _on_grid(start, True, strict_start)
        high, strict_high = None, False
        if end is not None:
            high, strict_high = _on_grid(end, False, strict_end)
        parts += _positive_decimals(low, strict_low, high, strict_high)
    return "^(" + "|".join(parts) + ")$"


# ---- the expression as a grammar ---------------------------------------------------------------
class _Choice:
    """A parenthesised group still inside a sequence (the normalizer flattens or lifts it)."""

    def __init__(self, alternatives: list[list[str | _Choice]]) -> None:
        self.alternatives = alternatives


def _escape(char: str) -> str:
    return '"\\""' if char == '"' else f'"{char}"'


class _RegexGrammar:
    """xgrammar's grammar for the range expressions above (digits, classes, groups, `?`,
    `*` on a class and `{n,m}` repetitions): repetitions and `?` become rules `root_N` in
    text order, then groups of several alternatives inside a sequence become rules of their own."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0
        self.rules: list[tuple[str, list[list[str | _Choice]]]] = []
        self.names = {"root"}

    def _new(self, owner: str) -> str:
        index = 1
        while f"{owner}_{index}" in self.names:
            index += 1
        self.names.add(f"{owner}_{index}")
        return f"{owner}_{index}"

    def _alternatives(self) -> list[list[str | _Choice]]:
        out = [self._sequence()]
        while self.pos < len(self.text) and self.text[self.pos] == "|":
            self.pos += 1
            out.append(self._sequence())
        return out

    def _sequence(self) -> list[str | _Choice]:
        out: list[str | _Choice] = []
        while self.pos < len(self.text) and self.text[self.pos] not in "|)":
            out.append(self._quantified())
        return out

    def _atom(self) -> str | _Choice:
        char = self.text[self.pos]
        self.pos += 1
        if char == "(":
            inner = self._alternatives()
            self.pos += 1  # ")"
            return _Choice(inner)
        if char == "[":
            start, end = self.pos - 1, self.text.index("]", self.pos)
            self.pos = end + 1
            return self.text[start:end + 1]
        if char == "\\":
            escaped = self.text[self.pos]
            self.pos += 1
            return "[0-9]" if escaped == "d" else _escape(escaped)
        return _escape(char)

    def _quantified(self) -> str | _Choice:
        atom = self._atom()
        if self.pos >= len(self.text) or self.text[self.pos] not in "?*{":
            return atom
        mark = self.text[self.pos]
        if mark == "*":
            self.pos += 1
            return f"{atom}*"
        if mark == "?":
            self.pos += 1
            name = self._new("root")
            body = atom.alternatives if isinstance(atom, _Choice) else [[atom]]
            self.rules.append((name, [[], *body]))
            return name
        end = self.text.index("}", self.pos)
        low, comma, high = self.text[self.pos + 1:end].partition(",")
        self.pos = end + 1
        upper = (high or "-1") if comma else low
        name = self._new("root")
        self.rules.append((name, atom.alternatives if isinstance(atom, _Choice) else [[atom]]))
        return f"{name}{{{low}, {upper}}}"

    def grammar(self) -> list[tuple[str, str]]:
        self.text = self.text.removeprefix("^").removesuffix("$")
        root = self._alternatives()
        ordered = [("root", root), *self.rules]
        lifted: list[tuple[str, str]] = []

        def flat(owner: str, alternatives: list[list[str | _Choice]]) -> list[list[str]]:
            out: list[list[str]] = []
            for alternative in alternatives:
                if len(alternative) == 1 and isinstance(alternative[0], _Choice):
                    out += flat(owner, alternative[0].alternatives)
                    continue
                sequence: list[str] = []
                for element in alternative:
                    if not isinstance(element, _Choice):
                        sequence.append(element)
                        continue
                    inner = flat(owner, element.alternatives)
                    if len(inner) == 1:
                        sequence += inner[0]
                    else:
                        name = self._new(owner)
                        lifted.append((name, _choices_empty(inner)))
                        sequence.append(name)
                out.append(sequence)
            return out

        done = [(name, _choices_empty(flat(name, body))) for name, body in ordered]
        return done + lifted


def _choices_empty(alternatives: list[list[str]]) -> str:
    return "(" + " | ".join("(" + " ".join(a) + ")" if a else '""' for a in alternatives) + ")"


def number_range(start: float | None, end: float | None, strict_start: bool,
                 strict_end: bool) -> list[tuple[str, str]]:
    """The range's own grammar, root first."""
    return _RegexGrammar(number_regex(start, end, strict_start, strict_end)).grammar()
