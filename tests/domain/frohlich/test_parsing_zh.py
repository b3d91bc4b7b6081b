"""The parsers read Mandarin answers (docs/rules.md "Parsing messy answers"; SPEC §8).

Every case asserts the value a participant's Mandarin answer supports, or Undecided where the
text does not settle it: a wrong value is far worse than a missing one.
"""

from __future__ import annotations

import pytest

from maai.domain.frohlich.amounts import parse_amount
from maai.domain.frohlich.parsing import (
    VOTE_PROPOSAL_PHRASE,
    VOTE_PROPOSAL_PHRASES,
    Invalid,
    Parsed,
    Undecided,
    parse_ballot,
    parse_choice,
    parse_poll_answer,
    parse_ranking,
    parse_vote_proposal,
)
from maai.domain.frohlich.types import PrincipleChoice, Ranking
from tests.domain.frohlich.notation import choice_of, ranking_of


def _choice(value: str) -> Parsed[PrincipleChoice]:
    return Parsed(choice_of(value))


def _ranking(value: str) -> Parsed[Ranking]:
    return Parsed(ranking_of(value))


# ------------------------------------------------------------------------------ choices

CHOICES = [
    ("我选择（a）。", "a"),
    ("我选(b)。", "b"),
    ("我选择（c），底线为12000美元。", "c:12000"),
    ("我选（c），最低收入不低于1万2千美元。", "c:12000"),
    ("我选择（d），收入差距不超过一万五千美元。", "d:15000"),
    ("我的选择是(d)，范围为15,000美元。", "d:15000"),
    ("选择：（c）\n底线：13000美元", "c:13000"),
    ("我决定选(c)，底线定为1.3万美元。", "c:13000"),
    ("我选（c），底线两万美元。", "c:20000"),
    ("（c），底线13000美元。", "c:13000"),
    # Names of the principles as the templates write them.
    ("我选择最大化最低收入。", "a"),
    ("我选择最大化平均收入。", "b"),
    ("我选择在最低收入限制下最大化平均收入，底线为13000美元。", "c:13000"),
    ("我选择有底线约束的平均收入最大化，底线12000美元。", "c:12000"),
    ("我选择在收入范围限制下最大化平均收入，范围为16000美元。", "d:16000"),
    ("我选择范围约束，收入差距不超过17000美元。", "d:17000"),
    ("我选择在最低收入不低于13000美元的条件下最大化平均收入。", "c:13000"),
    # Negation, correction, other people's positions.
    ("我不选(a)，我选(b)。", "b"),
    ("我不选（a），我选（c），底线13000美元。", "c:13000"),
    ("不是(a)，而是(b)。", "b"),
    ("我选(a)。其实，我改选(c)，底线13000美元。", "c:13000"),
    ("我选(b)。不对，我改选(c)，底线为12000美元。", "c:12000"),
    ("我选(a)。我改变主意了，我选(d)，范围15000美元。", "d:15000"),
    ("张三选了(a)，但我选(d)，范围为16000美元。", "d:16000"),
    ("李四认为(a)最好，但我认为(b)更公平。", "b"),
    ("总的来说，(c)是最公平的选择，底线13000美元。", "c:13000"),  # 来说: "overall"
    ("我不会选(a)，我选(b)。", "b"),
    ("我还是选（c），底线13000美元。", "c:13000"),
    ("如果底线更高，我会选(a)。我的选择：(c)，底线13000美元。", "c:13000"),
    ("我选C，底线13000美元", "c:13000"),
]

UNDECIDED_CHOICES = [
    "我选(c)或(d)。",
    "（a）和（c）都有道理，我还在考虑。",
    "如果我选(c)呢？",
    "张三选了(a)。",
    "正如李四所说，(b)最有效率。",
    "我选（d），范围一万二。",  # 一万二: the last unit is left out
    "我选（c），底线大约13000美元。",
    "我选（c），底线13000美元左右。",
    "我选（c），底线在12000到14000美元之间。",
    "我选(a)，或者(d)。",
    "我选（c），底线13000美元。其实，我选（c）。",
    "我不会改选(a)。",
    "如果我选(c)呢？",
    "我选(b)好吗？",
    "我选(c)，底线12000美元，或者13000美元。",
    "大家都觉得(c)不错。",
]


