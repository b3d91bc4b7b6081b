"""The leak audit (docs/frohlich.md §6): no prompt of agent A may contain another agent's private
material. Every recorded participant prompt (``model.requested``: system + input) is searched
for the private items of every other agent, in the parts the code wrote, located by the
prompt's structure (``prompt_parts``): the agent's memory section, found as last recorded,
is left out, since its own notes may quote anything it heard; the name is the preamble's
first line; balance lines and payment-table rows are looked for once the statements and the
agent's own answers said before the prompt are set aside (a statement may quote them).

A match is excused when A legitimately held the same text before the prompt: A wrote or was
shown it itself (its own answers, memories, reasoning, results; two agents in the same class
of the same table are shown identical lines), or someone said it in public. Only what came
before the prompt counts, so a leaked text that A later repeats is still found. Short
strings are not searched: they occur by chance (memories under ``MIN_MEMORY_WORDS`` words,
other texts under ``MIN_CHARS`` characters). The utility agent's prompts are not checked:
it is no participant, and it only ever reads the answer it extracts from.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from maai.domain.events import ModelCallCompleted
from maai.domain.frohlich import manipulator, render
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerRejected,
    AnswerUndecided,
    DiscussionEnded,
    DistributionsDrawn,
    ManipulatorTargetChosen,
    MemoryUpdated,
    PayoffAwarded,
    ReasoningRecorded,
    StatementMade,
)
from maai.domain.frohlich.prompts import render as render_template
from maai.domain.frohlich.rules import base_set
from maai.domain.frohlich.steps import constraint_note, payoff_summary
from maai.projections.frohlich.prompt_parts import split_prompt
from maai.projections.frohlich.reference_words import PromptWords, words_for
from maai.projections.history import History
from maai.projections.leaks import MIN_CHARS as MIN_CHARS
from maai.projections.leaks import FirstHeld, Item, Leak, LeakReport, TextIndex, excerpt

MIN_MEMORY_WORDS = 8


class _Languages(dict[str, str]):
    """The language each agent reads (the run's unless its own); English for anyone else
    and for a history without a readable config."""

    def __init__(self, history: History) -> None:
        config = history.config
        if isinstance(config, FrohlichConfig):
            super().__init__({a.name: config.language_of(a.name) for a in config.agents})
        else:
            super().__init__()

    def __missing__(self, agent: str) -> str:
        return "en"


def _payoff_texts(event: PayoffAwarded, language: str) -> list[str]:
    """The lines that tell an agent its own result, rendered as its prompts render them."""
    summary = payoff_summary(event, language)
    table = render.counterfactual_table(event.counterfactuals, event.distribution, language)
    lines = table.splitlines()[2:]  # the header is the same for everyone
    if event.scope == "phase1" and event.choice is not None:
        outcome = render_template(
            "round_outcome",
            language,
            round=event.round,
            choice=render.describe(event.choice, language),
            distribution=event.distribution,
            constraint_note=constraint_note(event, language),
            **summary,
        )
        return [outcome.splitlines()[0], *lines]
    outcome = render_template(
        "phase2_outcome", language, agreement="", table="", selection="", **summary
    )
    marker = words_for(language).assigned
    assigned = [line.strip() for line in outcome.splitlines() if marker in line]
    return [*assigned, *lines]


def private_items(history: History) -> list[Item]:
    languages = _Languages(history)
    items: list[Item] = []
    kinds = (
        ReasoningRecorded,
        MemoryUpdated,
        PayoffAwarded,
        AnswerAccepted,
        AnswerRejected,
        AnswerUndecided,
        ManipulatorTargetChosen,
    )
    for entry, event in history.each(*kinds):
        texts: list[tuple[str, str, str]] = []  # (kind, owner, text)
        if isinstance(event, ReasoningRecorded):
            texts.append(("private reasoning", event.agent, event.text))
        elif isinstance(event, MemoryUpdated):
            if len(event.memory.split()) >= MIN_MEMORY_WORDS:
                texts.append(("memory", event.agent, event.memory))
        elif isinstance(event, PayoffAwarded):
            kind = "Phase-1 result" if event.scope == "phase1" else "Phase-2 result"
            language = languages[event.agent]
            texts += [(kind, event.agent, t) for t in _payoff_texts(event, language)]
        elif isinstance(event, AnswerAccepted | AnswerRejected | AnswerUndecided):
            kind = "secret ballot" if event.kind == "ballot" else f"private {event.kind} answer"
            texts.append((kind, event.agent, event.raw_text))
        elif isinstance(event, ManipulatorTargetChosen):
            told_in = languages[event.manipulator]
            instruction = manipulator.instruction(event.target, told_in)
            texts.append(("manipulator instruction", event.manipulator, instruction))
        for kind, owner, text in texts:
            text = text.strip()
            if kind == "memory" or len(text) >= MIN_CHARS:
                items.append(Item(kind, owner, text, entry.seq))
    unique = {(i.kind, i.owner, i.text): i for i in reversed(items)}  # keep the first seq
    return sorted(unique.values(), key=lambda i: i.seq)


Texts = list[tuple[int, str]]  # (seq at which it was recorded, text)
Found = tuple[str, str | None, int | None, str]  # (kind, owner, item seq, text)


def _own_texts(history: History, items: list[Item]) -> dict[str, Texts]:
    """Everything each agent wrote or was told about itself, with when."""
    own: dict[str, Texts] = defaultdict(list)
    for item in items:
        own[item.owner].append((item.seq, item.text))
    for entry, done in history.each(ModelCallCompleted):
        own[done.agent].append((entry.seq, done.answer.text))
    return own


def _balance_lines(prompt: str, words: PromptWords) -> Iterator[re.Match[str]]:
    """``words.balance.finditer(prompt)``, found faster: the regex runs only where a line
    starts with its literal beginning (a prompt is long; the line is in it once or twice)."""
    start = prompt.find(words.balance_start)
    while start >= 0:
        if start == 0 or prompt[start - 1] == "\n":
            match = words.balance.match(prompt, start)
            if match is not None:
                yield match
        start = prompt.find(words.balance_start, start + 1)


def _balances(history: History) -> dict[str, list[tuple[int, int]]]:
    """Per agent, (seq, balance in cents) after each payment, starting from zero."""
    out: dict[str, list[tuple[int, int]]] = defaultdict(lambda: [(0, 0)])
    for entry, paid in history.each(PayoffAwarded):
        out[paid.agent].append((entry.seq, paid.balance_cents))
    return out


def _held(balances: list[tuple[int, int]], before: int) -> set[int]:
    return {cents for seq, cents in balances if seq < before}


def _table_rows(distributions: list[list[int]], language: str) -> list[str]:
    return render.distribution_table(distributions, language=language).splitlines()[2:]


class _PaymentRows:
    """The rows of the base set and of the Phase-2 payment table as each language renders
    them, rendered once per language rather than once per prompt."""

    def __init__(self, base: list[list[int]]) -> None:
        self._base = base
        self._base_rows: dict[str, set[str]] = {}
        self._rows: dict[str, list[str]] = {}

    def base(self, language: str) -> set[str]:
        if language not in self._base_rows:
            self._base_rows[language] = set(_table_rows(self._base, language))
        return self._base_rows[language]

    def rows(self, distributions: list[list[int]], language: str) -> list[str]:
        # One payment table per run (the first drawn), so the language is the key.
        if language not in self._rows:
            self._rows[language] = _table_rows(distributions, language)
        return self._rows[language]


class _Said:
    """What was said before a prompt, to be set aside where a rule reads what the code wrote:
    every public statement, and each agent's own answers (a memory-update task shows the
    answer; a statement may quote a balance line or a table row). Only texts of at least
    ``MIN_SAID`` characters: a short answer ("Yes") would cut words out of the code's text."""

    MIN_SAID = 10

    def __init__(self, history: History) -> None:
        # text -> speaker (None: said in public) -> the first seq it was said at
        self._first: dict[str, dict[str | None, int]] = defaultdict(dict)
        for entry, said in history.each(StatementMade):
            self._first[said.text.strip()].setdefault(None, entry.seq)
        for entry, done in history.each(ModelCallCompleted):
            self._first[done.answer.text.strip()].setdefault(done.agent, entry.seq)
        self._index = TextIndex(t for t in self._first if len(t) >= self.MIN_SAID)

    def set_aside(self, text: str, agent: str, seq: int) -> str:
        """``text`` with each occurrence of what was said before ``seq`` (in public, or by
        ``agent``) cut out, each stretch of them replaced by one line break. The stretches
        are cut in one pass: replacing each said text in turn copied a long prompt once per
        statement it quotes (minutes on a 32 × 40 run)."""
        cuts: list[tuple[int, int]] = []
        for start, said in self._index.occurrences(text):
            first = self._first[said]
            if min(first.get(None, seq), first.get(agent, seq)) < seq:
                cuts.append((start, start + len(said)))
        if not cuts:
            return text
        pieces: list[str] = []
        kept = 0  # where the text not yet copied or cut starts
        for start, end in sorted(cuts):
            if end <= kept:
                continue
            if start >= kept:
                pieces += [text[kept:start], "\n"]
            kept = end
        pieces.append(text[kept:])
        return "".join(pieces)


