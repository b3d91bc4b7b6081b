"""Every sentence the simulated participant can say in Mandarin (a ``Phrases`` instance; data
only, the form is ``phrases.Phrases``)."""

from __future__ import annotations

from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.types import Certainty, Principle

A, B = Principle.FLOOR, Principle.AVERAGE
C, D = Principle.FLOOR_CONSTRAINT, Principle.RANGE_CONSTRAINT

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
