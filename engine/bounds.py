"""What a JSON document from outside may be: how deep it nests, and what a time in it may be.

The same bounds hold for what the page is sent (a control's body) and what
``willughby import`` reads (an exported game), so a document refused live
is refused in a file too, and neither can make the referee fail deeper in
(a nesting bomb exhausting Python's recursion, a time no calendar can
show).

>>> loads_bounded('{"a": [1, 2]}')
{'a': [1, 2]}
>>> loads_bounded("[" * 100 + "]" * 100)
Traceback (most recent call last):
...
ValueError: the document nests deeper than 32 levels
>>> is_time(1_733_000_000.5), is_time(1e300), is_time(float("nan")), is_time(True)
(True, False, False, False)
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_ENTRY_BYTES", "MAX_FILE_BYTES", "EARLIEST", "LATEST", "loads_bounded",
           "depth_problem", "is_time"]

#: the deepest a document may nest (a game's export nests about eight levels)
MAX_DEPTH = 32

#: the most one thing sent may weigh as JSON: a control's body, an imported log entry
#: (a board document is a few hundred bytes; a reading with its confidences a few kilobytes)
MAX_ENTRY_BYTES = 256 * 1024

#: the most a file read whole may weigh (an exported game of a long evening is a few megabytes)
MAX_FILE_BYTES = 64 * 1024 * 1024

#: times are seconds since 1970-01-01 UTC, up to the end of the year 9999 (what a calendar shows)
EARLIEST = 0.0
LATEST = 253_402_300_799.0


def depth_problem(value: Any, most: int = MAX_DEPTH) -> str | None:
    """Why *value* (parsed JSON) nests too deep, or None (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > most:
            return f"the document nests deeper than {most} levels"
        stack.extend((child, depth + 1) for child in children)
    return None


def loads_bounded(text: str | bytes, most: int = MAX_DEPTH) -> Any:
    """``json.loads`` of *text*, refusing (``ValueError``) a document nested deeper than *most*."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"the document nests deeper than {most} levels") from None
    problem = depth_problem(value, most)
    if problem:
        raise ValueError(problem)
    return value


def is_time(value: Any) -> bool:
    """Whether *value* is a time as kept: a number of seconds from 1970 to the end of 9999."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and EARLIEST <= value <= LATEST)
