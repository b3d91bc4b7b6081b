"""Every sentence the simulated participant can say in Spanish (a ``Phrases`` instance; data
only, the form is ``phrases.Phrases``)."""

from __future__ import annotations

from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.types import Certainty, Principle

A, B = Principle.FLOOR, Principle.AVERAGE
C, D = Principle.FLOOR_CONSTRAINT, Principle.RANGE_CONSTRAINT

ES = Phrases(
    titles={
        A: "Maximizar el ingreso mínimo",
        B: "Maximizar el ingreso promedio",
        C: "Maximizar el ingreso promedio con un mínimo garantizado",
        D: "Maximizar el ingreso promedio con un límite al rango",
    },
    short={
        A: "maximizar el ingreso mínimo",
        B: "maximizar el ingreso promedio",
        C: "maximizar el ingreso promedio con un mínimo garantizado",
        D: "maximizar el ingreso promedio con un límite al rango",
    },
    nicknames={
        A: "ingreso mínimo",
        B: "ingreso promedio",
        C: "mínimo garantizado",
        D: "límite al rango",
    },
    constraint_nouns={C: "un mínimo garantizado", D: "un límite al rango"},
    certainty={
        Certainty.VERY_UNSURE: "muy inseguro",
        Certainty.UNSURE: "inseguro",
        Certainty.NO_OPINION: "sin opinión",
        Certainty.SURE: "seguro",
        Certainty.VERY_SURE: "muy seguro",
    },
    ranking_intro=(
        "Este es mi orden de los cuatro principios, del mejor al peor:",
        "Después de pensarlo, así ordeno los principios:",
        "Mi orden, empezando por el mejor:",
        "Este es mi orden de preferencia:",
    ),
    ranking_outro=(
        "Esa es mi posición por ahora.",
        "Quizá lo ajuste cuando sepa más.",
        "Esto refleja cómo sopeso la equidad frente al ingreso total.",
        "",
    ),
    ranking_unreadable=(
        "Me inclino por ({x}) {x_title} antes que por ({y}) {y_title}, pero no he decidido "
        "el resto.",
        "Sinceramente, ({x}) y ({y}) me atraen por igual; los demás me importan menos.",
    ),
    reasons={
        A: (
            "Nadie debería quedar abajo sin protección.",
            "Prefiero estar a salvo si termino en la clase más baja.",
            "Lo que más me importa es el bienestar de la persona en peor situación.",
        ),
        B: (
            "Un ingreso total mayor deja más para todos en promedio.",
            "Me importa el ingreso esperado, y las probabilidades favorecen a las clases medias.",
            "El crecimiento del total beneficia a la sociedad en su conjunto.",
        ),
        C: (
            "Un mínimo garantizado protege a los más pobres sin renunciar a un promedio alto.",
            "Equilibra la seguridad de los de abajo con un buen ingreso general.",
            "Con una red de seguridad, me siento cómodo buscando un promedio alto.",
        ),
        D: (
            "Limitar la brecha entre ricos y pobres me parece justo.",
            "Un rango acotado mantiene unida a la sociedad y el promedio sigue alto.",
            "Las grandes desigualdades me preocupan más que un promedio algo más bajo.",
        ),
    },
    doubts={
        A: (
            "fijarse solo en el ingreso más bajo sacrifica mucho ingreso promedio.",
            "atender solo a los de abajo ignora a todos los demás.",
        ),
        B: (
            "el promedio puro puede dejar a los más pobres con muy poco.",
            "el promedio puro no ofrece ninguna protección abajo.",
        ),
        C: (
            "es difícil ponernos de acuerdo en el mínimo adecuado.",
            "un mínimo garantizado todavía permite mucha desigualdad por encima.",
        ),
        D: (
            "un límite al rango puede frenar ingresos sin ayudar a los más pobres.",
            "es difícil ponernos de acuerdo en el rango adecuado.",
        ),
    },
    retry=(
        "Perdón, lo digo con claridad.",
        "Tienen razón; esta es mi respuesta completa.",
        "Disculpen la confusión.",
    ),
    choice=(
        "Elijo {position}.",
        "Mi elección es {position}.",
        "Me quedo con {position}.",
    ),
    choice_missing_amount=(
        "Elijo el principio del {nickname}.",
        "Mi elección es ({letter}) {short}.",
    ),
    choice_unreadable=(
        "Dudo entre {x_short} y {y_short}; ambos tienen mérito.",
        "Me cuesta decidir entre ({x}) y ({y}) con esta tabla.",
    ),
    stance_keep=(
        "Apoyo {position}.",
        "Sigo apoyando {position}.",
        "Mi posición sigue siendo {position}.",
    ),
    stance_switch=(
        "Después de escuchar al grupo, ahora apoyo {position}.",
        "Me han convencido: apoyo {position}.",
        "Para acercarnos a un acuerdo, apoyo {position}.",
    ),
    reply_agree=(
        "{name}, estoy de acuerdo contigo en esto.",
        "Como {name}, creo que esta es la opción más justa.",
        "{name} dio un buen argumento, y lo comparto.",
    ),
    reply_disagree=(
        "{name}, entiendo por qué prefieres ({letter}) {short}, pero {doubt}",
        "{name}, comprendo tu argumento a favor de ({letter}), pero {doubt}",
    ),
    reply_tally=(
        "La última votación mostró que estamos divididos, así que busquemos un terreno común.",
        "El resultado de la votación me dice que todavía no llegamos.",
    ),
    close_near=(
        "La mayoría parece estar convergiendo en esto.",
        "Creo que estamos cerca de un acuerdo.",
    ),
    close_far=(
        "Espero que sigamos hablando y encontremos un terreno común.",
        "Estoy dispuesto a escuchar más argumentos.",
    ),
    proposal_line="PROPONGO UNA VOTACIÓN",
    reasoning_open=("Ronda {round} de {rounds}.", "Estamos en la ronda {round} de {rounds}."),
    reasoning_camp="A favor de {position}: {names}.",
    reasoning_none=(
        "Nadie ha expresado una posición todavía.",
        "Estoy entre los primeros en hablar, así que aún no puedo leer al grupo.",
    ),
    reasoning_keep=(
        "Sigo prefiriendo {position}. {reason}",
        "Mi preferencia sigue siendo {position}. {reason}",
    ),
    reasoning_switch=(
        "El grupo se inclina por {position}, y estoy dispuesto a acompañarlo.",
        "Me pasaré a {position}; el acuerdo importa más que mi primera opción.",
    ),
    reasoning_near=(
        "El grupo parece cerca de un acuerdo, así que quizá sea hora de decidir por votación.",
        "La mayoría estamos de acuerdo; me gustaría que decidiéramos pronto.",
    ),
    reasoning_far=(
        "Todavía estamos lejos, así que seguiré defendiendo mi postura.",
        "Aún no hay mayoría; necesito argumentar mi posición con cuidado.",
    ),
    poll_yes=(
        "Sí, votemos ahora.",
        "Sí, estoy listo para votar.",
        "Sí. Ya hemos discutido lo suficiente para decidir.",
    ),
    poll_no=(
        "No, creo que necesitamos más discusión.",
        "No, todavía no; primero quiero escuchar más argumentos.",
        "No. Seguimos demasiado divididos.",
    ),
    poll_unclear=(
        "Mmm, podría ir en cualquier dirección.",
        "Me cuesta saber qué quiere el grupo en este momento.",
    ),
    ballot=("Mi voto: {ballot}.", "Voto por {ballot}."),
    ballot_missing_amount=(
        "Mi voto: ({letter}) {short}.",
        "Voto por el principio del {nickname}.",
    ),
    memory_ranking="[{label}] Ordené {order}; certeza: {certainty}.",
    memory_choice="[{label}] Elegí {position}.",
    memory_round="[{label}] Defendí {position}.",
    memory_step="[{label}]",
    memory_round_label="{step} ronda {round}",
    memory_ramble=(
        "Sigo pensando en cómo trata cada principio a las personas de abajo.",
        "Las probabilidades de las clases importan mucho para mi pago esperado.",
        "Quiero recordar cada detalle de este paso por si importa más adelante.",
        "Mi saldo bancario depende de las decisiones del grupo además de las mías.",
    ),
    memory_unknown="no indicada",
    memory_heard="Posiciones escuchadas: {positions}.",
    memory_keywords=("pago", "acordó", "acuerdo", "votación"),
    list_and="{head} y {last}",
    money="${number}",
    thousands_separator=".",
    certainty_line="Certeza: {certainty}",
    position="({letter}) {short}",
    position_amount="({letter}) {short} de {amount}",
    ballot_amount="({letter}) con {noun} de {amount}",
)
