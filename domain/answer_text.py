"""What every parser does to an answer before reading it (docs/rules.md "Reading bounds").

A parser reads a normalised copy of the answer; the answer itself is recorded whole. The
copy has its whitespace runs collapsed (a run of spaces inside a line is one space, an
indentation keeps at most 16 columns, blank lines at most one), so that no pattern can
spend time on padding; an answer longer than ``MAX_READ_CHARS`` after that is not read at
all (Undecided: the utility agent reads it), because a decision or a correction may sit
anywhere in it and reading a part could give a wrong value.

JSON is read with bounds too: at most ``MAX_JSON_DEPTH`` levels of nesting, integers of at
most ``MAX_JSON_DIGITS`` digits, and no key given twice with different values (which of the
two was meant cannot be told).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_READ_CHARS = 32_000
MAX_INDENT = 16
MAX_JSON_DEPTH = 64
MAX_JSON_DIGITS = 50

# Every whitespace character but the line break (str.isspace's set, less "\n").
_SPACE = "\t\x0b\x0c\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_LINE_START_RUN = re.compile(rf"(?m)^[{_SPACE}]++")
_INNER_RUN = re.compile(rf"(?<=[^\n{_SPACE}])[{_SPACE}]++")
# (Each pattern starts a match only where a run starts: a search from inside a run would
# rescan it, quadratic in its length.)
_TRAILING = re.compile(rf"(?m)(?<![{_SPACE}])[{_SPACE}]++$")
_BLANK_LINES = re.compile(r"\n{3,}")


def normalise_whitespace(text: str) -> str:
    """``text`` with its whitespace runs bounded; anything that is not whitespace kept."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _TRAILING.sub("", text)
    text = _LINE_START_RUN.sub(lambda m: m.group(0).expandtabs(4)[:MAX_INDENT], text)
    text = _INNER_RUN.sub(" ", text)
    return _BLANK_LINES.sub("\n\n", text)


def too_long(normalised: str) -> bool:
    return len(normalised) > MAX_READ_CHARS


TOO_LONG = f"the answer is longer than {MAX_READ_CHARS:,} characters, the most a parser reads"


class JsonProblem(ValueError):
    """A JSON text beyond the bounds (``ambiguous``: a key given twice)."""

    def __init__(self, reason: str, *, ambiguous: bool = False) -> None:
        super().__init__(reason)
        self.ambiguous = ambiguous


_FENCE_TAG = re.compile(r"[A-Za-z0-9_-]*[ \t]*\r?\n?")
_BRACKETS = re.compile(r"[\[\]{}]")
_DEPTH = {"[": 1, "{": 1, "]": -1, "}": -1}


def _depth(text: str) -> int:
    """The deepest nesting of brackets (those inside strings counted too: never less)."""
    steps = (_DEPTH[b] for b in _BRACKETS.findall(text))
    return max(accumulate(steps, initial=0))


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_JSON_DIGITS:
        raise JsonProblem(f"a number in the JSON has more than {MAX_JSON_DIGITS} digits")
    return int(digits)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found and found[key] != value:
            raise JsonProblem(
                f"the key {key!r} is given twice with different values", ambiguous=True
            )
        found[key] = value
    return found


def loads(text: str) -> Any:
    """``json.loads`` within the bounds above; ``json.JSONDecodeError`` for what is not JSON,
    ``JsonProblem`` for JSON beyond them."""
    if _depth(text) > MAX_JSON_DEPTH:
        raise JsonProblem(f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep")
    return json.loads(text, parse_int=_integer, object_pairs_hook=_object)


def json_candidates(text: str) -> list[str]:
    """Where a JSON object may be: the whole text, each code fence, the span from the first
    ``{`` to the last ``}``."""
    stripped = text.strip()
    candidates = [stripped, *_fenced(stripped)]
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    return candidates


def _fenced(text: str) -> list[str]:
    """The insides of the code fences (```json ... ```), paired in order; split rather than
    matched, so that unclosed fences cost no rescans."""
    parts = text.split("```")
    insides = parts[1 : len(parts) - 1 : 2]
    return [inside[_FENCE_TAG.match(inside).end() :].strip() for inside in insides]  # type: ignore[union-attr]


def find_json_object(text: str) -> dict[str, Any] | JsonProblem | None:
    """The first candidate that is a JSON object; the problem when the first candidate that
    parses is beyond the bounds; None when there is no object."""
    for candidate in json_candidates(text):
        try:
            data = loads(candidate)
        except JsonProblem as problem:
            return problem
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            return data
    return None
