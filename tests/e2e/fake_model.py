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
RESPONSES_MODEL = "openai:gpt-4o-mini"

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
    """The last user message of a Chat Completions body (``messages``) or a Responses body
    (``input``: a string, or items with the role and content of messages)."""
    if not isinstance(body, dict):
        return ""
    if isinstance(body.get("input"), str):
        return str(body["input"])
    messages = body.get("messages", body.get("input", []))
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return str(content or "")
    return ""


def response_body(content: str, *, model: str = MODEL) -> dict[str, Any]:
    """A Responses API body (``POST /responses``) as OpenAI documents it, with usage."""
    return {
        "id": "resp_fake",
        "object": "response",
        "created_at": 1_700_000_000,
        "model": model,
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_fake",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": content, "annotations": []}],
            }
        ],
        "usage": {
            "input_tokens": 40,
            "output_tokens": 12,
            "total_tokens": 52,
            "input_tokens_details": {"cached_tokens": 8},
            "output_tokens_details": {"reasoning_tokens": 3},
        },
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
    }


class FakeModel:
    """Answers Chat Completions and Responses requests; ``fail_after(n)``: n more good
    answers, then 500s until ``recover()``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._good_left: int | None = None
        self.answered = 0
        self.responses = 0  # of the answers, those sent as Responses API bodies
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
            if received.path.endswith("/responses"):
                self.responses += 1
                return Reply(200, response_body(answer))
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


def serve_everyone_by_responses(data: dict[str, Any]) -> None:
    """Config edit: every agent is an OpenAI model (the Responses API route), whose base URL
    (the fake model's server) and key the environment gives: ``OPENAI_BASE_URL``,
    ``OPENAI_API_KEY``."""
    for entry in data["agents"]:
        entry["model"] = RESPONSES_MODEL
        entry.pop("provider", None)
        entry.pop("persona", None)
    # An OpenAI route exports the run's trace to OpenAI where the process holds an OpenAI
    # key (docs/providers.md, "Tracing"): never from a test, whatever the developer's shell.
    data["tracing"] = False