class _MemoryAt:
    """Each agent's memory as last recorded before a seq (``memory.updated``)."""

    def __init__(self, history: History) -> None:
        self._seqs: dict[str, list[int]] = defaultdict(list)
        self._texts: dict[str, list[str]] = defaultdict(list)
        for entry, updated in history.each(MemoryUpdated):
            self._seqs[updated.agent].append(entry.seq)
            self._texts[updated.agent].append(updated.memory)

    def before(self, agent: str, seq: int) -> str:
        at = bisect_left(self._seqs.get(agent, []), seq)
        return self._texts[agent][at - 1] if at else ""


@dataclass(frozen=True)
class _Written:
    """The parts of a prompt the code wrote, located by the prompt's structure
    (``prompt_parts``): the system text, the preamble before the memory section, and the
    task. The memory (the agent's own notes, which may quote anything it was told) is not
    among them."""

    head: str  # the preamble before the memory: the name and balance lines
    body: str  # the system text, the head and the task

    @staticmethod
    def of(system: str, input_text: str, words: PromptWords, memory: str) -> _Written:
        parts = split_prompt(input_text, words, memory)
        if parts is None:  # not the recorded memory (the protocol audit says so): read all
            at = input_text.find(words.memory_head)
            return _Written(input_text if at < 0 else input_text[:at], f"{system}\n{input_text}")
        return _Written(parts.head, f"{system}\n{parts.head}\n\x00\n{parts.task}")