@pytest.mark.parametrize(("text", "value"), CHOICES)
def test_mandarin_choices(text: str, value: str) -> None:
    assert parse_choice(text) == _choice(value)


@pytest.mark.parametrize("text", UNDECIDED_CHOICES)
def test_mandarin_choices_that_the_parser_cannot_settle(text: str) -> None:
    result = parse_choice(text)
    assert isinstance(result, Undecided), result


def test_a_mandarin_choice_without_its_amount_is_invalid() -> None:
    assert isinstance(parse_choice("我选择（c）。"), Invalid)
    assert isinstance(parse_choice("我选择在收入范围限制下最大化平均收入。"), Invalid)


def test_a_mandarin_refusal_is_invalid() -> None:
    for text in ("我弃权。", "我拒绝选择。", "哪个都不选。"):
        assert isinstance(parse_choice(text), Invalid), text


BALLOTS = [
    ("我投票给（c），底线为13000美元。", "c:13000"),
    ("我投(a)。", "a"),
    ("投票：（d），范围1.7万美元", "d:17000"),
    ("我投（c），底线1.2万美元。", "c:12000"),
    ("我把票投给(c)，底线13000美元。", "c:13000"),
    ("我选 (c)，最低收入限制为13000美元", "c:13000"),
    ("(d) 收入范围限制为17,000美元", "d:17000"),
    ("Alice说：“我投（a）”。但我投票给（c），底线13,000美元。", "c:13000"),
    ("> 张三：我投(a)\n我投(b)。", "b"),
]


@pytest.mark.parametrize(("text", "value"), BALLOTS)
def test_mandarin_ballots(text: str, value: str) -> None:
    assert parse_ballot(text) == _choice(value)


def test_a_mandarin_ballot_quoting_another_vote_only_is_undecided() -> None:
    result = parse_ballot("张三说：“我投（a），因为它保护最穷的人”。")
    assert isinstance(result, Undecided), result


# ------------------------------------------------------------------------------ rankings

RANKINGS = [
    (
        "1. （c）在最低收入限制下最大化平均收入\n"
        "2. （a）最大化最低收入\n"
        "3. （d）在收入范围限制下最大化平均收入\n"
        "4. （b）最大化平均收入\n"
        "确定程度：确定",
        "cadb/sure",
    ),
    (
        "1. 在最低收入限制下最大化平均收入\n"
        "2. 最大化最低收入\n"
        "3. 在收入范围限制下最大化平均收入\n"
        "4. 最大化平均收入\n"
        "确定性：非常确定",
        "cadb/very_sure",
    ),
    ("1、（c）\n2、（a）\n3、（d）\n4、（b）\n确定程度：不确定", "cadb/unsure"),
    ("一、（c）\n二、（a）\n三、（d）\n四、（b）\n确定程度：非常不确定", "cadb/very_unsure"),
    ("从最好到最差：（c）、（a）、（d）、（b）。\n确定程度：没有意见", "cadb/no_opinion"),
    ("从最差到最好：（b）、（d）、（a）、（c）。\n确定程度：无意见", "cadb/no_opinion"),
    ("从最差到最好：\n1. (b)\n2. (d)\n3. (a)\n4. (c)\n确定程度：确定", "cadb/sure"),
    ("第一：(c)\n第二：(a)\n第三：(d)\n最后：(b)\n确定程度：确定", "cadb/sure"),
    ("（c）第一，（a）第二，（d）第三，（b）第四。我很确定。", "cadb/very_sure"),
    ("首选(c)，然后是(a)，接着是(d)，最后是(b)。确定程度：确定", "cadb/sure"),
    ("排名：c > a > d > b\n我不确定。", "cadb/unsure"),
    ("排名：原则3 > 原则1 > 原则4 > 原则2\n确定程度：确定", "cadb/sure"),
    ("- 底线约束\n- 最低收入\n- 范围约束\n- 平均收入\n确定程度：确定", "cadb/sure"),
    ("1. (c)\n2. (a)\n3. (d)\n4. (b)\n我对这个排名非常确定。", "cadb/very_sure"),
    (
        "仔细考虑之后，我这样排列这些原则：\n1. (a) 最大化最低收入\n2. (b) 最大化平均收入\n"
        "3. (c) 在最低收入限制下最大化平均收入\n4. (d) 在收入范围限制下最大化平均收入\n\n"
        "确定程度：无意见",
        "abcd/no_opinion",
    ),
    ("我认为(c)最好，其次是(a)，然后是(d)，(b)最差。确定程度：确定", "cadb/sure"),
    ("排名第一的是(c)，第二是(a)，第三是(d)，第四是(b)。确定程度：确定", "cadb/sure"),
    ("第1名：(c)\n第2名：(a)\n第3名：(d)\n第4名：(b)\n确定性：确定", "cadb/sure"),
    ("在第一轮中我选择了(a)。排名：(c) > (a) > (d) > (b)。确定程度：确定", "cadb/sure"),
]

