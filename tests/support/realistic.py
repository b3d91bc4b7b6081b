"""A realistic participant for the tests: the experiments' simulated participants answer in
clean, predictable sentences, while real models quote and paraphrase the prompt, restate
earlier rounds ("round 1 of 4" in a memory), copy tables and results into their notes, quote
other agents, say their bank balance or their private bio aloud (the prompt's line, copied)
and note what others said of theirs, and mix languages. This wraps any simulated responder
and writes like that, so that audits and parsers meet what real models write (issue 27:
three runs through an OpenAI-compatible server failed ``prompt_round_table`` because a
memory quoted its round).

What it adds never changes what the inner participant decided: a choice, ballot or poll keeps
its answer whole, with the quoting around it; free text (memories, reasoning, statements,
messages, speech) carries the quotes in the middle of it."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.embeddings import EMBEDDER

Responder = Callable[[ModelRequest], str]

ASIDES = ("vale, 好的", "como dije antes", "我同意这一点", "bueno", "en fin", "说实话")
SECTION = re.compile(r"^--- [^\n]{1,20} ---$", re.MULTILINE)
SPOKEN = re.compile(r"^\[[^\]\n]+\] ([^:：\n]{1,40})[:：] ?(.+)$")  # "[Round 1] bob: ..."
ROUND = re.compile(r"round \d+ of \d+|ronda \d+ de \d+|第 \d+ 轮，共 \d+ 轮")
SECRET = re.compile(r"^About you, known only to you: (.+)$", re.MULTILINE)  # the world's
BALANCE = re.compile(r"^(?:Bank balance|Saldo bancario|银行余额)[:：][^\n]*$", re.MULTILINE)


def _task(prompt: str) -> str:
    """What a reader takes for the task: the text after the last separator line."""
    return prompt.rsplit("\n\n---\n\n", 1)[-1]


def _quoted_task_line(task: str) -> str | None:
    """In a memory update: the first line of the step's task, quoted after its header."""
    headers = list(SECTION.finditer(task))
    if not headers:
        return None
    rest = task[headers[0].end() :].strip().splitlines()
    return rest[0] if rest else None


def _table_lines(task: str, count: int) -> list[str]:
    return [line for line in task.splitlines() if line.startswith("| ")][:count]


def _result_line(task: str) -> str | None:
    """The first line the template writes after the agent's answer (the round's result)."""
    headers = list(SECTION.finditer(task))
    if len(headers) < 3:
        return None
    lines = [line for line in task[headers[-1].end() :].splitlines() if line.strip()]
    return lines[0] if lines else None


class RealisticParticipant:
    """``inner``'s answers, rewritten the way real models write them."""

    def __init__(self, inner: Responder, seed: int = 0) -> None:
        self.inner = inner
        self.rng = random.Random(seed)
        self.said: dict[str, list[str]] = {}  # what each agent wrote before, for restating

    def __call__(self, request: ModelRequest) -> str:
        answer = self.inner(request)
        if request.agent in (UTILITY, EMBEDDER):
            return answer
        purpose = str(request.purpose)
        aside = self.rng.choice(ASIDES)
        if answer.lstrip().startswith("{"):
            text = self._structured(request, answer, aside)
        elif purpose == "memory":
            text = self._memory(request, answer, aside)
        elif purpose == "memory_shorten":  # a few words of the old notes kept, as models do
            found = ROUND.search(request.input)
            text = f'{answer.strip()} (Noted: "{found.group(0)}".)' if found else answer
            told = re.search(r'^I was told: "[^\n]*', request.input, re.MULTILINE)
            text += f"\n{told.group(0)}" if told else ""
        elif purpose in ("reasoning", "statement", "message", "turn", "initial", "update"):
            text = self._free(request, answer, aside)
        elif purpose in ("choice", "ballot", "poll", "ranking", "decision", "importance"):
            text = self._around(request, answer, aside)
        else:  # an experiment this does not know (a plug-in): its answer kept whole, quoted
            text = self._around(request, answer, aside)
        self.said.setdefault(request.agent, []).append(answer)
        return text

    def _memory(self, request: ModelRequest, answer: str, aside: str) -> str:
        task = _task(request.input)
        notes = [answer.strip()]
        quoted = _quoted_task_line(task)
        if quoted:
            notes.append(f'The task said: "{quoted}" ({aside}).')
        table = _table_lines(task, 3)
        if table:
            notes.append("The table I saw:\n" + "\n".join(table))
        result = _result_line(task)
        if result:
            notes.append(f"Recap — {result}")
        heard = [m.group(0) for m in BALANCE.finditer(task)]  # another agent's, said aloud
        if heard:
            notes.append("Someone said:\n" + "\n".join(heard))
        blocks = request.input.split("\n\n---\n\n")
        if len(blocks) > 2:  # a private instruction before the task: models copy it too
            notes.append(f'I was told: "{blocks[-2].strip()}"')
        return "\n\n".join(notes)

    def _free(self, request: ModelRequest, answer: str, aside: str) -> str:
        task = _task(request.input)
        found = ROUND.search(request.input)
        before = self.said.get(request.agent, [])
        parts = [answer.strip()]
        if found:
            parts.append(f'Back in "{found.group(0)}" I thought otherwise ({aside}).')
        if before:
            parts.append(f'Earlier I wrote: "{_short(before[-1])}"')
        stated = next((ln for ln in task.splitlines() if re.search(r":\s*\S*\d", ln)), None)
        if stated:  # a line of the prompt that states a number ("Your belief so far: 40")
            parts.append(f'The prompt says "{_short(stated)}", vale.')
        for line in task.splitlines():
            spoken = SPOKEN.match(line)
            if spoken and spoken.group(1).strip() != request.agent:
                parts.append(
                    f'As {spoken.group(1).strip()} put it: "{_short(spoken.group(2))}" — 我明白.'
                )
                break
        mine = BALANCE.search(request.input)  # the preamble's: copied into what it says
        if str(request.purpose) == "statement" and mine:
            parts.append(f"\n{mine.group(0)}")
        return " ".join(parts)

    def _around(self, request: ModelRequest, answer: str, aside: str) -> str:
        lines = [line for line in _task(request.input).splitlines() if line.strip()]
        opening = f'You asked: "{_short(lines[0])}". ' if lines else ""
        return f"{opening}Bueno, {aside}.\n\n{answer}"

    def _structured(self, request: ModelRequest, answer: str, aside: str) -> str:
        """A JSON answer (the world): its free text carries the quotes, its values stay."""
        try:
            value = json.loads(answer)
        except ValueError:
            return answer
        if isinstance(value, dict) and isinstance(value.get("text"), str):
            found = ROUND.search(request.input)
            said = f' (as in "{found.group(0)}")' if found else ""
            value["text"] = f"{value['text']}{said} — {aside}"
            secret = SECRET.search(request.system)
            if secret and self.rng.random() < 0.5:  # a secret told aloud is no longer one
                value["text"] += f" (between us: {secret.group(1)})"
        return json.dumps(value, ensure_ascii=False)


def _short(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
