"""What the participant prompts say in each language, written out here for the audits
(``protocol_reference``, ``leaks``): the lines they read back (a round's table, its outcome,
the balance, the memory, the step-1.2 explanation) as patterns. Kept apart from the domain's
templates and ``words.txt`` on purpose: an audit that read the prompts with the code that
wrote them would pass whenever that code is wrong (docs/frohlich.md, Languages)."""

from __future__ import annotations

import re
from dataclasses import dataclass

CLASSES = ("high", "medium_high", "medium", "medium_low", "low")


@dataclass(frozen=True)
class PickWords:
    """How a counterfactual row names the principles that pick it ("(c) with a floor
    constraint of $12,001 to $14,000"), as format strings."""

    money: str  # an amount: "{}" is its digits, grouped by ``thousands``
    thousands: str
    constrained: dict[str, str]  # "c"/"d": the pick, "{span}" its amounts
    closest: str  # "{pick}" where no distribution meets the constraint
    or_more: str  # "{amount}"
    up_to: str  # "{amount}"
    between: str  # "{low}", "{high}"

    def amount(self, value: int) -> str:
        return self.money.format(f"{value:,}".replace(",", self.thousands))

    def pick(self, letter: str, low: int | None, high: int | None, met: bool) -> str:
        """The words for one pick (``reference.Picked``)."""
        if low is None:
            return f"({letter})"
        if high is None:
            span = self.or_more.format(amount=self.amount(low))
        elif low <= 1:
            span = self.up_to.format(amount=self.amount(high))
        elif low == high:
            span = self.amount(low)
        else:
            span = self.between.format(low=self.amount(low), high=self.amount(high))
        text = self.constrained[letter].format(span=span)
        return text if met else self.closest.format(pick=text)


@dataclass(frozen=True)
class PromptWords:
    money: str  # a whole-dollar amount; one group, its digits and separators
    cents: str  # dollars and cents; two groups
    classes: tuple[str, ...]  # the class names, high to low, as sentences write them
    round_of: re.Pattern[str]  # "round N of M" of a Phase-1 choice prompt
    round_table: str  # the line before a Phase-1 round's table
    explanation_table: str  # the line before the step-1.2 table
    table_row: re.Pattern[str]  # a class row: its label and its amounts
    outcome: re.Pattern[str]  # round, distribution, class, income, payoff, balance
    counterfactual_row: re.Pattern[str]  # distribution, income, payoff
    balance_line: str  # "Bank balance: {dollars}.{cents}" as a format string
    balance: re.Pattern[str]  # a balance line: sign, dollars, cents
    balance_start: str  # the literal start of a balance line
    assigned: str  # in the one line that tells an agent its class, income and payoff
    name_line: re.Pattern[str]  # the preamble's first line: the agent's name
    memory_head: str
    empty_memory: str
    answer_end: str  # the line after the agent's answer in a memory-update task
    chooses: re.Pattern[str]  # (a)/(b) picks: letter, distribution
    interval: re.Pattern[str]  # (c)/(d) picks: letter, up-to, low, high, or-more, distribution
    average_row: re.Pattern[str]
    picks: PickWords

    def dollars(self, text: str) -> int:
        """A whole-dollar amount as written (``$12,000``, ``$12.000``, ``12,000美元``)."""
        found = re.search(self.money, text)
        digits = found.group(1) if found else text
        return int(re.sub(r"[,.]", "", digits))

    def class_of(self, name: str) -> str | None:
        """The config name (``medium_high``) of a class as a prompt names it."""
        folded = name.strip().lower()
        return CLASSES[self.classes.index(folded)] if folded in self.classes else None


def _row(money: str) -> re.Pattern[str]:
    return re.compile(rf"^\| ([^|*]+?) \| ({money}(?: \| {money})*) \|$", re.MULTILINE)


_EN_MONEY, _EN_CENTS = r"\$([\d,]+)", r"\$(\d+)\.(\d\d)"
_ES_MONEY, _ES_CENTS = r"\$([\d.]+)", r"\$(\d+),(\d\d)"
_ZH_MONEY, _ZH_CENTS = r"([\d,]+)美元", r"(\d+)\.(\d\d)美元"