UNDECIDED_RANKINGS = [
    "(c) 和 (a) 并列第一，然后是 (d) 和 (b)。确定程度：确定",
    "倒序：(b)，(d)，(a)，(c)。确定程度：确定",
    "(a)，(b)，(c)，(d)\n确定程度：确定",
    "1. (c)\n2. (a)\n3. (d)\n4. (b)\n确定程度：确定\n确定程度：不确定",
    "1. (c)\n2. (a)\n3. (d)\n4. (b)\n我对此有七成把握。",  # a certainty the parser cannot read
    "（c）第一，（a）第二。确定程度：确定",
    "1. (c)\n2. (a)\n3. (d)\n4. (b)\n确定程度：确定\n我觉得(b)最好。",  # contradicts the list
    "1. (c)\n2. (a)\n3. (d)\n4. (b)\n确定程度：中等",
]


@pytest.mark.parametrize(("text", "value"), RANKINGS)
def test_mandarin_rankings(text: str, value: str) -> None:
    assert parse_ranking(text) == _ranking(value)


@pytest.mark.parametrize("text", UNDECIDED_RANKINGS)
def test_mandarin_rankings_that_the_parser_cannot_settle(text: str) -> None:
    result = parse_ranking(text)
    assert isinstance(result, Undecided), result


@pytest.mark.parametrize(
    ("line", "level"),
    [
        ("确定程度：非常不确定", "very_unsure"),
        ("确定程度：不确定", "unsure"),
        ("确定程度：无意见", "no_opinion"),
        ("确定程度：没有意见", "no_opinion"),
        ("确定程度：确定", "sure"),
        ("确定程度：非常确定", "very_sure"),
        ("确定性：不确定", "unsure"),
        ("确定性: 非常确定", "very_sure"),
        ("确定程度：确定，因为我思考了很久", "sure"),
        ("我非常不确定。", "very_unsure"),
        ("我不确定。", "unsure"),
        ("我很确定。", "very_sure"),
        ("我比较有信心。", "sure"),
    ],
)
def test_mandarin_certainty_words(line: str, level: str) -> None:
    # "不确定" holds "确定", and "非常不确定" holds both "非常确定"'s words: the longest wins.
    assert parse_ranking(f"1. (c)\n2. (a)\n3. (d)\n4. (b)\n{line}") == _ranking(f"cadb/{level}")


def test_sure_of_something_else_is_not_a_certainty() -> None:
    result = parse_ranking("1. (c)\n2. (a)\n3. (d)\n4. (b)\n我确定(c)是最公平的。")
    assert isinstance(result, Undecided), result


# ------------------------------------------------------------------------------ polls

POLLS = [
    ("是。", True),
    ("是的，我们已经讨论得很充分了。", True),
    ("好。", True),
    ("好的，我们投票吧。", True),
    ("同意。", True),
    ("我同意现在投票。", True),
    ("可以。", True),
    ("没问题。", True),
    ("回答：是", True),
    ("否。", False),
    ("不。", False),
    ("不，我们还没有达成共识。", False),
    ("不同意。", False),
    ("我不同意，还需要讨论底线。", False),
    ("还没有，我们需要更多讨论。", False),
    ("暂时不，先把范围讨论清楚。", False),
    ("回答：否", False),
    ("不要现在投票。", False),
    ("我觉得可以。", True),
    ("我赞成现在投票。", True),
    ("不行，还需要讨论。", False),
    ("可以投票了。", True),
    ("我支持现在投票。", True),
    ("我不支持现在投票。", False),
    ("我不同意现在投票。", False),
]

