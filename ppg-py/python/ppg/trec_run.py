r"""TREC Fair Ranking run files: :func:`write` a frame of rankings in the format a track's
evaluator reads, :func:`read` one back as a frame ``qid, session, rank, item`` for
:func:`ppg.metrics.frame`. The files are byte for byte what ``ppg rerank --run-format``
writes for the same rankings.

- ``"trec2020"``: ``qid sample docno rank sim run_id``, tab-separated, no header, one block
  per session (sample ``Q0``, ``Q1``, ...; sim ``n - rank + 1``): what ``diazf/expeval``'s
  ``expeval.py -I`` reads, TREC 2019 and 2020 (expected exposure).
- ``"trec2022"``: header ``id page_id``, one ranking per topic in line order: TREC 2022
  task 1, read by ``wptrec/trecdata.py`` (fair-trec/trec2022-fair-public).
- ``"trec2022-seq"``: header ``id seq_no page_id``, seq_no the session from 1: TREC 2022
  task 2.
- ``"ppg"``: ``ppg rerank``'s own, header ``qid session rank item``.

>>> import io, pandas as pd
>>> from ppg import trec_run
>>> rankings = pd.DataFrame({"qid": [7, 7, 7, 7], "session": [1, 1, 2, 2],
...                          "rank": [1, 2, 1, 2], "item": [10, 11, 11, 10]})
>>> text = trec_run.write(rankings, None, "trec2020", run_id="mine")
>>> text.splitlines()[:3]
['7\tQ0\t10\t1\t2\tmine', '7\tQ0\t11\t2\t1\tmine', '7\tQ1\t11\t1\t2\tmine']
>>> trec_run.read(io.StringIO(text), "trec2020").values.tolist()
[['7', 1, 1, '10'], ['7', 1, 2, '11'], ['7', 2, 1, '11'], ['7', 2, 2, '10']]
"""

from __future__ import annotations

import io
import os
import re
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

__all__ = ["FORMATS", "write", "read"]

#: The formats, by the names ``ppg rerank --run-format`` takes.
FORMATS = ("ppg", "trec2020", "trec2022", "trec2022-seq")

_HEADERS = {"ppg": "qid\tsession\trank\titem", "trec2022": "id\tpage_id", "trec2022-seq": "id\tseq_no\tpage_id"}
_DIGITS = re.compile(r"[0-9]+\Z")
_SPACE = re.compile(r"\s")


def _format(format: str) -> str:
    if format not in FORMATS:
        raise ValueError(f"format: {format!r} is none of {', '.join(map(repr, FORMATS))}")
    return format


def _check_ids(values: pd.Series, column: str, format: str) -> None:
    """Ids the format's evaluator would misread, refused naming the column and row."""
    if format == "trec2020":
        bad = values.map(lambda v: bool(_SPACE.search(v)))
        why = "holds whitespace, which the trec2020 format (expeval) splits fields on"
    elif format.startswith("trec2022"):
        bad = values.map(lambda v: not _DIGITS.match(v))
        why = "is not an integer, which the 2022 formats' evaluator reads ids as"
    else:
        return
    if bad.any():
        at = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"{column}: {values.iat[at]!r} (row {values.index[at]!r}) {why}")