WORDS: dict[str, PromptWords] = {
    "en": PromptWords(
        money=_EN_MONEY,
        cents=_EN_CENTS,
        classes=("high", "medium-high", "medium", "medium-low", "low"),
        round_of=re.compile(r"round (\d+) of (\d+)"),
        round_table="Income distributions for this round",
        explanation_table="Here are four income distributions",
        table_row=_row(r"\$[\d,]+"),
        outcome=re.compile(
            r"Result of round (\d+): [^\n]*? It selects Distribution (\d+)\b[^\n]*? assigned to "
            rf"the ([a-z-]+) class: your income is {_EN_MONEY} and your payoff is {_EN_CENTS}\. "
            rf"Your bank balance is now {_EN_CENTS}\."
        ),
        counterfactual_row=re.compile(
            rf"^\| Dist\. (\d+)(?: \(yours\))? \| {_EN_MONEY} \| {_EN_CENTS} \|", re.MULTILINE
        ),
        balance_line="Bank balance: ${dollars}.{cents:02d}\n",
        balance=re.compile(r"^Bank balance: (-?)\$([\d,]+)\.(\d\d)\s*$", re.MULTILINE),
        balance_start="Bank balance: ",
        assigned="assigned",
        name_line=re.compile(r"\AName: (.*)$", re.MULTILINE),
        memory_head="Memory:\n",
        empty_memory="(empty)",
        answer_end="\n--- End ---\n",
        chooses=re.compile(r"\(([ab])\) chooses Distribution (\d+)\."),
        interval=re.compile(
            r"^\s*- \(([cd])\) with a (?:floor|range) constraint of (?:up to \$([\d,]+)|"
            r"\$([\d,]+) to \$([\d,]+)|\$([\d,]+) or more)(?: \([^)]*\))?: Distribution (\d+)$",
            re.MULTILINE,
        ),
        average_row=re.compile(r"^\| \*\*Average\*\* \| (.*) \|$", re.MULTILINE),
        picks=PickWords(
            money="${}",
            thousands=",",
            constrained={
                "c": "(c) with a floor constraint of {span}",
                "d": "(d) with a range constraint of {span}",
            },
            closest="{pick} (no distribution meets it; the closest is chosen)",
            or_more="{amount} or more",
            up_to="up to {amount}",
            between="{low} to {high}",
        ),
    ),
    "es": PromptWords(
        money=_ES_MONEY,
        cents=_ES_CENTS,
        classes=("alta", "media-alta", "media", "media-baja", "baja"),
        round_of=re.compile(r"ronda (\d+) de (\d+)"),
        round_table="Distribuciones de ingreso de esta ronda",
        explanation_table="Aquí hay cuatro distribuciones de ingreso",
        table_row=_row(r"\$[\d.]+"),
        outcome=re.compile(
            r"Resultado de la ronda (\d+): [^\n]*? Ese principio selecciona la Distribución "
            r"(\d+)\b[^\n]*? Se te asignó a la clase ([a-z-]+): tu ingreso es "
            rf"{_ES_MONEY} y tu pago es {_ES_CENTS}\. Tu saldo bancario es ahora {_ES_CENTS}\."
        ),
        counterfactual_row=re.compile(
            rf"^\| Distr\. (\d+)(?: \(la tuya\))? \| {_ES_MONEY} \| {_ES_CENTS} \|", re.MULTILINE
        ),
        balance_line="Saldo bancario: ${dollars},{cents:02d}\n",
        balance=re.compile(r"^Saldo bancario: (-?)\$([\d.]+),(\d\d)\s*$", re.MULTILINE),
        balance_start="Saldo bancario: ",
        assigned="Se te asignó",
        name_line=re.compile(r"\ANombre: (.*)$", re.MULTILINE),
        memory_head="Memoria:\n",
        empty_memory="(vacía)",
        answer_end="\n--- Fin ---\n",
        chooses=re.compile(r"\(([ab])\) elige la Distribución (\d+)\."),
        interval=re.compile(
            r"^\s*- \(([cd])\) con (?:un mínimo garantizado|un límite al rango) de "
            r"(?:hasta \$([\d.]+)|\$([\d.]+) a \$([\d.]+)|\$([\d.]+) o más)(?: \([^)]*\))?: "
            r"Distribución (\d+)$",
            re.MULTILINE,
        ),
        average_row=re.compile(r"^\| \*\*Promedio\*\* \| (.*) \|$", re.MULTILINE),
        picks=PickWords(
            money="${}",
            thousands=".",
            constrained={
                "c": "(c) con un mínimo garantizado de {span}",
                "d": "(d) con un límite al rango de {span}",
            },
            closest="{pick} (ninguna distribución lo cumple; se elige la más cercana)",
            or_more="{amount} o más",
            up_to="hasta {amount}",
            between="{low} a {high}",
        ),
    ),
    "zh": PromptWords(
        money=_ZH_MONEY,
        cents=_ZH_CENTS,
        classes=("高收入", "中高收入", "中等收入", "中低收入", "低收入"),
        round_of=re.compile(r"第 (\d+) 轮，共 (\d+) 轮"),
        round_table="本轮的收入分配",
        explanation_table="下面是四种收入分配",
        table_row=_row(r"[\d,]+美元"),
        outcome=re.compile(
            r"第 (\d+) 轮的结果：[^\n]*?它选出的是分配 (\d+)[^\n]*?你被分配到(\S+?)阶层："
            rf"你的收入是 {_ZH_MONEY}，你的报酬是 {_ZH_CENTS}。你现在的银行余额是 {_ZH_CENTS}。"
        ),
        counterfactual_row=re.compile(
            rf"^\| 分配 (\d+)(?:（你的）)? \| {_ZH_MONEY} \| {_ZH_CENTS} \|", re.MULTILINE
        ),
        balance_line="银行余额：{dollars}.{cents:02d}美元\n",
        balance=re.compile(r"^银行余额：(-?)([\d,]+)\.(\d\d)美元\s*$", re.MULTILINE),
        balance_start="银行余额：",
        assigned="你被分配到",
        name_line=re.compile(r"\A姓名：(.*)$", re.MULTILINE),
        memory_head="记忆：\n",
        empty_memory="（空）",
        answer_end="\n--- 结束 ---\n",
        chooses=re.compile(r"\(([ab])\) 选择分配 (\d+)。"),
        interval=re.compile(
            r"^\s*- \(([cd])\) (?:最低收入|收入范围)限制为(?:不超过([\d,]+)美元|"
            r"([\d,]+)美元至([\d,]+)美元|([\d,]+)美元或以上)(?:（[^）]*）)?：分配 (\d+)$",
            re.MULTILINE,
        ),
        average_row=re.compile(r"^\| \*\*平均收入\*\* \| (.*) \|$", re.MULTILINE),
        picks=PickWords(
            money="{}美元",
            thousands=",",
            constrained={"c": "(c) 最低收入限制为{span}", "d": "(d) 收入范围限制为{span}"},
            closest="{pick}（没有分配满足该限制；选择最接近的分配）",
            or_more="{amount}或以上",
            up_to="不超过{amount}",
            between="{low}至{high}",
        ),
    ),
}


def words_for(language: str) -> PromptWords:
    return WORDS[language]
