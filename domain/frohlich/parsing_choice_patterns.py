"""The words the choice and ballot parser looks for (``parsing_choice``): decision phrases,
negations, refusals, corrections, other people's positions, amount context and quotation marks,
in English, Spanish and Mandarin. Tables only: the reading is in ``parsing_choice`` and
``parsing_choice_amount``."""

from __future__ import annotations

import re

DECISION = re.compile(
    r"(?:\bi\s+(?:would\s+|will\s+|hereby\s+|now\s+|therefore\s+|still\s+)?"
    r"(?:choose|chose|pick|select|vote\s+for|vote|go\s+with|opt\s+for|support|cast\s+my\s+"
    r"(?:vote|ballot)\s+for)|\bi(?:'m|\s+am)\s+(?:choosing|picking|selecting|voting\s+for|"
    r"going\s+with|opting\s+for)|\bi'll\s+(?:choose|go\s+with|pick|take|vote\s+for)|"
    r"\bmy\s+(?:final\s+|secret\s+)?(?:choice|vote|ballot|selection|decision|pick|answer)"
    r"(?:\s+is)?|\b(?:final\s+)?(?:choice|vote|ballot|selection|decision|answer|principle)\"?\s*[:=]|"
    # A heading that names the decision, the decision on the lines below ("**Vote**\n(c) ...").
    r"(?m:^[ \t]*(?:my\s+)?(?:final\s+|secret\s+)?(?:choice|vote|ballot|selection|decision|"
    r"answer)[ \t]*(?=\n))|"
    r"\b(?:yo\s+)?(?:elijo|escojo|selecciono|eleg[ií]|escog[ií]|elegir[eé]|escoger[eé]|"
    r"elegir[ií]a|escoger[ií]a|voto(?:\s+por)?|votar[eé]\s+por|votar[ií]a\s+por|vot[eé]\s+por|"
    r"me\s+quedo\s+con|me\s+decanto\s+por|me\s+inclino\s+por|opto\s+por|apoyo|"
    r"voy\s+a\s+(?:votar\s+por|elegir|escoger))\b|"
    r"\bmi\s+(?:voto|elecci[oó]n|decisi[oó]n|respuesta|papeleta)(?:\s+(?:final|secreto|secreta))?"
    r"(?:\s+es)?|"
    r"\b(?:voto|elecci[oó]n|decisi[oó]n|respuesta|papeleta|principio)(?:\s+final)?\"?\s*[:=]|"
    r"(?:选择|投票|决定|答案|回答|选票|最终选择)\s*[:=]|"
    r"改(?:选择?|投(?:票给|给)?)(?:为|成)?|(?:我)?把(?:我的)?(?:这一)?票投给|我的(?:一)?票投?给|"
    r"我(?:的)?(?:最终)?(?:会|要|想|将|决定|还是|仍然|依然|就|也)?"
    r"(?:投票给|投给|选择|投票|决定|选|投|支持)(?:的是|是)?|"
    r"\bich\s+wähle|\bmeine\s+wahl|\bje\s+choisis|\bmon\s+choix|\bje\s+vote\s+pour)"
)
NEGATION = re.compile(
    r"\b(?:not|never|rather\s+than|instead\s+of|over|unlike|against|reject\w*|avoid\w*|than|"
    r"except|don't|won't|wouldn't|nor)\s*$"
    # Spanish: "no elijo (a)", "en lugar de (b)", "más que (d)", "ni (a)".
    r"|\b(?:(?:yo\s+)?no\s+(?:elijo|escojo|elegir[eé]|eleg[ií]|elegir[ií]a|escoger[ií]a|"
    r"voto(?:\s+por)?|votar[eé]\s+por|votar[ií]a\s+por|apoyo|prefiero|quiero|me\s+quedo\s+con|"
    r"opto\s+por)|nunca|jam[aá]s|en\s+lugar\s+de|"
    r"en\s+vez\s+de|m[aá]s\s+que|antes\s+que|a\s+diferencia\s+de|contra|rechaz\w*|"
    r"excepto|salvo|menos|ni|sin)\s*$"
    # Mandarin: "我不选(a)", "而不是(b)", "反对(d)".
    r"|(?:(?:不|没有?|别)(?:会|想|要|打算|再)?改?(?:选择?|投(?:票给|给)?|支持|考虑)|不是|而非|"
    r"反对|拒绝|排除|除了)\s*$"
)
REFUSAL = re.compile(
    r"\b(?:i\s+(?:refuse|decline)|i\s+(?:will\s+not|won't|cannot|can't|do\s+not|don't)\s+"
    r"(?:choose|pick|select|vote|make\s+a\s+choice|take\s+part|participate)|i\s+abstain|"
    r"abstain\w*|none\s+of\s+(?:the|these)|no\s+principle|"
    r"me\s+(?:abstengo|niego)|no\s+(?:elijo|escojo|voto\s+por)\s+ninguno|ninguno\s+de\s+(?:los|"
    r"estos|ellos)|ning[uú]n\s+principio|no\s+(?:voy\s+a\s+)?(?:votar|elegir))\b"
    r"|弃权|我拒绝|都不选|一个都不选|哪个都不选|不投票|不做选择|不选择任何"
)
NOT_AMOUNT_BEFORE = re.compile(
    r"\b(?:distribution|dist\.?|round|principle|option|class|step|phase|rank|number|no\.|"
    r"distribuci[oó]n|ronda|principio|opci[oó]n|clase|paso|fase|puesto|lugar|n[uú]mero|"
    r"n\.?º)\s*#?\s*$|(?:分配|方案|第|原则|选项|等级|阶段)\s*#?\s*$"
)
# Words that take back what came before: the decision after the last of them is the answer.
CORRECTION = re.compile(
    r"\b(?:actually|on\s+(?:second|further)\s+thought|wait(?=\s*[,.!:;\u2014\u2013-])|"
    r"correction|scratch\s+that|let\s+me\s+(?:correct|revise|reconsider|change)|"
    r"i\s+(?:change|changed|have\s+changed|revise|am\s+changing)\s+my\s+"
    r"(?:mind|choice|vote|answer|decision|ballot)|changing\s+my\s+(?:mind|choice|vote|answer)|"
    r"(?:up)?on\s+reflection|having\s+reconsidered|after\s+reconsidering|"
    r"i\s+take\s+(?:that|it)\s+back|"
    r"final\s+(?:answer|choice|vote|ballot|decision|selection)|"
    r"pens[aá]ndolo\s+(?:bien|mejor)|mejor\s+dicho|en\s+realidad|(?:me\s+)?corrijo|rectifico|"
    r"cambio\s+(?:de\s+)?(?:opini[oó]n|idea)|he\s+cambiado\s+de\s+(?:opini[oó]n|idea)|"
    r"cambio\s+mi\s+(?:voto|elecci[oó]n|respuesta|decisi[oó]n)|espera(?=\s*[,.!:;\u2014\u2013-])|"
    r"mi\s+(?:respuesta|elecci[oó]n|decisi[oó]n|voto)\s+final)\b"
    r"|\bno\s*[\u2014\u2013-]+|其实|不对|更正|改为|改成|改选|改投|最终|再想想|重新考虑|"
    r"改变(?:了)?主意|改主意|说错了|纠正|算了"
)
# "Bob prefers (b)", "as Dana said, (b) ...": a principle another participant stands for.
ATTRIBUTED = re.compile(
    r"\b(?!(?:i|i'd|i'm|i'll|me|my)\b)[a-z]+\s+(?:said|says|argued|argues|wrote|writes|"
    r"proposed|proposes|suggested|suggests|prefers|preferred|wants|wanted|favou?rs|favou?red|"
    r"supports|supported|voted|votes|backs|backed|likes|liked|chose|chooses|thinks|believes)\b"
    # Spanish: "Ana prefiere (a)", "como dijo Luis, (b)", "según Ana, (c)".
    r"|\b(?!(?:yo|me|mi)\b)[^\W\d_]+\s+(?:dijo|dice|dec[ií]a|propuso|propone|sugiri[oó]|sugiere|"
    r"prefiere|prefer[ií]a|prefiri[oó]|quiere|quer[ií]a|apoya|apoy[oó]|vota|vot[oó]|eligi[oó]|"
    r"elige|escogi[oó]|escoge|defiende|defendi[oó]|piensa|cree|opina|argumenta|argument[oó]|"
    r"favorece|se\s+inclina)\b|\bseg[uú]n\s+(?!(?:mi|mis|yo|nuestr[oa]s?)\b)[^\W\d_]+"
)
OWN_AFTER = re.compile(r"\b(?:pero|aunque|sin\s+embargo|mientras\s+que)\b|但是?|不过|可是")
# Mandarin: "张三选了(a)", "正如李四所说, (b)": a verb of saying or choosing whose subject is
# not "我" (I).
ATTRIBUTED_ZH = re.compile(
    r"(?<![来如])说(?![明服])|认为|觉得|提议|建议|主张|选了|选择了|投了|投给了|支持|喜欢|倾向于?|偏好|赞成|想要|提出"
)
# Amount words the parser does not read (Spanish number words, Chinese numerals before a
# currency): an amount may be there, so its absence is not decided.
UNREAD_AMOUNT = re.compile(
    r"\b(?:mil|cien|ciento|doce|trece|catorce|quince|diecis[eé]is|diecisiete|dieciocho|"
    r"diecinueve|veinte|veinti\w+|treinta|cuarenta|cincuenta|millones?)\b"
    r"|[零〇一二两三四五六七八九十百千万]\s*(?:美元|元|块)|[0-9]\s*万"
)
# "about $13,000", "$13,000 or so": not a whole-dollar amount the participant settled on.
APPROXIMATE_BEFORE = re.compile(
    r"\b(?:about|around|roughly|approximately|approx\.?|circa|something\s+like|maybe|perhaps|"
    r"probably|aproximadamente|aprox\.?|unos|alrededor\s+de|cerca\s+de|m[aá]s\s+o\s+menos|"
    r"quiz[aá]s|tal\s+vez)\s*(?:us)?\$?\s*$|~\s*\$?\s*$|(?:大约|大概|约|差不多|左右)\s*\$?\s*$"
)
APPROXIMATE_AFTER = re.compile(
    r"\s*(?:or\s+so|or\s+more|or\s+less|or\s+thereabouts|or\s+(?:maybe|perhaps|possibly)|"
    r"-?ish\b|give\s+or\s+take|more\s+or\s+less|or\s+(?:a\s+bit|slightly|somewhat)|"
    r"or\s+(?:higher|lower)|plus\s+or\s+minus|"
    r"o\s+(?:m[aá]s|menos|as[ií]|quiz[aá]s|tal\s+vez)\b|m[aá]s\s+o\s+menos|aproximadamente|"
    r"左右|上下|或(?:者)?(?:更多|更少|更高|更低)|多一点|少一点)"
)
FLOOR_WORDS = r"\b(?:floor|minimum|lowest|piso|suelo|m[ií]nim[oa])\b|底线|最低|下限|保底"
RANGE_WORDS = r"\b(?:range|gap|rango|diferencia|brecha)\b|范围|差距|极差|区间"


