"""The parsers read Spanish answers (docs/rules.md "Parsing messy answers"; SPEC §8).

Every case asserts the value a participant's Spanish answer supports, or Undecided where the
text does not settle it: a wrong value is far worse than a missing one.
"""

from __future__ import annotations

import pytest

from maai.domain.frohlich.amounts import parse_amount
from maai.domain.frohlich.parsing import (
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
    # Letters, with and without amounts.
    ("Elijo (a).", "a"),
    ("Elijo (b) porque maximiza el total.", "b"),
    ("Elijo (c) con un piso de 12.000 dólares.", "c:12000"),
    ("Escojo (d) con un rango máximo de $15.000.", "d:15000"),
    ("Mi elección es (c), con un piso de 12 mil dólares.", "c:12000"),
    ("Elección: (d), rango de 16.000 dólares", "d:16000"),
    ("Me quedo con (c) y un mínimo garantizado de US$ 13.000.", "c:13000"),
    ("Opto por la opción (c) con un piso de 12,5 mil dólares.", "c:12500"),
    ("(c) con un piso de 13.000 dólares", "c:13000"),
    ("（c），piso de 13.000 dólares.", "c:13000"),
    ("Yo elijo el principio (b).", "b"),
    ("Elegiré (a): protege a quien está peor.", "a"),
    # Names of the principles as the templates write them.
    ("Elijo maximizar el ingreso mínimo.", "a"),
    ("Elijo maximizar el piso.", "a"),
    ("Prefiero maximizar el ingreso más bajo.", "a"),
    ("Elijo maximizar el ingreso promedio.", "b"),
    ("Elijo maximizar la media.", "b"),
    (
        "Elijo maximizar el ingreso promedio con un mínimo garantizado de 13.000 dólares.",
        "c:13000",
    ),
    ("Elijo el promedio con restricción de piso: 12.000 dólares.", "c:12000"),
    ("Elijo maximizar el ingreso promedio con un piso de 14.000 dólares.", "c:14000"),
    (
        "Elijo maximizar el ingreso promedio con un límite al rango de 17.000 dólares.",
        "d:17000",
    ),
    ("Elijo el promedio con restricción de rango, con un rango de 15.000 dólares.", "d:15000"),
    ("Maximizar el ingreso promedio con un rango máximo de 16.000 dólares.", "d:16000"),
    # "." groups thousands in Spanish: "12.000" is twelve thousand in a Spanish answer.
    ("Elijo (c) con un piso de 12.000.", "c:12000"),
    ("Elijo (d) con un rango de 15.500.", "d:15500"),
    # Negation, correction, other people's positions.
    ("No elijo (a), elijo (b).", "b"),
    ("No elijo (a); me quedo con (c) con un piso de 13.000 dólares.", "c:13000"),
    ("Elijo (c) en lugar de (a), con un piso de 13.000 dólares.", "c:13000"),
    ("Elijo (a). En realidad, elijo (c) con un piso de 13.000 dólares.", "c:13000"),
    ("Mi elección es (b). Pensándolo bien, elijo (a).", "a"),
    ("Elijo (b). Me corrijo: elijo (d) con un rango de 15.000 dólares.", "d:15000"),
    ("Ana prefiere (a) pero yo elijo (d) con un rango de 16.000 dólares.", "d:16000"),
    ("Como dijo Luis, (a) protege a los pobres; sin embargo elijo (b).", "b"),
    ("Ana prefiere (a), pero yo prefiero (b).", "b"),
    ("No elegiría (a); elijo (b).", "b"),
    ("Jamás (a). Elijo (b).", "b"),
    ("Elijo (b), ¿vale?", "b"),  # a tag question: the decision stands
    ("Elijo (c) con un piso de 13 mil 500 dólares.", "c:13500"),
]

UNDECIDED_CHOICES = [
    # A judgement with no word of choosing is not a choice (docs/rules.md "Reading bounds").
    "Según mi análisis, (b) es el más eficiente.",
    "Elijo (c) o (d).",
    "Dudo entre (a) y (c).",
    "¿Qué pasa si elijo (c)?",
    "Ana prefiere (a).",
    "Según Ana, (b) es la mejor opción.",
    "Elijo (c) con un piso de doce mil dólares.",
    "Elijo (c) con un piso de unos 13.000 dólares.",
    "Elijo (c) con un piso de 13.000 dólares o más.",
    "Elijo (c) con un piso entre 12.000 y 14.000 dólares.",
    "Elijo (a), o quizás (d).",
    "Elijo (c) con un piso de 13.000 dólares. En realidad, elijo (c).",
    "¿Y si elijo (b)?",
    "Elijo (c) con un piso de 13 mil quinientos dólares.",  # "13 mil" is not the whole figure
    "Elijo (c) con un piso de 13.000 dólares. Pensándolo mejor, (d).",
    "Elijo (c) con un piso de 13.000 dólares. Espera, mejor 14.000 dólares.",
]


