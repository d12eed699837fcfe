"""TREC 2022's AWRF's side data (``metric="awrf2022"``, :func:`ppg.metrics.awrf2022`):
the arguments made into the texts ``ppg rerank --attributes`` reads, and read by the
extension with the command line's own reader, so that the same data give the same
numbers through either door.

- ``attributes``: a path to the long table (``item attribute level weight`` lines, level
  ``@UNKNOWN`` for unknown mass), or a DataFrame with those four columns, a row per line.
- ``attribute_background`` (TREC's target averaged 50/50 with it) or ``attribute_target``
  (given marginals, the joint target their product), at most one: a path to
  ``attribute level weight`` lines, a DataFrame with those columns, or a mapping
  ``{attribute: {level: weight}}``.
- ``attribute_unknown``: a mapping ``{attribute: "level" | "drop" | "uniform"}`` (default
  ``"level"``, TREC 2022's).
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Sequence

import pandas as pd

#: The long table's columns, in order.
COLUMNS = ("item", "attribute", "level", "weight")

Texts = "tuple[str, Optional[str], Optional[str], list[tuple[str, str]]]"


def texts(attributes: Any, background: Any = None, target: Any = None, unknown: Any = None) -> Texts:
    """The extension's texts of the four arguments."""
    if background is not None and target is not None:
        raise ValueError("attribute_background, attribute_target: give at most one")
    table = _text(attributes, "attributes", COLUMNS)
    per = ("attribute", "level", "weight")
    bg = None if background is None else _text(background, "attribute_background", per)
    tg = None if target is None else _text(target, "attribute_target", per)
    return table, bg, tg, _policies(unknown)


def _text(value: Any, argument: str, columns: Sequence[str]) -> str:
    """A path's contents, a frame's rows or a nested mapping as whitespace-separated lines."""
    if isinstance(value, (str, os.PathLike)):
        try:
            with open(value, encoding="utf-8") as f:
                return f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"{argument}: cannot read {os.fspath(value)!r}: {e}") from e
    if isinstance(value, Mapping) and len(columns) == 3:
        rows = [(a, level, w) for a, levels in value.items() for level, w in _items(levels, argument, a)]
        value = pd.DataFrame(rows, columns=list(columns))
    if hasattr(value, "to_pandas") and not isinstance(value, pd.DataFrame):
        value = value.to_pandas()
    if not isinstance(value, pd.DataFrame):
        shape = " or a mapping {attribute: {level: weight}}" if len(columns) == 3 else ""
        raise TypeError(
            f"{argument}: expected a path, a DataFrame with columns {', '.join(columns)}{shape}, "
            f"got {type(value).__name__}"
        )
    missing = [c for c in columns if c not in value.columns]
    if missing:
        raise ValueError(f"{argument}: the DataFrame has no column {missing[0]!r}")
    fields = []
    for c in columns:
        column = value[c]
        if column.isna().any():
            at = _label(column.index[column.isna().to_numpy()][0])
            raise ValueError(f"{argument}: column {c!r} has a missing value at row {at!r}")
        if c == "weight":
            try:
                fields.append([repr(float(w)) for w in column])
            except (TypeError, ValueError) as e:
                raise ValueError(f"{argument}: column 'weight' holds a value that is not a number ({e})") from e
            continue
        text = column.astype(str)
        bad = text.str.contains(r"[\s#]") | (text == "")
        if bad.any():
            at = text.index[bad.to_numpy()][0]
            raise ValueError(
                f"{argument}: column {c!r} at row {_label(at)!r} is {text[at]!r}: names must be non-empty, "
                "without whitespace or '#' (as in the file)"
            )
        fields.append(text.tolist())
    return "\n".join(" ".join(row) for row in zip(*fields))


def _label(at: Any) -> Any:
    """An index label as Python has it (numpy's scalars print their type since 2.0)."""
    return at.item() if hasattr(at, "item") else at


def _items(levels: Any, argument: str, attribute: Any) -> "list[tuple[Any, Any]]":
    if not isinstance(levels, Mapping):
        raise TypeError(f"{argument}: attribute {attribute!r} maps to {type(levels).__name__}, expected {{level: weight}}")
    return list(levels.items())


def _policies(unknown: Any) -> "list[tuple[str, str]]":
    if unknown is None:
        return []
    if not isinstance(unknown, Mapping):
        raise TypeError(f"attribute_unknown: expected a mapping {{attribute: policy}}, got {type(unknown).__name__}")
    return [(str(a), str(p)) for a, p in unknown.items()]
