"""The Frohlich experiment in English, Spanish and Mandarin (docs/frohlich.md, Languages):
per run and per agent, every participant text from that language's templates, a missing
template a startup error, and no English in a Spanish or Mandarin participant's prompts."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import yaml

from maai.domain.calls import ModelRequest
from maai.domain.config import ConfigError
from maai.domain.events import Event
from maai.domain.frohlich import parsing, render
from maai.domain.frohlich import prompts as frohlich_prompts
from maai.domain.frohlich.config import FrohlichConfig, parse_config
from maai.domain.frohlich.events import StatementMade
from maai.domain.frohlich.prompts import LANGUAGES, PROMPTS, parse_words, word
from maai.domain.frohlich.simulated.reading import (
    amount_in,
    certainty_in,
    poll_answer_in,
    stance_in,
)
from maai.domain.frohlich.state import PublicItem
from maai.domain.frohlich.types import Certainty, Principle
from maai.domain.prompts import PromptSet
from tests.support.languages import CONFIGS, drive, load

PROMPT_FOLDER = Path(frohlich_prompts.__file__).parent
# string.Template's placeholders: ASCII names ("$income_class阶层" names income_class).
PLACEHOLDER = re.compile(r"\$(?:\{([_a-zA-Z][_a-zA-Z0-9]*)\}|([_a-zA-Z][_a-zA-Z0-9]*))")


# --- Configuration ---------------------------------------------------------------------


def test_an_unknown_run_language_is_one_error_naming_the_supported_ones() -> None:
    with pytest.raises(ConfigError) as raised:
        load("default.yaml", language="fr")
    (line,) = str(raised.value).splitlines()
    assert line.startswith("config: language:") and "unknown language 'fr'" in line
    assert all(f"{code} (" in line for code in LANGUAGES)


def test_an_unknown_agent_language_is_an_error_naming_the_agent() -> None:
    data = yaml.safe_load((CONFIGS / "default.yaml").read_text(encoding="utf-8"))
    data["agents"][1]["language"] = "de"
    with pytest.raises(ConfigError) as raised:
        parse_config(data)
    assert "agents.1.language" in str(raised.value) and "es (Spanish)" in str(raised.value)


def test_an_agent_speaks_the_runs_language_unless_it_has_its_own() -> None:
    config = load("frohlich_multilingual.yaml")
    assert config.language_of("Alice") == "es"
    assert config.language_of("Dmitri") == "zh"
    assert config.language_of("Bob") == "en"
    assert config.languages() == ["en", "es", "zh"]
    assert load("frohlich_es.yaml").language_of("Bob") == "es"


@pytest.fixture
def broken_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the templates as package ``broken_prompts``, in use: tests delete from it."""
    shutil.copytree(PROMPT_FOLDER, tmp_path / "broken_prompts")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(frohlich_prompts, "PROMPTS", PromptSet("broken_prompts"))
    yield tmp_path / "broken_prompts"
    sys.modules.pop("broken_prompts", None)


def test_a_missing_spanish_template_is_a_startup_error_naming_the_file(
    broken_prompts: Path,
) -> None:
    (broken_prompts / "es" / "ballot.txt").unlink()
    with pytest.raises(ConfigError) as raised:
        load("frohlich_es.yaml")
    assert "es/ballot.txt" in str(raised.value)
    # A Spanish agent in an English run needs it too; an English run does not.
    with pytest.raises(ConfigError, match="es/ballot.txt"):
        load("frohlich_multilingual.yaml")
    assert load("default.yaml").language == "en"


