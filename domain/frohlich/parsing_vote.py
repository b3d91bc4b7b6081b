"""Reading Phase-2 statements and polls: the vote-proposal line of each language, and yes or no
to "hold the vote now?" (docs/frohlich.md §5 "Parsing")."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from maai.domain.answer_text import TOO_LONG, normalise_whitespace, too_long
from maai.domain.frohlich.parsing_text import Parsed, Undecided, clean_text

# The participants are told to end a statement with this line to propose a vote.
VOTE_PROPOSAL_PHRASE = "I PROPOSE A VOTE"
# The same line in each language, by language code; any of them proposes a vote (a
# participant may speak another language than the group).
VOTE_PROPOSAL_PHRASES: Mapping[str, str] = MappingProxyType(
    {"en": VOTE_PROPOSAL_PHRASE, "es": "PROPONGO UNA VOTACIÓN", "zh": "我提议投票"}
)

_QUOTE_MARKS = "\"'\u201c\u201d\u201e\u2018\u2019\u00ab\u00bb\u300c\u300d\u300e\u300f\u2039\u203a"


def _proposal_words(line: str) -> str:
    """A line as words only: no case, accents, markdown or punctuation; Chinese without spaces
    ("我 提议 投票" reads as "我提议投票")."""
    line = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", line))
    line = "".join(c for c in line if not unicodedata.combining(c))
    words = " ".join(re.sub(r"[^\w\s]|_", " ", line).lower().split())
    return re.sub(r"(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])", "", words)


_PROPOSAL_LINES = frozenset(_proposal_words(p) for p in VOTE_PROPOSAL_PHRASES.values())


def parse_vote_proposal(statement: str) -> bool:
    """True when a line of the statement reads ``I PROPOSE A VOTE`` or the same phrase in
    another language (``VOTE_PROPOSAL_PHRASES``: "PROPONGO UNA VOTACIÓN", "我提议投票"), ignoring
    case, accents, markdown and punctuation. Nothing else counts: the rule is told to the
    participants. A quoted line (in quotation marks, inside a quotation opened on an earlier
    line, or a "> " blockquote) repeats someone else's words and is not a proposal."""
    lines = normalise_whitespace(statement).splitlines()
    # The last line holding a closing quotation mark (found once: a statement of many
    # proposal lines stays linear).
    closing = max(
        (i for i, line in enumerate(lines) if any(m in line for m in '"\u201d\u00bb')), default=-1
    )
    open_quote = False
    for i, line in enumerate(lines):
        if _proposal_words(line) in _PROPOSAL_LINES:
            quoted = (
                re.match(r"\s*>", line) is not None
                or any(mark in line for mark in _QUOTE_MARKS)
                # Inside a quotation that an earlier line opened and a later line closes.
                or (open_quote and closing > i)
            )
            if not quoted:
                return True
        open_quote = _quote_open_after(line, open_quote)
    return False


def _quote_open_after(line: str, open_quote: bool) -> bool:
    """Whether a quotation is still open at the end of ``line`` (apostrophes aside)."""
    straight = line.count('"')
    curly = line.count("\u201c") + line.count("\u201e") + line.count("\u00ab")
    closing = line.count("\u201d") + line.count("\u00bb")
    if straight % 2:
        open_quote = not open_quote
    if curly > closing:
        open_quote = True
    elif closing > curly:
        open_quote = False
    return open_quote


_YES = {"yes", "yeah", "yep", "yup", "y", "aye", "sure", "ok", "okay", "agreed", "agree",
        "absolutely", "definitely", "certainly", "affirmative", "ready", "fine", "alright",
        "sí", "si", "oui", "ja", "是", "是的", "好", "好的", "同意", "可以", "да", "sim",
        "tak", "claro", "vale", "afirmativo", "venga", "perfecto", "赞成", "赞同"}  # fmt: skip
_NO = {"no", "nope", "nah", "n", "not", "negative", "disagree", "wait", "non", "nein", "不",
       "不是", "否", "不同意", "不行", "нет", "não", "nao", "nie", "negativo"}  # fmt: skip