@pytest.mark.parametrize(("text", "value"), CHOICES)
def test_spanish_choices(text: str, value: str) -> None:
    assert parse_choice(text) == _choice(value)


@pytest.mark.parametrize("text", UNDECIDED_CHOICES)
def test_spanish_choices_that_the_parser_cannot_settle(text: str) -> None:
    result = parse_choice(text)
    assert isinstance(result, Undecided), result


def test_a_spanish_choice_without_its_amount_is_invalid() -> None:
    assert isinstance(parse_choice("Elijo (c)."), Invalid)
    assert isinstance(parse_choice("Elijo maximizar el ingreso promedio con un piso."), Invalid)


def test_dot_grouped_thousands_are_read_only_in_spanish() -> None:
    # In Spanish "12.000" is twelve thousand; in English it could be twelve: left to the
    # utility agent.
    assert parse_choice("Elijo (c) con un piso de 12.000.") == _choice("c:12000")
    assert isinstance(parse_choice("I choose (c) with a floor of 12.000."), Undecided)


def test_a_spanish_refusal_is_invalid() -> None:
    for text in ("Me abstengo.", "No elijo ninguno de los principios."):
        assert isinstance(parse_choice(text), Invalid), text


BALLOTS = [
    ("Mi voto es (c) con un piso de 13.000 dólares.", "c:13000"),
    ("Voto por (a).", "a"),
    ("Voto: (d), rango de 17 mil dólares", "d:17000"),
    ("Mi voto secreto: (b)", "b"),
    ("Mi voto es para (c), con un piso de 13.000 dólares.", "c:13000"),
    ("Me inclino por (b).", "b"),
    ("Elijo el mínimo garantizado de 13.000 dólares.", "c:13000"),
    ("Voy a votar por (a).", "a"),
    ("Voto por (c) con un mínimo garantizado de $13.000", "c:13000"),
    ("Papeleta: (c) — piso de $12.000", "c:12000"),
    (
        "Carlos votó (a) la última vez, pero mi voto es (c) con un piso de 13.000 dólares.",
        "c:13000",
    ),
    ("> Ana: voto por (a)\nVoto por (b).", "b"),
    (
        'Ana dijo: "voto por (a) porque protege a los pobres". Yo voto por (d) con un rango de '
        "15.000 dólares.",
        "d:15000",
    ),
]


@pytest.mark.parametrize(("text", "value"), BALLOTS)
def test_spanish_ballots(text: str, value: str) -> None:
    assert parse_ballot(text) == _choice(value)


def test_a_spanish_ballot_quoting_another_vote_only_is_undecided() -> None:
    result = parse_ballot('Ana dijo: "voto por (a) porque protege a los pobres".')
    assert isinstance(result, Undecided), result


# ------------------------------------------------------------------------------ rankings

