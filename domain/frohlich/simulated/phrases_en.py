"""Every sentence the simulated participant can say in English (a ``Phrases`` instance; data
only, the form is ``phrases.Phrases``)."""

from __future__ import annotations

from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.types import Certainty, Principle

A, B = Principle.FLOOR, Principle.AVERAGE
C, D = Principle.FLOOR_CONSTRAINT, Principle.RANGE_CONSTRAINT

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
