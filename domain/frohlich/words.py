"""Words as the memory limit counts them (docs/frohlich.md §5)."""

from __future__ import annotations

import re

# Chinese and Japanese are written without spaces between words: each of their characters
# counts as a word (a Mandarin word is one to two characters, so a limit of N words allows a
# little less text than N English words), and their full-width punctuation separates words.
_WIDE_WORD_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WIDE_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"
_WORD = re.compile(f"[{_WIDE_WORD_CHARS}]|[^\\s{_WIDE_WORD_CHARS}{_WIDE_PUNCTUATION}]+")


_WIDE = re.compile(f"[{_WIDE_WORD_CHARS}{_WIDE_PUNCTUATION}]")


def count_words(text: str) -> int:
    """Words as the memory limit counts them: runs of characters between spaces, and each
    Chinese or Japanese character on its own (docs/frohlich.md §5)."""
    if _WIDE.search(text) is None:
        return len(text.split())  # the same count, without a match object per word
    return len(_WORD.findall(text))


def truncate_words(text: str, limit: int) -> str:
    """The first ``limit`` words of ``text`` (as ``count_words`` counts them), with the
    original spacing between them."""
    if limit <= 0:
        return ""
    for i, m in enumerate(_WORD.finditer(text), 1):
        if i == limit:
            return text[: m.end()]
    return text