def write(
    rankings: Any,
    path: Union[str, "os.PathLike[str]", io.TextIOBase, None],
    format: str,
    *,
    run_id: str = "ppg",
    qid: str = "qid",
    session: str = "session",
    rank: str = "rank",
    item: str = "item",
) -> Optional[str]:
    """Writes ``rankings`` (a row per query, session and rank, such as
    :func:`ppg.rerank_frame`'s output; without a ``session`` column, one session) to
    ``path`` (a file name or a text stream) in ``format``, or returns the text when
    ``path`` is None. Queries in order of first appearance, sessions and ranks ascending
    (their values only order the rows: ranks may start from 0). ``"trec2022"`` takes one
    session per query."""
    format = _format(format)
    if not isinstance(rankings, pd.DataFrame):
        raise TypeError(f"rankings: expected a pandas DataFrame, got {type(rankings).__name__}")
    if not isinstance(run_id, str) or not run_id or _SPACE.search(run_id):
        raise ValueError(f"run_id: {run_id!r}: a run id is one word (the trec2020 format splits on whitespace)")
    for argument, column in (("qid", qid), ("rank", rank), ("item", item)):
        if column not in rankings.columns:
            raise ValueError(f"{argument}: the DataFrame has no column {column!r}")
    q = rankings[qid].astype(str)
    items = rankings[item].astype(str)
    _check_ids(q, qid, format)
    _check_ids(items, item, format)
    q_codes = pd.factorize(rankings[qid], sort=False)[0]
    s = rankings[session] if session in rankings.columns else pd.Series(0, index=rankings.index)
    s_codes = pd.factorize(s, sort=True)[0]
    order = np.lexsort((rankings[rank].to_numpy(), s_codes, q_codes))
    q, items = q.to_numpy()[order], items.to_numpy()[order]
    q_o, s_o = q_codes[order], s_codes[order]
    # Each (query, session) block: its session number within the query from 1, ranks from 1.
    block = np.r_[True, (q_o[1:] != q_o[:-1]) | (s_o[1:] != s_o[:-1])]
    starts = np.flatnonzero(block)
    sizes = np.diff(np.r_[starts, len(order)])
    first_of_query = np.r_[True, q_o[starts][1:] != q_o[starts][:-1]]
    number = np.arange(len(starts)) - np.maximum.accumulate(np.where(first_of_query, np.arange(len(starts)), 0)) + 1
    if format == "trec2022" and (number > 1).any():
        raise ValueError(f"session: query {q[starts[np.flatnonzero(number > 1)[0]]]!r} has more than one session; "
                         "'trec2022' holds one ranking per topic ('trec2022-seq' holds a sequence)")
    n = np.repeat(sizes, sizes)
    r = np.arange(len(order)) - np.repeat(starts, sizes) + 1
    sess = np.repeat(number, sizes)
    if format == "ppg":
        lines = [f"{a}\t{b}\t{c}\t{d}" for a, b, c, d in zip(q, sess, r, items)]
    elif format == "trec2020":
        lines = [f"{a}\tQ{b - 1}\t{d}\t{c}\t{m + 1 - c}\t{run_id}" for a, b, c, d, m in zip(q, sess, r, items, n)]
    elif format == "trec2022":
        lines = [f"{a}\t{d}" for a, d in zip(q, items)]
    else:
        lines = [f"{a}\t{b}\t{d}" for a, b, d in zip(q, sess, items)]
    header = [_HEADERS[format]] if format in _HEADERS else []
    text = "".join(line + "\n" for line in header + lines)
    if path is None:
        return text
    if isinstance(path, io.TextIOBase):
        path.write(text)
    else:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return None


def read(path: Union[str, "os.PathLike[str]", io.TextIOBase], format: str) -> pd.DataFrame:
    """Reads a run file of ``format`` back as a frame ``qid, session, rank, item`` (ids as
    text, sessions and ranks from 1): sessions numbered by first appearance within their
    query (trec2020's samples, trec2022-seq's seq_no), a session's ranks by its ``sim``
    descending (trec2020, as expeval orders it; ties: file order) or by line order. A
    line with the wrong number of fields raises ``ValueError`` naming the file and line."""
    format = _format(format)
    name = getattr(path, "name", "<stream>") if isinstance(path, io.TextIOBase) else os.fspath(path)
    if isinstance(path, io.TextIOBase):
        text = path.read()
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    width = {"ppg": 4, "trec2020": 6, "trec2022": 2, "trec2022-seq": 3}[format]
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split() if format == "trec2020" else line.split("\t")
        if not line.strip():
            continue
        if number == 1 and format in _HEADERS and fields[0] in ("id", "qid", "topic_id"):
            continue
        # expeval reads the first five fields: a run id is optional to it.
        if len(fields) != width and not (format == "trec2020" and len(fields) == 5):
            raise ValueError(f"{name}:{number}: {len(fields)} fields where the {format} format has {width}")
        rows.append(fields)
    if format == "ppg":
        q, sample, position, items = ([r[k] for r in rows] for k in range(4))
        key = [float(p) for p in position]
    elif format == "trec2020":
        q, sample, items = ([r[k] for r in rows] for k in (0, 1, 2))
        try:
            key = [-float(r[4]) for r in rows]
        except ValueError as e:
            raise ValueError(f"{name}: a sim that is not a number ({e})") from e
    elif format == "trec2022":
        q, items = [r[0] for r in rows], [r[1] for r in rows]
        sample, key = ["1"] * len(rows), list(range(len(rows)))
    else:
        q, sample, items = ([r[k] for r in rows] for k in range(3))
        key = list(range(len(rows)))
    frame = pd.DataFrame({"qid": q, "sample": sample, "key": key, "item": items, "line": np.arange(len(rows))})
    frame["q"] = pd.factorize(frame["qid"])[0]
    # A session's number: its sample's first appearance within its query.
    firsts = frame.drop_duplicates(["q", "sample"]).copy()
    firsts["session"] = firsts.groupby("q").cumcount() + 1
    frame = frame.merge(firsts[["q", "sample", "session"]], on=["q", "sample"])
    frame = frame.sort_values(["q", "session", "key", "line"], kind="mergesort")
    frame["rank"] = frame.groupby(["q", "session"]).cumcount() + 1
    return frame[["qid", "session", "rank", "item"]].reset_index(drop=True)