UNDECIDED_POLLS = [
    "好，但是我想再讨论一轮。",
    "我觉得还需要再讨论一下。",
    "如果大家都同意，我也同意。",
    "也许吧。",
    "我同意张三的看法，我们需要更多时间。",  # agreeing with a person, not to vote
    "好像还不行。",
    "可以再讨论一下吗？",
    "是的，不过我还没准备好。",
    "不知道。",
    "不，我同意。",
    "好像可以。",
    "不，我们现在投票吧。",
]


@pytest.mark.parametrize(("text", "value"), POLLS)
def test_mandarin_poll_answers(text: str, value: bool) -> None:
    assert parse_poll_answer(text) == Parsed(value)


@pytest.mark.parametrize("text", UNDECIDED_POLLS)
def test_mandarin_poll_answers_that_the_parser_cannot_settle(text: str) -> None:
    result = parse_poll_answer(text)
    assert isinstance(result, Undecided), result


# ------------------------------------------------------------------------------ proposals


def test_the_proposal_phrases_by_language() -> None:
    assert VOTE_PROPOSAL_PHRASES["en"] == VOTE_PROPOSAL_PHRASE == "I PROPOSE A VOTE"
    assert VOTE_PROPOSAL_PHRASES["zh"] == "我提议投票"
    assert set(VOTE_PROPOSAL_PHRASES) == {"en", "es", "zh"}


def test_the_mandarin_proposal_phrase() -> None:
    assert parse_vote_proposal("我认为我们已经接近共识。\n我提议投票")
    assert parse_vote_proposal("我认为我们已经接近共识。\n我提议投票。")
    assert parse_vote_proposal("我认为我们已经接近共识。\n**我提议投票！**")
    assert parse_vote_proposal("我认为我们已经接近共识。\n我 提议 投票")


def test_mandarin_proposals_that_do_not_count() -> None:
    for text in (
        "我认为我们已经接近共识，我提议投票",  # not on its own line
        "张三说：\n「我提议投票」\n但我还没准备好。",  # a quotation
        "张三说：\n“我提议投票”\n但我还没准备好。",
        "> 我提议投票\n我不同意。",  # a blockquote
        "我提议投票选(c)。",  # a longer line
        "也许我们应该投票了。",
    ):
        assert not parse_vote_proposal(text), text


# ------------------------------------------------------------------------------ amounts


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12000美元", 12000),
        ("1万2千", 12000),
        ("1万2千美元", 12000),
        ("一万二千", 12000),
        ("一万两千五百美元", 12500),
        ("1.2万", 12000),
        ("两万", 20000),
        ("12,000美元", 12000),
        ("１２，０００美元", 12000),
        ("底线为13,000美元。", 13000),
        ("十二万", 120000),
        ("一万二", None),  # the last unit is left out
        ("1万2", None),
        ("千万", None),  # a word ("by all means"), not a number
    ],
)
def test_mandarin_amounts(text: str, value: int | None) -> None:
    assert parse_amount(text) == value


def test_the_memory_limit_counts_each_chinese_character_as_a_word() -> None:
    from maai.domain.frohlich.parsing import count_words, truncate_words

    text = "我选择（c），因为它保障了最低收入。"
    assert count_words(text) == 14  # 我 选 择 c 因 为 它 保 障 了 最 低 收 入
    assert truncate_words(text, 5) == "我选择（c），因"
    assert count_words(truncate_words(text, 5)) == 5
    mixed = "Alice 说 (c) 最好"
    assert count_words(mixed) == 5


def test_the_memory_limit_counts_english_and_spanish_words_as_before() -> None:
    from maai.domain.frohlich.parsing import count_words, truncate_words

    for text in ["I choose (c) with  a floor of $12,000.", "Mi voto: (c) — 12.000 $", " a\nb\tc "]:
        assert count_words(text) == len(text.split())
        assert truncate_words(text, 2) == text[: text.index(text.split()[1]) + len(text.split()[1])]