def audit_leaks(history: History) -> LeakReport:
    items = private_items(history)
    own = _own_texts(history, items)
    public: Texts = [(e.seq, said.text) for e, said in history.each(StatementMade)]
    balances = _balances(history)
    names = history.agent_names
    ended = history.of(DiscussionEnded)
    ended_seq = ended[0][0].seq if ended else None
    payment = [(e, d) for e, d in history.each(DistributionsDrawn) if d.scope == "phase2"]
    languages = _Languages(history)
    seen_tables: dict[str, set[str]] = defaultdict(set)
    base = [list(d.incomes) for d in base_set(history.config).distributions]
    for _, drawn in history.each(DistributionsDrawn):
        if drawn.scope == "phase1" and drawn.agent is not None:
            language = languages[drawn.agent]
            seen_tables[drawn.agent].update(_table_rows(drawn.distributions, language))

    leaks: list[Leak] = []
    prompts = 0
    index = TextIndex(item.text for item in items)
    # Only the items a prompt contains are looked at, in the order of ``items``: looking at
    # every item for every prompt made the audit grow with the square of the run.
    positions: dict[str, list[int]] = defaultdict(list)
    for position, item in enumerate(items):
        positions[item.text].append(position)
    payment_rows = _PaymentRows(base)
    own_held: dict[str, FirstHeld] = defaultdict(lambda: FirstHeld([]))
    own_held.update((agent, FirstHeld(texts)) for agent, texts in own.items())
    public_held = FirstHeld(public)
    said = _Said(history)
    memories = _MemoryAt(history)
    for entry, requested in history.requests():  # one prompt at a time
        request = requested.request
        agent = request.agent
        if agent == "utility":
            continue
        prompts += 1
        language = languages[agent]
        words = words_for(language)
        # Each rule reads what the code wrote: the memory section is left out (an agent's
        # own notes may quote a balance, a table or another agent's words), and so, for the
        # lines below, is what anyone said before (a statement may quote them too).
        written = _Written.of(
            request.system, request.input, words, memories.before(agent, entry.seq)
        )
        present = index.found_in(written.body)
        found: list[Found] = []
        for position in sorted(p for text in present for p in positions[text]):
            item = items[position]
            if item.owner == agent:
                continue
            if own_held[agent].before(item.text, entry.seq):
                continue
            if public_held.before(item.text, entry.seq):
                continue
            found.append((item.kind, item.owner, item.seq, item.text))
        unsaid = said.set_aside(written.body, agent, entry.seq)
        found += _preamble_leaks(written.head, unsaid, agent, balances, names, entry.seq, words)
        if payment and (ended_seq is None or entry.seq < ended_seq):
            drawn_entry, drawn = payment[0]
            legit = seen_tables[agent] | payment_rows.base(language)
            shown = payment_rows.rows(drawn.distributions, language)
            rows = [r for r in shown if r in unsaid and r not in legit]
            if rows:
                found.append(("Phase-2 payment table", None, drawn_entry.seq, rows[0]))
        leaks += [
            Leak(agent, request.address, entry.seq, kind, owner, seq, excerpt(text))
            for kind, owner, seq, text in found
        ]
    return LeakReport(history.run_id, prompts, len(items), tuple(leaks))


def _preamble_leaks(
    head: str,
    written: str,
    agent: str,
    balances: dict[str, list[tuple[int, int]]],
    names: list[str],
    seq: int,
    words: PromptWords,
) -> list[Found]:
    """A prompt's "Name:" (the preamble's first line) must be its own agent's, and every
    "Bank balance:" line the code wrote a balance that agent has had; a balance only another
    agent has had is that agent's."""
    found: list[Found] = []
    named = words.name_line.search(head)
    if named and named.group(1).strip() != agent:
        found.append(("preamble (name)", named.group(1).strip(), None, named.group(0)))
    mine = _held(balances[agent], seq)
    for match in _balance_lines(written, words):
        sign, whole, part = match.groups()
        cents = (-1 if sign else 1) * (int(re.sub(r"[,.]", "", whole)) * 100 + int(part))
        if cents in mine:
            continue
        owners = [n for n in names if n != agent and cents in _held(balances[n], seq)]
        found.append(("bank balance", ", ".join(owners) or None, None, match.group(0)))
    return found