# An answer without a word of choosing is a choice only when it is little more than the
# principle (and its amount): "(c), $12,000 floor", "Maximizing the average income.", not
# "Maximizing the floor income protects the poorest, which matters to everyone."
BARE_WORDS = 6
CHOOSING = re.compile(
    r"\b(?:choos\w*|chose\w*|pick\w*|vot\w*|select\w*|go(?:ing)?\s+(?:with|for)|opt\w*|"
    r"prefer\w*|support\w*|favou?r\w*|back\w*|decid\w*|decision|ballot|answer|"
    r"elij\w*|escoj\w*|eleg\w*|escog\w*|prefier\w*|apoy\w*|decid\w*|decisi[oó]n|respuesta|"
    r"papeleta|choisi\w*|choix|w[äa]hl\w*)\b|选|投|支持|偏好|倾向|决定|答案"
)


SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n|$")
ASKING_BEFORE = re.compile(
    r"\b(?:what\s+if|what\s+about|and\s+if|if|should|shall|could|can|may|do\s+you\s+think|"
    r"qu[eé]\s+pasa\s+si|qu[eé]\s+tal\s+si|y\s+si|si|deber[ií]a|puedo|podr[ií]a|"
    r"les\s+parece)\b|¿|如果|假如|要是|是否|能否|应不应该|该不该"
)