RANKINGS = [
    (
        "1. (c) Maximizar el ingreso promedio con un mínimo garantizado\n"
        "2. (a) Maximizar el ingreso mínimo\n"
        "3. (d) Maximizar el ingreso promedio con un límite al rango\n"
        "4. (b) Maximizar el ingreso promedio\n"
        "Certeza: seguro",
        "cadb/sure",
    ),
    (
        "1. Maximizar el ingreso promedio con un mínimo garantizado\n"
        "2. Maximizar el ingreso mínimo\n"
        "3. Maximizar el ingreso promedio con un límite al rango\n"
        "4. Maximizar el ingreso promedio\n"
        "Certeza: muy segura",
        "cadb/very_sure",
    ),
    ("De mejor a peor: (c), (a), (d), (b).\nCerteza: inseguro", "cadb/unsure"),
    ("De peor a mejor: (b), (d), (a), (c).\nSeguridad: muy inseguro", "cadb/very_unsure"),
    ("De peor a mejor:\n1. (b)\n2. (d)\n3. (a)\n4. (c)\nCerteza: sin opinión", "cadb/no_opinion"),
    (
        "Mi clasificación:\nPrimero: (c)\nSegundo: (a)\nTercero: (d)\nÚltimo: (b)\n"
        "Certeza: insegura",
        "cadb/unsure",
    ),
    ("(c) primero, (a) segundo, (d) tercero y (b) cuarto. Estoy segura.", "cadb/sure"),
    ("En primer lugar (c), luego (a), después (d) y por último (b). Certeza: seguro", "cadb/sure"),
    ("Mi orden: c > a > d > b. Estoy muy seguro.", "cadb/very_sure"),
    ("1º (c)\n2º (a)\n3º (d)\n4º (b)\nCerteza: seguro", "cadb/sure"),
    ("- Piso con promedio\n- Piso\n- Rango\n- Promedio\nCerteza: seguro", "cadb/sure"),
    ("Clasificación: (a), (b), (c), (d). Certeza: sin opinión", "abcd/no_opinion"),
    # The presented order counts when the words say it is a ranking.
    (
        "Después de pensarlo, así ordeno los principios:\n1. (a) Maximizar el ingreso mínimo\n"
        "2. (b) Maximizar el ingreso promedio\n"
        "3. (c) Maximizar el ingreso promedio con un mínimo garantizado\n"
        "4. (d) Maximizar el ingreso promedio con un límite al rango\n\nCerteza: muy inseguro",
        "abcd/very_unsure",
    ),
    ("1. (c)\n2. (a)\n3. (d)\n4. (b)\nNo estoy muy seguro.", "cadb/unsure"),
    ("1. (c)\n2. (a)\n3. (d)\n4. (b)\nNivel de certeza: muy seguro", "cadb/very_sure"),
    ("Mejor: (c)\nSegundo: (a)\nTercero: (d)\nPeor: (b)\nCerteza: seguro", "cadb/sure"),
    (
        "| Puesto | Principio |\n|---|---|\n| 1 | (c) |\n| 2 | (a) |\n| 3 | (d) |\n| 4 | (b) |\n"
        "Certeza: seguro",
        "cadb/sure",
    ),
    (
        "Creo que (c) es el mejor principio, seguido de (a), luego (d) y por último (b). "
        "Certeza: seguro",
        "cadb/sure",
    ),
]

UNDECIDED_RANKINGS = [
    "Mi ranking: 3, 1, 4, 2. Certeza: seguro",
    "1. (c)\n2. (a)\n3. (d)\n4. (b)\nCerteza: seguro\nCerteza: muy inseguro",
    "(c) y (a) empatados en primer lugar, luego (d) y (b). Certeza: seguro",
    "En orden inverso: (b), (d), (a), (c). Certeza: seguro",
    "(a), (b), (c), (d)\nCerteza: seguro",
    "(c) primero, (a) segundo. Certeza: seguro",
    "1. (c)\n2. (a)\n3. (d)\n4. (b)\nCerteza: ni seguro ni inseguro",  # a label, unread value
    "1. (c)\n2. (a)\n3. (d)\n4. (b)\nCerteza: seguro\n(b) es la mejor opción.",
]


@pytest.mark.parametrize(("text", "value"), RANKINGS)
def test_spanish_rankings(text: str, value: str) -> None:
    assert parse_ranking(text) == _ranking(value)


@pytest.mark.parametrize("text", UNDECIDED_RANKINGS)
def test_spanish_rankings_that_the_parser_cannot_settle(text: str) -> None:
    result = parse_ranking(text)
    assert isinstance(result, Undecided), result


def test_a_spanish_ranking_without_certainty_is_invalid() -> None:
    assert isinstance(parse_ranking("1. (c)\n2. (a)\n3. (d)\n4. (b)"), Invalid)


@pytest.mark.parametrize(
    ("line", "level"),
    [
        ("Certeza: muy inseguro", "very_unsure"),
        ("Certeza: muy insegura", "very_unsure"),
        ("Certeza: inseguro", "unsure"),
        ("Certeza: insegura", "unsure"),
        ("Certeza: sin opinión", "no_opinion"),
        ("Certeza: sin opinion", "no_opinion"),
        ("Certeza: seguro", "sure"),
        ("Certeza: segura", "sure"),
        ("Certeza: muy seguro", "very_sure"),
        ("Seguridad: muy segura", "very_sure"),
        ("Estoy bastante seguro.", "sure"),
        ("No estoy seguro.", "unsure"),
        ("No estoy nada segura.", "very_unsure"),
        ("No tengo opinión.", "no_opinion"),
        ("Me siento muy inseguro.", "very_unsure"),
        ("Estoy algo inseguro.", "unsure"),
        ("Certeza: 4/5 (seguro)", "sure"),
        ("(seguro)", "sure"),
        ("Muy seguro.", "very_sure"),
    ],
)
def test_spanish_certainty_words(line: str, level: str) -> None:
    assert parse_ranking(f"1. (c)\n2. (a)\n3. (d)\n4. (b)\n{line}") == _ranking(f"cadb/{level}")


