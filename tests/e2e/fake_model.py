"""The tests' own model behind a loopback OpenAI-compatible server.

It is a fake model, so it may read the prompt: it recognizes the task by phrases of the
bundled templates and answers so that the deterministic parsers read the answer (Frohlich: a
fixed ranking with a certainty, choice and ballot "(a)", poll "Yes", a statement, a memory
text; collaboration: labelled beliefs, predictions and messages, choice "B").
It can be told to fail with HTTP 500 after some number of requests, and to recover.
"""

from __future__ import annotations

import threading
from typing import Any

from tests.runtime.loopback_http import Received, Reply, chat_completion, error_body

MODEL = "some-model"

RANKING = (
    "1. (a) Maximizing the floor income\n"
    "2. (c) Maximizing the average income with a floor constraint\n"
    "3. (d) Maximizing the average income with a range constraint\n"
    "4. (b) Maximizing the average income\n"
    "I am sure of this ranking."
)

# (phrase of the prompt, answer); first match wins. Memory prompts quote the task they
# follow, so they come first.
ANSWERS: tuple[tuple[str, str], ...] = (
    ("Shorten it to at most", "I favour (a), maximizing the floor income."),
    (
        "Time to update your memory",
        "I favour (a), maximizing the floor income, because it protects the worst off.",
    ),
    ("Do you agree to vote now?", "Yes. We have discussed this enough."),
    ("this is the secret ballot", "I vote for (a), maximizing the floor income."),
    (
        "Now make your statement to the group",
        "I support (a), maximizing the floor income: it protects whoever ends up at the bottom.",
    ),
    ("think privately", "The group is split; I will keep arguing for (a)."),
    ("State your choice", "I choose (a), maximizing the floor income."),
    ("Rank the four principles", RANKING),
    # The collaboration game (domain/collaboration/prompts/en): the first message before the
    # plain first step, whose phrase its prompt shares.
    (
        "Then write your first message to",
        "BELIEF: 70\nREASONING: A joint model line suits both companies.\n"
        "MESSAGE: I am keen to build a joint model line with you. Shall we agree on shared "
        "milestones?",
    ),
    (
        "Before any message is exchanged",
        "BELIEF: 65\nREASONING: A joint model line could suit both companies.",
    ),
    (
        "Then write your reply to",
        "BELIEF: 75\nPREDICTION: 70\nREASONING: The tone is constructive.\n"
        "MESSAGE: Shared milestones work for me; let us start with the design phase together.",
    ),
    (
        "The conversation is over",
        "BELIEF: 80\nPREDICTION: 75\nREASONING: We converged on a plan.",
    ),
    ("Decide now, on your own", "CHOICE: B\nREASONING: A balanced risk for a likely partner."),
)


def prompt_of(body: Any) -> str:
    messages = body.get("messages", []) if isinstance(body, dict) else []
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return str(content or "")
    return ""


class FakeModel:
    """Answers chat-completion requests; ``fail_after(n)``: n more good answers, then 500s
    until ``recover()``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._good_left: int | None = None
        self.answered = 0
        self.failed = 0
        self.unknown: list[str] = []

    def fail_after(self, good: int) -> None:
        with self._lock:
            self._good_left = good

    def recover(self) -> None:
        with self._lock:
            self._good_left = None

    def reply(self, received: Received) -> Reply:
        with self._lock:
            if self._good_left is not None:
                if self._good_left <= 0:
                    self.failed += 1
                    return Reply(500, error_body("the fake model is down", "server_error"))
                self._good_left -= 1
            prompt = prompt_of(received.body)
            answer = next((a for phrase, a in ANSWERS if phrase in prompt), None)
            if answer is None:
                self.unknown.append(prompt[:300])
                return Reply(400, error_body("the fake model does not know this task"))
            self.answered += 1
        return Reply(200, chat_completion(answer, model=MODEL))


def serve_agent(data: dict[str, Any], agent: str, base_url: str) -> None:
    """Config edit: ``agent`` talks to the fake model at ``base_url``."""
    for entry in data["agents"]:
        if entry["name"] == agent:
            entry["model"] = MODEL
            entry["provider"] = {"base_url": base_url}
            entry.pop("persona", None)
            return
    raise KeyError(agent)
