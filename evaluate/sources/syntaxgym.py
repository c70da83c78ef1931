"""SyntaxGym suites (DESIGN.md §7): items, conditions, regions; region surprisals; predictions.

Format facts (syntaxgym-core `docs/suite_json.rst`, `syntaxgym/prediction.py`): a suite is a JSON
object with `meta` (`metric`: "sum"), `region_meta`, `predictions` (objects `{"type": "formula",
"formula": …}`, or plain strings in older suites) and `items`, each with `item_number` and
`conditions`, each with `condition_name` and `regions` (`region_number`, `content`).

A condition's sentence is its regions' contents (stripped) joined by single spaces, empty regions
left out. Region i's characters include the space before it, and a token belongs to the region
that holds its last character, so a leading space (`Ġare`, `▁are`) goes with its word. A
region's surprisal is −Σ log2 P(token) over its tokens, in bits; an empty region's is 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ud_agree.formats.lines import JsonProblem, parse_json
from ud_agree.formats.problems import Malformed, Problems, SuiteFormatError

from . import formula
from .formula import Node


@dataclass(frozen=True)
class Condition:
    """One condition of an item: its regions (number, content) in region-number order."""

    name: str
    regions: tuple[tuple[int, str], ...]

    def layout(self) -> tuple[str, list[tuple[int, int, int]]]:
        """The sentence, and (region number, start, end) of each non-empty region, space before included."""
        spans: list[tuple[int, int, int]] = []
        parts: list[str] = []
        length = 0
        for number, content in self.regions:
            if not content:
                continue
            start = length  # the joining space (none before the first region) is this region's
            length += len(content) + (1 if parts else 0)
            parts.append(content)
            spans.append((number, start, length))
        return " ".join(parts), spans


@dataclass(frozen=True)
class Item:
    """An item: its number, the line where it starts (when found) and its conditions by name."""

    number: int
    line: int | None
    conditions: dict[str, Condition]


@dataclass(frozen=True)
class Prediction:
    """One prediction of the suite: its position, text and parsed formula."""

    index: int
    formula: str
    tree: Node  # not formula.Node: the field `formula` shadows the module in the class body


@dataclass
class GymSuite:
    """A SyntaxGym suite as read: predictions and well-formed items."""

    name: str
    path: Path
    format: str = "syntaxgym"
    predictions: list[Prediction] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Number of items to score (none without a prediction to test)."""
        return len(self.items) if self.predictions else 0


def line_at(text: str, index: int) -> int:
    """1-based line of a character position."""
    return text.count("\n", 0, index) + 1


def read_syntaxgym(path: Path, problems: Problems, name: str) -> GymSuite:
    """A SyntaxGym suite JSON: bad predictions and items are reported and left out."""
    suite = GymSuite(name, path, malformed=problems.found)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        problems.add(None, "not valid UTF-8; the suite is skipped")
        return suite
    try:
        data = parse_json(text)
    except JsonProblem as error:
        problems.add(error.line, f"{error}; the suite is skipped")
        return suite
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise SuiteFormatError(f"{path}: not a SyntaxGym suite (no list of items)")
    metric = (data.get("meta") or {}).get("metric", "sum")
    if metric not in ("sum", ["sum"]):
        problems.add(None, f"meta.metric {metric!r}: only 'sum' is supported; the suite is skipped")
        return suite
    suite.predictions = read_predictions(data.get("predictions") or [], text, problems)
    # Items have no line in json's output: the n-th `"item_number"` key of the text stands in.
    keys = [m.start() for m in re.finditer(r'"item_number"\s*:', text)]
    lines = [line_at(text, k) for k in keys] if len(keys) == len(data["items"]) else []
    seen: set[int] = set()
    for position, raw in enumerate(data["items"]):
        line = lines[position] if lines else None
        item = read_item(raw, position + 1, line, suite.predictions, problems)
        if item is None:
            continue
        if item.number in seen:
            problems.add(line, f"item {item.number}: the item number repeats")
            continue
        seen.add(item.number)
        suite.items.append(item)
    return suite


def read_predictions(raw: list, text: str, problems: Problems) -> list[Prediction]:
    """Parsed predictions; one that cannot be parsed is reported and left out."""
    predictions = []
    for index, entry in enumerate(raw):
        source = entry.get("formula") if isinstance(entry, dict) else entry
        where = text.find(source) if isinstance(source, str) else -1
        line = line_at(text, where) if where >= 0 else None
        if isinstance(entry, dict) and entry.get("type", "formula") != "formula":
            problems.add(line, f"prediction {index}: type {entry.get('type')!r} is not 'formula'")
            continue
        if not isinstance(source, str):
            problems.add(line, f"prediction {index}: no formula")
            continue
        try:
            tree = formula.parse(source)
        except formula.FormulaError as error:
            problems.add(line, f"prediction {index}: {error}")
            continue
        predictions.append(Prediction(index, source, tree))
    return predictions


def read_item(
    raw: object, position: int, line: int | None, predictions: list[Prediction], problems: Problems
) -> Item | None:
    """One item, checked: conditions named once, regions numbered once, every reference present."""
    if not isinstance(raw, dict):
        problems.add(line, f"item at position {position}: not a JSON object")
        return None
    number = raw.get("item_number", position)
    label = f"item {number}"
    if not isinstance(number, int) or isinstance(number, bool):
        problems.add(line, f"{label}: item_number is not an integer")
        return None
    conditions: dict[str, Condition] = {}
    for entry in raw.get("conditions") or []:
        condition, reason = read_condition(entry)
        if condition is None:
            problems.add(line, f"{label}: {reason}")
            return None
        if condition.name in conditions:
            problems.add(line, f"{label}: condition {condition.name!r} repeats")
            return None
        conditions[condition.name] = condition
    if not conditions:
        problems.add(line, f"{label}: no conditions")
        return None
    for prediction in predictions:
        for name, region in sorted(formula.references(prediction.tree), key=str):
            numbers = {n for n, _ in conditions[name].regions} if name in conditions else set()
            if name not in conditions or (region is not None and region not in numbers):
                what = f"condition {name!r}" if region is None else f"region {region} of {name!r}"
                problems.add(
                    line, f"{label}: prediction {prediction.index} reads {what}, which it lacks"
                )
                return None
    return Item(number, line, conditions)


def read_condition(raw: object) -> tuple[Condition | None, str | None]:
    """A condition, or None and why not."""
    if not isinstance(raw, dict) or not isinstance(raw.get("condition_name"), str):
        return None, "a condition without condition_name"
    name = raw["condition_name"]
    regions: dict[int, str] = {}
    for region in raw.get("regions") or []:
        number = region.get("region_number") if isinstance(region, dict) else None
        content = region.get("content") if isinstance(region, dict) else None
        if not isinstance(number, int) or isinstance(number, bool) or not isinstance(content, str):
            return (
                None,
                f"condition {name!r}: a region without an integer region_number and content",
            )
        if number in regions:
            return None, f"condition {name!r}: region {number} repeats"
        regions[number] = content.strip()
    if not regions:
        return None, f"condition {name!r}: no regions"
    return Condition(name, tuple(sorted(regions.items()))), None
