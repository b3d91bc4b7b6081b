"""Reading how certain a participant is of a ranking: one of five levels, in English, Spanish
and Mandarin (docs/frohlich.md §3 steps 1.1, 1.2, 1.4, 2.3)."""

from __future__ import annotations

import re
from typing import Literal

from maai.domain.frohlich.types import Certainty

_LEVELS: tuple[tuple[Certainty, str], ...] = (
    (
        Certainty.VERY_UNSURE,
        r"very\s+(?:unsure|uncertain)|extremely\s+unsure|completely\s+unsure|sehr\s+unsicher|"
        r"not\s+at\s+all\s+(?:sure|certain|confident)|"
        r"très\s+incertaine?|muy\s+insegur[oa]|no\s+estoy\s+(?:nada|para\s+nada)\s+segur[oa]|"
        r"(?:totalmente|completamente)\s+insegur[oa]|nada\s+segur[oa]|"
        r"非常不确定|很不确定|完全不确定|十分不确定|非常没有把握|完全没有把握|非常没有信心",
    ),
    (
        Certainty.VERY_SURE,
        r"very\s+(?:sure|certain|confident)|extremely\s+(?:sure|certain|confident)|"
        r"absolutely\s+(?:sure|certain)|completely\s+(?:sure|certain)|highly\s+(?:certain|confident)|"
        r"sehr\s+sicher|très\s+sûre?|muy\s+segur[oa]|"
        r"(?:totalmente|completamente|absolutamente)\s+segur[oa]|"
        r"非常确定|很确定|十分确定|完全确定|非常有把握|很有把握|非常有信心|很有信心|十分有信心",
    ),
    (
        Certainty.NO_OPINION,
        r"no\s+(?:strong\s+)?opinion|neutral|indifferent|keine\s+meinung|sans\s+opinion|"
        r"aucune\s+opinion|sin\s+opini[oó]n|ninguna\s+opini[oó]n|"
        r"no\s+tengo\s+(?:una\s+|ninguna\s+)?opini[oó]n(?:\s+formada)?|"
        r"没有意见|无意见|没意见|中立|无所谓",
    ),
    (
        Certainty.UNSURE,
        r"unsure|uncertain|"
        r"not\s+(?:very\s+|really\s+|entirely\s+|too\s+|that\s+)?(?:sure|certain|confident)|"
        r"unsicher|incertaine?|pas\s+sûre?|insegur[oa]|poco\s+segur[oa]|"
        r"no\s+estoy\s+(?:muy\s+|del\s+todo\s+|tan\s+)?segur[oa]|"
        r"(?:algo|un\s+poco|bastante)\s+insegur[oa]|"
        r"不太确定|不大确定|不确定|没有?把握|没有?信心|不太有信心",
    ),
    (
        Certainty.SURE,
        r"(?:fairly\s+|pretty\s+|quite\s+|reasonably\s+)?(?:sure|certain|confident)|sicher|sûre?|"
        r"(?:bastante\s+|razonablemente\s+)?segur[oa]|比较确定|确定|比较有把握|有把握|比较有信心|有信心",
    ),
)
_LEVEL = "|".join(f"(?P<{c.value}>{p})" for c, p in _LEVELS)
_LABELLED = re.compile(
    r"(?:\b(?:certainty|confidence|sicherheit|certitude|certeza|seguridad|confianza)|确定程度|确定性|"
    r"确信程度|把握程度|信心程度|确信度|确定度|信心)(?:\s+(?:level|rating))?"
    r"\"?\s*(?:is|es|:|=|-|–|—)\s*\"?(?:i\s+am\s+|i'm\s+|i\s+feel\s+|estoy\s+|我)?"
    r"(?:\d\s*(?:/\s*5)?\s*[-(]?\s*)?"
    # A level ends at a word's end; Chinese text may go straight on ("确定程度：确定因为...").
    rf"(?:{_LEVEL})(?![a-z\u00c0-\u024f])"
)
_SELF = re.compile(
    r"\b(?:i\s+am|i'm|i\s+feel|i\s+remain|feeling|ich\s+bin|je\s+suis|(?<!no\s)estoy|"
    r"(?<!no\s)me\s+siento|(?<!no\s)sigo)\s+"
    rf"(?:{_LEVEL})\b(?!\s+(?:that|whether|if|how|what|which|who|when|why|where)\b)"
    # "Estoy seguro de que ..." is sure of something else.
    r"(?!\s+(?:de\s+)?(?:que|si|c[oó]mo|cu[aá]l|qu[eé]|qui[eé]n)\b)"
)
# Mandarin: "我非常确定。", "我对这个排名不太确定"; the level must end the clause ("我确定(c)最好"
# is sure of something else).
_SELF_ZH = re.compile(
    r"我(?!们)(?:对[^,.;!?\n]{0,12}?)?(?:感到|觉得|是|还是|仍然|依然|也)?"
    rf"(?:{_LEVEL})(?=\s*(?:$|[,.;!?\n]|的\s*[.!\n]))"
)
# "No estoy muy seguro de esto": a Spanish negation before the self-statement.
_SELF_NEGATED = re.compile(
    r"\b(?:(?P<very_unsure>no\s+(?:estoy|me\s+siento)\s+(?:nada|para\s+nada)\s+segur[oa])\b"
    r"|\b(?P<unsure>no\s+(?:estoy|me\s+siento)\s+(?:muy\s+|del\s+todo\s+|tan\s+)?segur[oa])\b)"
    r"(?!\s+(?:de\s+)?(?:que|si|c[oó]mo|cu[aá]l|qu[eé]|qui[eé]n)\b)"
)
_STANDALONE = re.compile(rf"(?:^|[.!?]\s+)[\s\-•(\[]*(?:{_LEVEL})[\s.!)\]]*$", re.MULTILINE)
_PARENTHESIZED = re.compile(rf"\((?:{_LEVEL})\)")


def read_certainty(clean: str) -> Certainty | None | Literal["conflict"]:
    """The single certainty stated; None if none; "conflict" if several differ."""
    for sources in ((_LABELLED,), (_SELF, _SELF_NEGATED, _SELF_ZH, _STANDALONE, _PARENTHESIZED)):
        found = {
            Certainty(name)
            for regex in sources
            for m in regex.finditer(clean)
            for name, value in m.groupdict().items()
            if value is not None
        }
        if len(found) > 1:
            return "conflict"
        if found:
            return found.pop()
    return None