def test_sure_that_is_not_a_certainty() -> None:
    # "Estoy seguro de que ..." is about something else; "segura" as "safe" neither.
    for text in (
        "1. (c)\n2. (a)\n3. (d)\n4. (b)\nEstoy seguro de que (c) es la más justa.",
        "1. (c)\n2. (a)\n3. (d)\n4. (b)\n(a) es la opción más segura.",
    ):
        assert isinstance(parse_ranking(text), Invalid), text


# ------------------------------------------------------------------------------ polls

POLLS = [
    ("Sí.", True),
    ("Sí, votemos ahora.", True),
    ("Si, creo que estamos listos.", True),
    ("De acuerdo.", True),
    ("Estoy de acuerdo, votemos.", True),
    ("Claro, ya lo hemos discutido bastante.", True),
    ("¡Claro que sí!", True),
    ("Vale.", True),
    ("Por supuesto.", True),
    ("No hay problema, votemos.", True),
    ("¿Por qué no? Ya hemos hablado suficiente.", True),
    ("Respuesta: sí", True),
    ("No.", False),
    ("No, todavía no.", False),
    ("Todavía no, necesitamos discutir más.", False),
    ("Aún no estoy listo.", False),
    ("No estoy de acuerdo, falta discutir el piso.", False),
    ("Respuesta: no", False),
    ("Prefiero esperar una ronda más.", False),
    ("No veo por qué no.", True),
    ("Estoy listo para votar.", True),
    ("Todavía no estoy listo para votar.", False),
    ("¡Claro que no!", False),
    ("Afirmativo.", True),
    ("Está bien, votemos.", True),
    ("Estoy de acuerdo en votar ahora.", True),
]

UNDECIDED_POLLS = [
    "Si todos están de acuerdo, votemos.",
    "Si estamos listos, sí.",
    "Sí, pero prefiero seguir discutiendo un poco más.",
    "Quizás.",
    "Tal vez más tarde.",
    "Depende de lo que digan los demás.",
    "De acuerdo con Ana en que necesitamos más tiempo.",
    "Sí, aunque no estoy seguro.",
    "No lo sé.",
    "No hay prisa.",
    "No, votemos ahora.",
]


@pytest.mark.parametrize(("text", "value"), POLLS)
def test_spanish_poll_answers(text: str, value: bool) -> None:
    assert parse_poll_answer(text) == Parsed(value)


@pytest.mark.parametrize("text", UNDECIDED_POLLS)
def test_spanish_poll_answers_that_the_parser_cannot_settle(text: str) -> None:
    result = parse_poll_answer(text)
    assert isinstance(result, Undecided), result


# ------------------------------------------------------------------------------ proposals


def test_the_spanish_proposal_phrase() -> None:
    phrase = VOTE_PROPOSAL_PHRASES["es"]
    assert phrase == "PROPONGO UNA VOTACIÓN"
    assert parse_vote_proposal(f"Creo que (c) nos une a todos.\n{phrase}")
    assert parse_vote_proposal("Ya está todo dicho.\nPropongo una votación.")
    assert parse_vote_proposal("Ya está todo dicho.\nPROPONGO UNA VOTACION")
    assert parse_vote_proposal("Listo.\n**¡Propongo una votación!**")


def test_spanish_proposals_that_do_not_count() -> None:
    for text in (
        "Creo que (c) nos une. PROPONGO UNA VOTACIÓN",  # not on its own line
        'Ana escribió:\n"PROPONGO UNA VOTACIÓN"\nYo no estoy de acuerdo.',  # a quotation
        "> PROPONGO UNA VOTACIÓN\nTodavía no.",  # a blockquote
        "Propongo una votación sobre (c).",  # a longer line
        "Quizás deberíamos votar pronto.",
    ):
        assert not parse_vote_proposal(text), text


# ------------------------------------------------------------------------------ amounts


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12.000 dólares", 12000),
        ("12 mil", 12000),
        ("12 mil dólares", 12000),
        ("$12.000", 12000),
        ("US$ 12.000", 12000),
        ("12.5 mil", 12500),
        ("12,5 mil dólares", 12500),
        ("12.000 USD", 12000),
        ("1.500.000 dólares", 1500000),
        ("13 mil 500 dólares", 13500),
        ("13 mil quinientos dólares", None),
        ("12.000", None),  # no money mark, no context: twelve thousand or twelve
        ("entre 12.000 y 13.000 dólares", None),
    ],
)
def test_spanish_amounts(text: str, value: int | None) -> None:
    assert parse_amount(text) == value