# Words that, later in the same sentence, contradict the first answer ("Yes, but not yet").
_CLEAR_YES = {"yes", "yeah", "yep", "yup", "sí", "oui", "ja", "是", "是的"}
_CLEAR_NO = {"no", "nope", "nah", "not", "non", "nein", "不"}
_HEDGES = re.compile(
    r"\b(?:maybe|perhaps|possibly|unsure|undecided|depends|not\s+sure|don't\s+know|only\s+if|"
    r"if|unless|as\s+long\s+as|provided|vielleicht|peut-être|quizás|tal\s+vez|si\s+todos)\b"
    # Spanish "si" without an accent is "if" unless it stands alone ("Si, votemos").
    r"|\b(?:quiz[aá]|depende|a\s+lo\s+mejor|puede\s+ser|siempre\s+(?:y\s+cuando|que)|"
    r"a\s+menos\s+que|s[oó]lo\s+si|solamente\s+si|no\s+estoy\s+segur[oa]|no\s+lo\s+s[eé]|"
    r"no\s+s[eé](?=\s*(?:$|[,.;!?]))|si\s+(?=[^\W\d_])|no\s+hay\s+prisa)\b"
    r"|如果|除非|也许|可能|或许|说不定|不一定|不确定|看情况|只要|假如|要是|大概|不好说|不知道"
)
# A "but" after the answer takes part of it back ("Okay, I hear you, but I'd rather wait").
_CONTRAST = re.compile(
    r"\b(?:but|however|although|though|except|that\s+said|pero|aunque|sin\s+embargo|mais|"
    r"aber)\b|但是?|不过|可是|然而"
)
_CONTRAST_START = re.compile(
    r"(?:but|however|although|though|that\s+said|still|on\s+the\s+other\s+hand|pero|"
    r"sin\s+embargo|aunque|mais|aber)\b|但是?|不过|可是|然而"
)
# Wanting to go on talking, anywhere in an answer that began with a yes.
_WANTS_TO_WAIT = re.compile(
    r"(?<!no\sneed\sfor\s)(?<!no\sneed\sto\s)\b(?:keep\s+discussing|continue\s+(?:the\s+)?"
    r"discuss\w*|more\s+discussion|discuss\s+(?:a\s+bit\s+|a\s+little\s+|it\s+)?(?:more|further)|"
    r"not\s+(?:yet|ready)|rather\s+(?:wait|keep|continue|not)|hold\s+off|too\s+(?:early|soon)|"
    r"premature|seguir\s+discutiendo|todav[ií]a\s+no)\b|再讨论|还需要讨论|继续讨论"
    r"|\b(?:seguir\s+(?:hablando|deliberando|debatiendo)|m[aá]s\s+(?:discusi[oó]n|tiempo)|"
    r"otra\s+ronda|una\s+ronda\s+m[aá]s|(?:discutir|debatir|hablar)\s+m[aá]s|a[uú]n\s+no|"
    r"(?<!falta\s)(?<!que\s)esperar|demasiado\s+pronto|prematuro)\b"
    r"|多讨论|再等|还没准备好|太早|为时过早|还不是时候|再想想|再谈谈|再聊聊|更多时间|还需要时间"
)
_WANTS_TO_VOTE = re.compile(
    r"\b(?:let's\s+vote|let\s+us\s+vote|(?<!not\s)ready\s+to\s+vote|vote\s+now)\b"
    r"|\b(?:votemos|vamos\s+a\s+votar|votar\s+(?:ya|ahora)|(?<!no\s)(?:estoy|estamos)\s+"
    r"list[oa]s?\s+para\s+votar)\b|投票吧|(?<!不要)(?<!不想)(?<!别)(?<!不)(?<!支持)(?<!赞成)(?<!同意)(?<!赞同)现在就?投票|开始投票|"
    r"可以投票了"
)
# Spanish and Mandarin yes and no at the start of an answer (the Mandarin ones must end a
# clause where they are short words: "好" yes, but "好像..." is not).
_ZH_CLAUSE_END = r"(?=\s*(?:$|[,.;:!\u2014\u2013-]))"
_PHRASES_ES_ZH: tuple[tuple[bool, str], ...] = (
    (
        False,
        r"prefiero\s+(?:esperar|seguir|continuar)|mejor\s+esperemos|esperemos|en\s+desacuerdo|"
        r"(?:claro|por\s+supuesto|desde\s+luego)\s+que\s+no|de\s+ninguna\s+manera|"
        r"(?:yo\s+)?no\s+estoy\s+de\s+acuerdo|"
        r"(?:我)?(?:不同意|不赞成|不赞同|不支持|反对)|(?:我们?)?(?:暂时不|先不|现在不|再等等|等一等)|"
        r"(?:我)?(?:不要|不想|先别|别)(?:现在)?(?:就)?(?:投票|表决)|"
        rf"(?:不行|不要|否|不是|不好|不){_ZH_CLAUSE_END}",
    ),
    (
        True,
        r"(?:(?:estoy|estamos)\s+)?de\s+acuerdo(?=\s*(?:$|[,;:!.\u2014\u2013-]|en\s+votar|"
        r"con\s+(?:votar|la\s+votaci[oó]n)))|claro|por\s+supuesto|desde\s+luego|adelante|"
        r"no\s+hay\s+(?:ning[uú]n\s+)?(?:problema|inconveniente|objeci[oó]n)|"
        r"no\s+tengo\s+(?:ninguna\s+)?objeci[oó]n|por\s+qu[eé]\s+no|votemos|vamos\s+a\s+votar|"
        r"no\s+veo\s+(?:por\s+qu[eé]\s+no|(?:ning[uú]n\s+)?(?:problema|inconveniente))|"
        r"(?:ning[uú]n|sin)\s+problema|"
        r"(?:estoy|estamos)\s+list[oa]s?|est[aá]\s+bien|"
        r"(?:我)?(?:完全)?(?:同意|赞成)(?=\s*(?:$|[,.;:!\u2014\u2013-])|(?:现在)?(?:就)?(?:投票|表决))|"
        r"(?:我们?)?(?:现在)?(?:就)?(?:投票|表决)吧|当然可以|(?:我)?(?:可以|支持|赞同)(?:现在)?(?:就)?投票|"
        rf"(?:是的|是|好的|好吧|好|可以|行|没问题|没有问题|当然|对){_ZH_CLAUSE_END}",
    ),
)
# Words that contradict a first Mandarin answer later in the sentence.
_ZH_LATER_NO = re.compile("不同意|反对|还没|还不|不想|不要|不行|再等")
_ZH_LATER_YES = re.compile("(?<!不)同意|赞成|投票吧")
# Yes phrases that hold a "no" ("Sí, no hay problema"): not a contradiction.
_YES_WITH_NO = re.compile(
    r"\bno\s+hay\s+(?:ning[uú]n\s+)?(?:problema|inconveniente|objeci[oó]n)|"
    r"\bno\s+tengo\s+(?:ninguna\s+)?objeci[oó]n|\bpor\s+qu[eé]\s+no\b|"
    r"\bno\s+(?:hace\s+falta|hay\s+que)\s+esperar"
)
_PHRASES: tuple[tuple[bool, str], ...] = (
    (
        False,
        r"(?:absolutely|definitely|certainly|of\s+course)\s+not|not\s+at\s+all|"
        r"let's\s+not|let\s+us\s+not|todav[ií]a\s+no|a[uú]n\s+no|还没|还不",
    ),
    (
        True,
        r"no\s+(?:strong\s+)?objections?|no\s+need\s+to\s+wait|no\s+problem|not\s+a\s+problem|"
        r"why\s+not|not\s+(?:opposed|against\s+it)|of\s+course|de\s+acuerdo|let's\s+vote|"
        r"let\s+us\s+vote|i(?:'m|\s+am)\s+ready|i\s+agree(?=\s*(?:$|[,;:!.\u2014\u2013-]|"
        r"to\s+(?:vote|hold)|we\s+should\s+vote))",
    ),
    (
        False,
        r"not\s+(?:yet|now|ready)|i\s+(?:do\s+not|don't)\s+agree(?=\s*(?:$|[,;:!.\u2014\u2013-]))|"
        r"i\s+disagree(?=\s*(?:$|[,;:!.\u2014\u2013-]))|i(?:'m|\s+am)\s+not\s+ready|"
        r"we\s+should\s+wait|let's\s+wait",
    ),
)
_FILLER = re.compile(
    r"^(?:(?:well|hmm+|honestly|so|answer|my\s+answer\s+is|my\s+answer|i\s+say|i\s+think|"
    r"i'd\s+say|i\s+would\s+say|i\s+vote|i\s+will\s+say|"
    r"bueno|pues|mi\s+respuesta\s+es|mi\s+respuesta|respuesta|yo\s+digo|digo|creo\s+que|"
    r"dir[ií]a\s+que|opino\s+que|mmm+)\b[\s,:\-]*"
    r"|(?:嗯+|我觉得|我认为|我的回答是|我的答案是|回答是?|答案是?)[\s,:\-]*)+"
)