def test_a_missing_spanish_word_is_a_startup_error_naming_the_file_and_the_word(
    broken_prompts: Path,
) -> None:
    words = broken_prompts / "es" / "words.txt"
    lines = words.read_text(encoding="utf-8").splitlines()
    words.write_text(
        "\n".join(line for line in lines if not line.startswith("table_floor ")),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as raised:
        load("frohlich_es.yaml")
    assert "es/words.txt" in str(raised.value) and "table_floor" in str(raised.value)


# --- The templates ---------------------------------------------------------------------


def _placeholders(text: str) -> set[str]:
    return {m.group(1) or m.group(2) for m in PLACEHOLDER.finditer(text.replace("$$", ""))}


@pytest.mark.parametrize("language", ["es", "zh"])
def test_every_template_and_word_has_a_translation_with_the_same_placeholders(
    language: str,
) -> None:
    assert PROMPTS.names(language) == PROMPTS.names("en")
    for name in PROMPTS.names("en"):
        english = PROMPTS.template(name, "en").template
        translated = PROMPTS.template(name, language).template
        if name == "words":
            english_words, words = parse_words(english), parse_words(translated)
            assert words.keys() == english_words.keys()
            for key, text in english_words.items():
                assert _placeholders(words[key]) == _placeholders(text), (language, key)
        else:
            assert _placeholders(translated) == _placeholders(english), (language, name)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_tells_the_vote_phrase_its_parser_reads(language: str) -> None:
    phrase = word(language, "vote_phrase")
    assert phrase == parsing.VOTE_PROPOSAL_PHRASES[language]
    assert parsing.parse_vote_proposal(f"{word(language, 'title_a')}.\n{phrase}")


def test_amounts_are_written_as_each_language_writes_them() -> None:
    assert [render.dollars(12_000, lang) for lang in LANGUAGES] == [
        "$12,000",
        "$12.000",
        "12,000美元",
    ]
    assert [render.cents(123_456, lang) for lang in LANGUAGES] == [
        "$1,234.56",
        "$1.234,56",
        "1,234.56美元",
    ]
    for language in LANGUAGES:
        written = render.dollars(13_500, language)
        choice = parsing.parse_choice(f"(c) {word(language, 'title_c')} {written}")
        assert isinstance(choice, parsing.Parsed) and choice.value.amount == 13_500, language


def test_the_shared_history_is_rendered_once_per_language_never_mixed() -> None:
    items = (
        PublicItem(kind="statement", round=1, speaker="Bob", text="I support (b)."),
        PublicItem(
            kind="poll",
            round=1,
            speaker="Bob",
            text="",
            poll_answers=(("Bob", True), ("Ana", None)),
        ),
    )
    english = render.public_history_text(items, "en")
    spanish = render.public_history_text(items, "es")
    assert english == render.public_history_text(items, "en")  # remembered, unchanged
    assert "[Round 1] Bob: I support (b)." in english and "Should the group" in english
    assert spanish.splitlines() == [
        "[Ronda 1] Bob: I support (b).",
        "[Ronda 1] ¿Debe votar el grupo ahora? Bob: sí, Ana: sin respuesta. "
        "No todos estuvieron de acuerdo, así que no se votó.",
    ]
    assert render.public_history_text(items, "en") == english


# --- Whole simulated runs --------------------------------------------------------------


@cache
def simulated_run(name: str, seed: int = 42) -> tuple[list[ModelRequest], list[Event]]:
    return drive(load(name, seed=seed))


ENGLISH_WORDS = re.compile(
    r"\b(?:Distribution|Dist\.|Round|rounds?|income|yes|ballot|Bank balance|Certainty|Memory|"
    r"Name|principles?|Average|Floor|Range|payoff|vote|group|chosen|answer|the|and|of)\b"
    r"|I PROPOSE A VOTE",
    re.IGNORECASE,
)


@cache
def english_lines() -> tuple[str, ...]:
    """Every run of three or more words of an English template or word, between its
    placeholders."""
    found: set[str] = set()
    for name in PROMPTS.names("en"):
        text = PROMPTS.template(name, "en").template
        texts = parse_words(text).values() if name == "words" else text.splitlines()
        for line in texts:
            for piece in PLACEHOLDER.split(line.replace("$$", "$")):
                if piece and len(piece.split()) >= 3:
                    found.add(piece.strip())
    return tuple(sorted(found))


def english_in(prompt: str) -> list[str]:
    found = [line for line in english_lines() if line in prompt]
    return found + [m.group(0) for m in ENGLISH_WORDS.finditer(prompt)]


def quoted_from_others(events: list[Event], config: FrohlichConfig, reader: str) -> list[str]:
    """Statements of agents who speak another language than ``reader``: shown as spoken."""
    mine = config.language_of(reader)
    return [
        e.text.strip()
        for e in events
        if isinstance(e, StatementMade) and config.language_of(e.agent) != mine
    ]


def participant_prompts(
    requests: list[ModelRequest], events: list[Event], config: FrohlichConfig, agent: str
) -> list[tuple[str, str]]:
    """(address, system + input) of every prompt ``agent`` was shown, others' statements in
    other languages cut out."""
    quoted = quoted_from_others(events, config, agent)
    out = []
    for request in requests:
        if request.agent != agent:
            continue
        prompt = f"{request.system}\n{request.input}"
        for text in quoted:
            prompt = prompt.replace(text, "")
        out.append((request.address, prompt))
    return out


def test_the_english_word_list_finds_english_in_an_english_prompt() -> None:
    """The check below can fail: every English prompt trips it."""
    requests, _ = simulated_run("default.yaml")
    prompts = [r for r in requests if r.agent != "utility"]
    assert prompts and all(english_in(f"{r.system}\n{r.input}") for r in prompts)
    assert len(english_lines()) > 100


@pytest.mark.parametrize("config_name", ["frohlich_es.yaml", "frohlich_zh.yaml"])
def test_no_english_reaches_a_spanish_or_mandarin_participant(config_name: str) -> None:
    config = load(config_name)
    requests, events = simulated_run(config_name)
    assert {r.purpose for r in requests} >= {"ranking", "choice", "statement", "poll", "ballot"}
    feedback = [r for r in requests if r.agent != "utility" and r.context.get("feedback")]
    assert feedback, "the run must show some answer sent back, to check its wording"
    for agent in config.agents:
        for address, prompt in participant_prompts(requests, events, config, agent.name):
            assert english_in(prompt) == [], (address, english_in(prompt)[:5])


def test_a_spanish_agent_among_english_agents_reads_its_frame_in_spanish() -> None:
    """Alice speaks Spanish and Dmitri Mandarin in an English run."""
    config = load("frohlich_multilingual.yaml")
    requests, events = simulated_run("frohlich_multilingual.yaml")
    for reader in ("Alice", "Dmitri"):
        own = participant_prompts(requests, events, config, reader)
        assert own
        for address, prompt in own:
            assert english_in(prompt) == [], (address, english_in(prompt)[:5])
    statements = [r for r in requests if r.agent == "Alice" and r.purpose == "statement"]
    later = statements[-1].input
    bob = next(e for e in events if isinstance(e, StatementMade) and e.agent == "Bob")
    # Bob's words as he said them, in a Spanish frame; the vote phrase in Spanish.
    assert f"[Ronda {bob.round}] Bob: {bob.text.strip()}" in later
    assert later.endswith("PROPONGO UNA VOTACIÓN")
    english_reader = next(r for r in requests if r.agent == "Bob" and r.purpose == "statement")
    assert "[Round 1]" in english_reader.input or "(Nothing has been said yet.)" in (
        english_reader.input
    )
    assert "[Ronda" not in "".join(r.input for r in requests if r.agent == "Bob")
    dmitri = [r for r in requests if r.agent == "Dmitri" and r.purpose == "statement"][-1]
    assert f"[第 {bob.round} 轮] Bob: {bob.text.strip()}" in dmitri.input
    assert dmitri.input.endswith("我提议投票")


@pytest.mark.parametrize("config_name", ["frohlich_es.yaml", "frohlich_zh.yaml"])
def test_a_run_in_another_language_reaches_an_agreement_by_vote(config_name: str) -> None:
    _, events = simulated_run(config_name)
    proposals = [e for e in events if isinstance(e, StatementMade) and e.proposes_vote]
    assert proposals, "the simulated participants propose votes in their language"
    assert any(type(e).__name__ == "BallotResolved" for e in events)


# --- The simulated participant reads every language -------------------------------------


@pytest.mark.parametrize(
    ("text", "principle", "amount"),
    [
        (
            "Apoyo (c) maximizar el ingreso promedio con un mínimo garantizado de $13.000.",
            "c",
            13_000,
        ),
        ("Mi voto: (d) con un límite al rango de 15.000 dólares.", "d", 15_000),
        ("Sigo apoyando el ingreso mínimo.", "a", None),
        ("我支持 (c) 在最低收入限制下最大化平均收入，金额为 14,000美元。", "c", 14_000),
        ("我的投票：(d) 收入范围为 9,500美元。", "d", 9_500),
        ("我支持最大化平均收入。", "b", None),
    ],
)
def test_the_simulated_reader_follows_spanish_and_mandarin(
    text: str, principle: str, amount: int | None
) -> None:
    stance = stance_in(text)
    assert stance is not None
    assert (stance.principle, stance.amount) == (Principle(principle), amount)


def test_the_simulated_reader_reads_certainty_yes_no_and_amounts_in_each_language() -> None:
    assert certainty_in("1. (a)\n\nCerteza: muy seguro") is Certainty.VERY_SURE
    assert certainty_in("确定程度：非常不确定") is Certainty.VERY_UNSURE
    assert certainty_in("确定程度：确定") is Certainty.SURE
    assert certainty_in("Certeza: sin opinión") is Certainty.NO_OPINION
    assert [poll_answer_in(t) for t in ("Sí, votemos.", "No, todavía no.", "是，现在投票。")] == [
        True,
        False,
        True,
    ]
    assert poll_answer_in("否，我认为还需要讨论。") is False
    assert [amount_in(t) for t in ("$12.000", "12.000 dólares", "12,000美元", "$12,000")] == [
        12_000
    ] * 4
