"""Every sentence the simulated participant can say, in one place per language.

Templates use ``str.format`` fields. The machine-readable parts (principle letters in
parentheses, amounts, the numbered ranking, the certainty line, the vote-proposal line) are
produced by ``render.py`` from the forms given here (``money``, ``certainty_line``,
``proposal_line``), in the spelling each language's parsers read: ``$13,000`` /
``$13.000`` / ``13,000美元``, ``Certainty:`` / ``Certeza:`` / ``确定程度：``, ``I PROPOSE A
VOTE`` / ``PROPONGO UNA VOTACIÓN`` / ``我提议投票``. English, Spanish and Mandarin are
``PHRASES``' entries; a language is one more ``Phrases`` instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from maai.domain.frohlich.types import Certainty, Principle

A, B = Principle.FLOOR, Principle.AVERAGE
C, D = Principle.FLOOR_CONSTRAINT, Principle.RANGE_CONSTRAINT


@dataclass(frozen=True)
class Phrases:
    titles: Mapping[Principle, str]  # "Maximizing the floor income" (sentence case)
    short: Mapping[Principle, str]  # "maximizing the floor" (inside a sentence)
    nicknames: Mapping[Principle, str]  # "floor constraint", for answers that omit the letter
    constraint_nouns: Mapping[Principle, str]  # "floor" / "range", for "(c) with a floor of $X"
    certainty: Mapping[Certainty, str]
    ranking_intro: tuple[str, ...]
    ranking_outro: tuple[str, ...]
    ranking_unreadable: tuple[str, ...]
    reasons: Mapping[Principle, tuple[str, ...]]
    doubts: Mapping[Principle, tuple[str, ...]]
    retry: tuple[str, ...]
    choice: tuple[str, ...]
    choice_missing_amount: tuple[str, ...]
    choice_unreadable: tuple[str, ...]
    stance_keep: tuple[str, ...]
    stance_switch: tuple[str, ...]
    reply_agree: tuple[str, ...]
    reply_disagree: tuple[str, ...]
    reply_tally: tuple[str, ...]
    close_near: tuple[str, ...]
    close_far: tuple[str, ...]
    proposal_line: str
    reasoning_open: tuple[str, ...]
    reasoning_camp: str
    reasoning_none: tuple[str, ...]
    reasoning_keep: tuple[str, ...]
    reasoning_switch: tuple[str, ...]
    reasoning_near: tuple[str, ...]
    reasoning_far: tuple[str, ...]
    poll_yes: tuple[str, ...]
    poll_no: tuple[str, ...]
    poll_unclear: tuple[str, ...]
    ballot: tuple[str, ...]
    ballot_missing_amount: tuple[str, ...]
    memory_ranking: str
    memory_choice: str
    memory_round: str
    memory_step: str
    memory_round_label: str
    memory_ramble: tuple[str, ...]
    memory_unknown: str
    memory_heard: str
    memory_keywords: tuple[str, ...]  # what makes an outcome sentence worth remembering
    list_and: str
    money: str  # "${number}"
    thousands_separator: str
    certainty_line: str  # "Certainty: {certainty}"
    position: str  # "({letter}) {short}"
    position_amount: str  # "({letter}) {short} of {amount}"
    ballot_amount: str  # "({letter}) with a {noun} of {amount}"


EN = Phrases(
    titles={
        A: "Maximizing the floor income",
        B: "Maximizing the average income",
        C: "Maximizing the average income with a floor constraint",
        D: "Maximizing the average income with a range constraint",
    },
    short={
        A: "maximizing the floor income",
        B: "maximizing the average income",
        C: "maximizing the average income with a floor constraint",
        D: "maximizing the average income with a range constraint",
    },
    nicknames={A: "floor", B: "average", C: "floor constraint", D: "range constraint"},
    constraint_nouns={C: "floor", D: "range"},
    certainty={
        Certainty.VERY_UNSURE: "very unsure",
        Certainty.UNSURE: "unsure",
        Certainty.NO_OPINION: "no opinion",
        Certainty.SURE: "sure",
        Certainty.VERY_SURE: "very sure",
    },
    ranking_intro=(
        "Here is my ranking of the four principles, from best to worst:",
        "After thinking it over, this is how I rank the principles:",
        "My ranking, best first:",
        "This is my order of preference:",
    ),
    ranking_outro=(
        "That is where I stand for now.",
        "I may refine this as I learn more.",
        "This reflects how I weigh fairness against total income.",
        "",
    ),
    ranking_unreadable=(
        "I lean toward ({x}) {x_title} over ({y}) {y_title}, but I have not made up my mind "
        "about the rest.",
        "Honestly, ({x}) and ({y}) both appeal to me; the others matter less.",
    ),
    reasons={
        A: (
            "Nobody should be left at the bottom without protection.",
            "I would rather be safe if I end up in the lowest class.",
            "The welfare of the worst-off person matters most to me.",
        ),
        B: (
            "A larger total income leaves more for everyone on average.",
            "I care about the expected income, and the odds favour the middle classes.",
            "Growth in the total benefits the society as a whole.",
        ),
        C: (
            "A guaranteed minimum protects the poorest while we still aim for a high average.",
            "It balances security at the bottom with a good income overall.",
            "With a safety net in place, I am comfortable aiming for a high average.",
        ),
        D: (
            "Keeping the gap between rich and poor limited feels fair to me.",
            "A bounded range keeps society cohesive while the average stays high.",
            "Large inequalities worry me more than a slightly lower average.",
        ),
    },
    doubts={
        A: (
            "focusing only on the floor gives up a lot of average income.",
            "the floor alone ignores everyone above the bottom.",
        ),
        B: (
            "the pure average can leave the poorest with very little.",
            "the pure average offers no protection at the bottom.",
        ),
        C: (
            "the right floor is hard to agree on.",
            "a floor constraint still allows wide inequality above it.",
        ),
        D: (
            "a range constraint can hold back incomes without helping the poorest.",
            "the right range is hard to agree on.",
        ),
    },
    retry=(
        "Sorry, let me state it clearly.",
        "You are right; here is my complete answer.",
        "Apologies for the confusion.",
    ),
    choice=(
        "I choose {position}.",
        "My choice is {position}.",
        "I'll go with {position}.",
    ),
    choice_missing_amount=(
        "I choose the {nickname} principle.",
        "My choice is ({letter}) {short}.",
    ),
    choice_unreadable=(
        "I am torn between {x_short} and {y_short}; both have merit.",
        "It is hard to decide between ({x}) and ({y}) for this table.",
    ),
    stance_keep=(
        "I support {position}.",
        "I still support {position}.",
        "My position remains {position}.",
    ),
    stance_switch=(
        "After listening to the group, I now support {position}.",
        "I have been persuaded: I support {position}.",
        "To move us toward agreement, I support {position}.",
    ),
    reply_agree=(
        "{name}, I agree with you on this.",
        "Like {name}, I think this is the fairest option.",
        "{name} made a good case, and I share it.",
    ),
    reply_disagree=(
        "{name}, I see why you favour ({letter}) {short}, but {doubt}",
        "{name}, I understand your argument for ({letter}), but {doubt}",
    ),
    reply_tally=(
        "The last ballot showed we are split, so let us look for common ground.",
        "The ballot result tells me we are not there yet.",
    ),
    close_near=(
        "Most of us seem to be converging on this.",
        "I think we are close to an agreement.",
    ),
    close_far=(
        "I hope we can keep talking and find common ground.",
        "I am open to hearing more arguments.",
    ),
    proposal_line="I PROPOSE A VOTE",
    reasoning_open=("Round {round} of {rounds}.", "We are in round {round} of {rounds}."),
    reasoning_camp="{names} argued for {position}.",
    reasoning_none=(
        "Nobody has stated a position yet.",
        "I am among the first to speak, so I cannot read the group yet.",
    ),
    reasoning_keep=(
        "I still prefer {position}. {reason}",
        "My preference remains {position}. {reason}",
    ),
    reasoning_switch=(
        "The group leans toward {position}, and I am willing to go along with it.",
        "I will move to {position}; agreement matters more than my first choice.",
    ),
    reasoning_near=(
        "The group seems close to agreement, so it may be time to settle this by ballot.",
        "Most of us agree; I would like us to decide soon.",
    ),
    reasoning_far=(
        "We are still far apart, so I will keep making my case.",
        "There is no majority yet; I need to argue my position carefully.",
    ),
    poll_yes=(
        "Yes, let's hold the vote now.",
        "Yes, I am ready to vote.",
        "Yes. We have discussed enough to decide.",
    ),
    poll_no=(
        "No, I think we need more discussion.",
        "No, not yet; I would like to hear more arguments first.",
        "No. We are still too divided.",
    ),
    poll_unclear=(
        "Hmm, I could go either way on that.",
        "I am not certain what the group wants at this point.",
    ),
    ballot=("My vote: {ballot}.", "I vote for {ballot}."),
    ballot_missing_amount=(
        "My vote: ({letter}) {short}.",
        "I vote for the {nickname} principle.",
    ),
    memory_ranking="[{label}] I ranked {order}; certainty: {certainty}.",
    memory_choice="[{label}] I chose {position}.",
    memory_round="[{label}] I argued for {position}.",
    memory_step="[{label}]",
    memory_round_label="{step} round {round}",
    memory_ramble=(
        "I keep thinking about how each principle treats the people at the bottom.",
        "The probabilities of the classes matter a great deal for my expected payoff.",
        "I want to remember every detail of this step in case it matters later.",
        "My bank balance depends on the choices of the group as well as my own.",
    ),
    memory_unknown="not stated",
    memory_heard="Positions heard: {positions}.",
    memory_keywords=("payoff", "agreed", "agreement", "ballot"),
    list_and="{head} and {last}",
    money="${number}",
    thousands_separator=",",
    certainty_line="Certainty: {certainty}",
    position="({letter}) {short}",
    position_amount="({letter}) {short} of {amount}",
    ballot_amount="({letter}) with a {noun} of {amount}",
)

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

ZH = Phrases(
    titles={
        A: "最大化最低收入",
        B: "最大化平均收入",
        C: "在最低收入限制下最大化平均收入",
        D: "在收入范围限制下最大化平均收入",
    },
    short={
        A: "最大化最低收入",
        B: "最大化平均收入",
        C: "在最低收入限制下最大化平均收入",
        D: "在收入范围限制下最大化平均收入",
    },
    nicknames={A: "最低收入", B: "平均收入", C: "最低收入限制", D: "收入范围限制"},
    constraint_nouns={C: "最低收入", D: "收入范围"},
    certainty={
        Certainty.VERY_UNSURE: "非常不确定",
        Certainty.UNSURE: "不确定",
        Certainty.NO_OPINION: "无意见",
        Certainty.SURE: "确定",
        Certainty.VERY_SURE: "非常确定",
    },
    ranking_intro=(
        "这是我对四条原则从最好到最差的排序：",
        "仔细考虑之后，我这样排列这些原则：",
        "我的排序，最好的在前：",
        "这是我的偏好顺序：",
    ),
    ranking_outro=(
        "这是我目前的立场。",
        "了解更多之后我可能会调整。",
        "这反映了我如何在公平和总收入之间权衡。",
        "",
    ),
    ranking_unreadable=(
        "比起 ({y}) {y_title}，我更倾向于 ({x}) {x_title}，但其余的我还没有想好。",
        "老实说，({x}) 和 ({y}) 都吸引我；其他的没那么重要。",
    ),
    reasons={
        A: (
            "不应该让任何人在底层得不到保护。",
            "如果我落到最低的阶层，我希望自己是安全的。",
            "我最看重境况最差的人的福利。",
        ),
        B: (
            "总收入越高，平均而言每个人得到的就越多。",
            "我关心预期收入，而概率对中间阶层更有利。",
            "总收入的增长让整个社会受益。",
        ),
        C: (
            "有保障的最低收入既保护最穷的人，又能追求较高的平均收入。",
            "它在底层的安全和整体的良好收入之间取得平衡。",
            "有了安全网，我愿意追求较高的平均收入。",
        ),
        D: (
            "限制贫富差距让我觉得公平。",
            "有限的收入范围能让社会保持凝聚，同时平均收入依然较高。",
            "比起略低的平均收入，巨大的不平等更让我担心。",
        ),
    },
    doubts={
        A: (
            "只关注最低收入会牺牲很多平均收入。",
            "只看底层会忽略底层以上的所有人。",
        ),
        B: (
            "单纯追求平均收入可能让最穷的人所得很少。",
            "单纯追求平均收入对底层没有任何保护。",
        ),
        C: (
            "合适的最低收入很难达成一致。",
            "最低收入限制之上仍然允许很大的不平等。",
        ),
        D: (
            "收入范围限制可能压低收入，却帮不了最穷的人。",
            "合适的收入范围很难达成一致。",
        ),
    },
    retry=(
        "抱歉，我说得清楚一些。",
        "你说得对；这是我完整的回答。",
        "抱歉造成了混乱。",
    ),
    choice=(
        "我选择 {position}。",
        "我的选择是 {position}。",
        "我选 {position}。",
    ),
    choice_missing_amount=(
        "我选择{nickname}原则。",
        "我的选择是 ({letter}) {short}。",
    ),
    choice_unreadable=(
        "我在{x_short}和{y_short}之间犹豫不决；两者都有道理。",
        "面对这张表，我很难在 ({x}) 和 ({y}) 之间做决定。",
    ),
    stance_keep=(
        "我支持 {position}。",
        "我仍然支持 {position}。",
        "我的立场仍然是 {position}。",
    ),
    stance_switch=(
        "听了大家的意见之后，我现在支持 {position}。",
        "我被说服了：我支持 {position}。",
        "为了让我们更接近一致，我支持 {position}。",
    ),
    reply_agree=(
        "{name}，在这一点上我同意你。",
        "和 {name} 一样，我认为这是最公平的选择。",
        "{name} 的理由很好，我也这么认为。",
    ),
    reply_disagree=(
        "{name}，我明白你为什么倾向于 ({letter}) {short}，但是{doubt}",
        "{name}，我理解你支持 ({letter}) 的理由，但是{doubt}",
    ),
    reply_tally=(
        "上一次投票显示我们意见不一，所以让我们寻找共同点。",
        "投票结果告诉我，我们还没有达成一致。",
    ),
    close_near=(
        "我们大多数人似乎正在向这个方向靠拢。",
        "我觉得我们已经接近达成一致了。",
    ),
    close_far=(
        "希望我们继续讨论，找到共同点。",
        "我愿意听取更多的理由。",
    ),
    proposal_line="我提议投票",
    reasoning_open=("第 {round} 轮，共 {rounds} 轮。", "现在是第 {round} 轮，共 {rounds} 轮。"),
    reasoning_camp="{names} 主张 {position}。",
    reasoning_none=(
        "还没有人表明立场。",
        "我是最早发言的人之一，所以还看不出小组的倾向。",
    ),
    reasoning_keep=(
        "我仍然倾向于 {position}。{reason}",
        "我的偏好仍然是 {position}。{reason}",
    ),
    reasoning_switch=(
        "小组倾向于 {position}，我愿意跟随。",
        "我会转向 {position}；达成一致比我的第一选择更重要。",
    ),
    reasoning_near=(
        "小组似乎接近一致，也许是时候通过投票来决定了。",
        "我们大多数人意见一致；我希望尽快做出决定。",
    ),
    reasoning_far=(
        "我们的分歧仍然很大，所以我会继续阐述我的理由。",
        "还没有形成多数；我需要认真论证我的立场。",
    ),
    poll_yes=(
        "是，我们现在就投票吧。",
        "是，我准备好投票了。",
        "是。我们已经讨论得足够多，可以做决定了。",
    ),
    poll_no=(
        "否，我认为我们还需要更多讨论。",
        "否，还不行；我想先听听更多的理由。",
        "否。我们的分歧仍然太大。",
    ),
    poll_unclear=(
        "嗯，两种做法我都可以接受。",
        "我现在不太清楚小组想要什么。",
    ),
    ballot=("我的投票：{ballot}。", "我投票给 {ballot}。"),
    ballot_missing_amount=(
        "我的投票：({letter}) {short}。",
        "我投票给{nickname}原则。",
    ),
    memory_ranking="[{label}] 我的排序是 {order}；确定程度：{certainty}。",
    memory_choice="[{label}] 我选择了 {position}。",
    memory_round="[{label}] 我主张 {position}。",
    memory_step="[{label}]",
    memory_round_label="{step} 第 {round} 轮",
    memory_ramble=(
        "我一直在想每条原则如何对待底层的人。",
        "各阶层的概率对我的预期报酬非常重要。",
        "我想记住这一步的每个细节，以防以后用得上。",
        "我的银行余额既取决于我自己的选择，也取决于小组的选择。",
    ),
    memory_unknown="未说明",
    memory_heard="听到的立场：{positions}。",
    memory_keywords=("报酬", "一致", "同意", "投票"),
    list_and="{head}和{last}",
    money="{number}美元",
    thousands_separator=",",
    certainty_line="确定程度：{certainty}",
    position="({letter}) {short}",
    position_amount="({letter}) {short}，金额为 {amount}",
    ballot_amount="({letter}) {noun}为 {amount}",
)


PHRASES: Mapping[str, Phrases] = {"en": EN, "es": ES, "zh": ZH}


def phrases_for(language: str) -> Phrases:
    try:
        return PHRASES[language]
    except KeyError:
        known = ", ".join(sorted(PHRASES))
        raise ValueError(
            f"the simulated participant has no phrases for {language!r} ({known})"
        ) from None
