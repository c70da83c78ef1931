"""SyntaxGym's prediction formulas: parsed once into a small typed tree, evaluated per item.

The language is that of syntaxgym-core's `prediction.py` (pyparsing grammar), read and
re-implemented here as a recursive-descent parser:

- a region reference `(N;%condition%)` is the surprisal of region N of that condition, in bits;
  `(*;%condition%)` sums all its regions; a `#` before N is accepted (`(#3;%match%)`);
- numbers (`0`, `1.5`, `-2`, `1e-3`);
- `+ -` (and `* /`, which the older syntaxgym.org documentation allows), left to right;
- comparisons `<`, `>` and `=`; `=` is approximate: |a − b| ≤ 1e-3 + 1e-5·|b| (numpy's
  `isclose` with syntaxgym-core's EQUALITY_ATOL and EQUALITY_RTOL);
- `&` and `|` at one precedence level, left to right (as in syntaxgym-core), `~` for "not"
  (syntaxgym.org documentation);
- grouping with `( … )` or `[ … ]` (the older documentation groups with square brackets).

Nesting (brackets and unary operators) deeper than MAX_DEPTH is refused as a FormulaError.

Precedence, tightest first: unary minus; `* /`; `+ -`; comparison; `~`; `& |`. A chained
comparison (`a < b < c`) is refused: syntaxgym-core silently evaluates only its first link.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# Deepest nesting of brackets and unary operators parsed: deeper is refused (recursive descent
# would exhaust Python's stack; no real prediction nests more than a few levels).
MAX_DEPTH = 64
MAX_TOKENS = 512  # a longer formula (a chain of thousands of terms) would nest its tree as deep
EQUALITY_ATOL = 1e-3
EQUALITY_RTOL = 1e-5


class FormulaError(ValueError):
    """A prediction formula that cannot be parsed or is not a yes/no statement."""


@dataclass(frozen=True)
class Region:
    """Surprisal of one region (`number`) or of every region (`number` None) of a condition."""

    condition: str
    number: int | None


@dataclass(frozen=True)
class Number:
    """A literal number."""

    value: float


@dataclass(frozen=True)
class Unary:
    """`-x` or `~p`."""

    op: str
    operand: Node


@dataclass(frozen=True)
class Binary:
    """`a op b` for an arithmetic, comparison or logical operator."""

    op: str
    left: Node
    right: Node


Node = Region | Number | Unary | Binary

ARITHMETIC = {"+", "-", "*", "/"}
COMPARISONS = {"<", ">", "="}
LOGICAL = {"&", "|"}

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<region>\(\s*\#?\s*(?:\d+|\*)\s*;\s*%[^%]+%\s*\))
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<op>[-+*/<>=&|~])
  | (?P<open>[(\[])
  | (?P<close>[)\]])
    )""",
    re.VERBOSE,
)
_REGION = re.compile(r"\(\s*\#?\s*(\d+|\*)\s*;\s*%([^%]+)%\s*\)")
_PAIRS = {"(": ")", "[": "]"}