def parse_poll_answer(text: str) -> Parsed[bool] | Undecided:
    """Yes/no to "hold the vote now?"; hedged, mixed or taken-back answers are Undecided."""
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
    clean = clean_text(text).strip()
    labelled = re.search(
        r"(?:\b(?:answer|vote\s+now|hold\s+the\s+vote(?:\s+now)?|response|decision|respuesta|"
        r"decisi[oó]n)|回答|答案|答复)\s*[:=\-]\s*(.+)",
        clean,
    )
    body = labelled.group(1) if labelled else clean
    sentences = [
        s.strip() for s in re.findall(r"[^.!?\n]+[.!?]*", body.strip()) if re.search(r"[^\W_]", s)
    ]
    # A leading question ("Ready? Not quite.") is not the answer, unless it is one ("Why not?").
    while len(sentences) > 1 and sentences[0].endswith("?") and not _answer_phrase(sentences[0]):
        sentences.pop(0)
    if not sentences:
        return Undecided("the answer is neither yes nor no")
    sentence = _FILLER.sub("", sentences[0].rstrip(".!?").strip(" \"'*-¡¿"))
    if _HEDGES.search(sentence):
        return Undecided("the answer is hedged")
    answer, rest = _first_answer(sentence)
    if answer is None:
        return Undecided("the answer is neither yes nor no")
    words = set(re.findall(r"[^\W\d_]+", _YES_WITH_NO.sub(" ", rest) if answer else rest))
    if words & (_CLEAR_NO if answer else _CLEAR_YES):
        return Undecided("the answer says both yes and no")
    if (_ZH_LATER_NO if answer else _ZH_LATER_YES).search(rest):
        return Undecided("the answer says both yes and no")
    following = sentences[1] if len(sentences) > 1 else ""
    if _CONTRAST.search(rest) or _CONTRAST_START.match(following):
        return Undecided("the answer is taken back in part")
    if answer and _WANTS_TO_WAIT.search(body):
        return Undecided("the answer says yes but asks to go on discussing")
    if not answer and _WANTS_TO_VOTE.search(body):
        return Undecided("the answer says no but asks to vote")
    return Parsed(answer)


def _answer_phrase(sentence: str) -> bool:
    sentence = _FILLER.sub("", sentence.rstrip(".!?").strip(" \"'*-¡¿"))
    return any(re.match(pattern, sentence) for _, pattern in (*_PHRASES, *_PHRASES_ES_ZH))


def _first_answer(sentence: str) -> tuple[bool | None, str]:
    """The yes or no a sentence opens with, and what follows it."""
    for value, pattern in (*_PHRASES, *_PHRASES_ES_ZH):
        m = re.match(pattern, sentence)
        if m:
            return value, sentence[m.end() :]
    first = re.match(r"[^\W\d_]+", sentence)
    word = first.group(0) if first else ""
    answer = True if word in _YES else False if word in _NO else None
    return answer, sentence[first.end() :] if first else sentence