# Spanish writes "12.000" for twelve thousand (and "12,5" for twelve and a half): in an answer
# written in Spanish, a bare dot-grouped figure is read as thousands. In English, or where the
# language is not clear, it stays unread (Undecided): "12.000" could be twelve.
SPANISH_WORDS = re.compile(
    r"\b(?:el|la|los|las|un|una|con|de|del|que|por|para|es|mi|y|elijo|escojo|voto|piso|rango|"
    r"m[ií]nimo|promedio|d[oó]lares)\b"
)
ENGLISH_WORDS = re.compile(
    r"\b(?:the|with|of|and|an|is|my|i|floor|range|choose|vote|dollars|at|for|to)\b"
)


# Quotation marks, opening → closing; a quotation is another voice, not the answer.
QUOTE_PAIRS = {'"': '"', "\u201c": "\u201d", "\u201e": "\u201c", "\u00ab": "\u00bb",
                "\u300c": "\u300d", "\u300e": "\u300f"}  # fmt: skip
QUOTATION = re.compile(
    "|".join(
        f"{re.escape(o)}[^{re.escape(o + c)}]{{0,2000}}{re.escape(c)}"
        for o, c in QUOTE_PAIRS.items()
    )
)


# A quotation right after a decision word is the decision itself ({"vote": "(c) ..."}).
DECIDES_QUOTED = (
    r"(?:\b(?:choose|chose|pick|select|vote\s+for|vote|ballot|choice|answer|decision|principle|"
    r"elijo|escojo|voto(?:\s+por)?|elecci[oó]n|respuesta|decisi[oó]n|principio)"
    r"|我(?:的)?(?:选择|投票给|投给|投|选))[\W_]{0,4}$"
)