def tokenize(text: str) -> list[tuple[str, str]]:
    """(kind, text) tokens of a formula; anything else is an error."""
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise FormulaError(f"unexpected {text[position:].strip()[:20]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens; each level returns (node, kind) with kind num|bool."""

    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens, self.i, self.depth = tokens, 0, 0

    def deeper(self) -> None:
        """One more level of brackets or unary operators; too many is a FormulaError."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FormulaError(f"nested more than {MAX_DEPTH} deep")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise FormulaError("the formula ends too early")
        self.i += 1
        return token

    def is_op(self, ops: set[str]) -> bool:
        token = self.peek()
        return token is not None and token[0] == "op" and token[1] in ops

    def logical(self) -> tuple[Node, str]:
        node, kind = self.negation()
        while self.is_op(LOGICAL):
            op = self.take()[1]
            right, right_kind = self.negation()
            _need("bool", op, kind, right_kind)
            node, kind = Binary(op, node, right), "bool"
        return node, kind

    def negation(self) -> tuple[Node, str]:
        if self.is_op({"~"}):
            self.take()
            self.deeper()
            operand, kind = self.negation()
            self.depth -= 1
            _need("bool", "~", kind)
            return Unary("~", operand), "bool"
        return self.comparison()

    def comparison(self) -> tuple[Node, str]:
        node, kind = self.arithmetic({"+", "-"})
        if self.is_op(COMPARISONS):
            op = self.take()[1]
            right, right_kind = self.arithmetic({"+", "-"})
            _need("num", op, kind, right_kind)
            if self.is_op(COMPARISONS):
                raise FormulaError("chained comparison: group each comparison and join with &")
            return Binary(op, node, right), "bool"
        return node, kind

    def arithmetic(self, ops: set[str]) -> tuple[Node, str]:
        step = self.factor if ops == {"*", "/"} else (lambda: self.arithmetic({"*", "/"}))
        node, kind = step()
        while self.is_op(ops):
            op = self.take()[1]
            right, right_kind = step()
            _need("num", op, kind, right_kind)
            node, kind = Binary(op, node, right), "num"
        return node, kind

    def factor(self) -> tuple[Node, str]:
        kind, text = self.take()
        if kind == "op" and text == "-":
            self.deeper()
            operand, operand_kind = self.factor()
            self.depth -= 1
            _need("num", "-", operand_kind)
            return Unary("-", operand), "num"
        if kind == "number":
            return Number(float(text)), "num"
        if kind == "region":
            number, condition = _REGION.fullmatch(text).groups()  # type: ignore[union-attr]
            return Region(condition, None if number == "*" else int(number)), "num"
        if kind == "open":
            self.deeper()
            node, node_kind = self.logical()
            self.depth -= 1
            if self.peek() != ("close", _PAIRS[text]):
                raise FormulaError(f"{text!r} is not closed by {_PAIRS[text]!r}")
            self.take()
            return node, node_kind
        raise FormulaError(f"unexpected {text!r}")


def _need(kind: str, op: str, *kinds: str) -> None:
    if any(k != kind for k in kinds):
        wanted = "numbers" if kind == "num" else "comparisons"
        raise FormulaError(f"{op!r} needs {wanted} on both sides")


def parse(text: str) -> Node:
    """The tree of a prediction formula; it must state something true or false."""
    tokens = tokenize(text)
    parser = _Parser(tokens)
    if parser.peek() is None:
        raise FormulaError("empty formula")
    node, kind = parser.logical()  # nesting is bounded here, chains below
    if len(tokens) > MAX_TOKENS:
        raise FormulaError(f"longer than {MAX_TOKENS} tokens")
    if parser.peek() is not None:
        raise FormulaError(f"unexpected {parser.peek()[1]!r}")  # type: ignore[index]
    if kind != "bool":
        raise FormulaError("the formula compares nothing (it needs <, > or =)")
    return node


def references(node: Node) -> set[tuple[str, int | None]]:
    """(condition, region number or None for `*`) of every region the formula reads."""
    if isinstance(node, Region):
        return {(node.condition, node.number)}
    if isinstance(node, Unary):
        return references(node.operand)
    if isinstance(node, Binary):
        return references(node.left) | references(node.right)
    return set()


def evaluate(node: Node, surprisal: Callable[[str, int | None], float]) -> float | bool:
    """The formula's value, given `surprisal(condition, region number or None)` in bits."""
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Region):
        return surprisal(node.condition, node.number)
    if isinstance(node, Unary):
        value = evaluate(node.operand, surprisal)
        return (not value) if node.op == "~" else -value
    left, right = evaluate(node.left, surprisal), evaluate(node.right, surprisal)
    op = node.op
    if op == "&":
        return bool(left) and bool(right)
    if op == "|":
        return bool(left) or bool(right)
    if op == "<":
        return left < right
    if op == ">":
        return left > right
    if op == "=":
        return abs(left - right) <= EQUALITY_ATOL + EQUALITY_RTOL * abs(right)
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    return left / right if right else float("nan")
