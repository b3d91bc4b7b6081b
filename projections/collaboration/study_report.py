"""The collaboration game's sections of ``maai study report`` (docs/studies.md, "Report"; the
rules: docs/collaboration.md): the collaboration rate and the mismatch rate against the
u-value, each with Wilson 95% intervals and the reference threshold u* drawn across, and the
belief trajectories averaged by condition.

Built from the game's table rows (decisions, outcome, beliefs: the same read models as its
CSV export), per run; then counted per u-value. The game's study report uses no reference
distribution (``Collaboration.reference_statistics`` is empty)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from maai.domain.study import Reference
from maai.projections.charts import Line, Rule, line_chart, num
from maai.projections.collaboration import facts
from maai.projections.history import History
from maai.projections.markup import figures, join, paragraph, table
from maai.projections.report import Section
from maai.projections.statistics import mean_interval, wilson_interval
from maai.projections.study_report import StudyRun

Row = dict[str, Any]


@dataclass
class Tally:
    """Successes out of trials at one u-value, for one line."""

    successes: int = 0
    trials: int = 0

    def add(self, success: bool) -> None:
        self.successes += int(success)
        self.trials += 1


@dataclass
class Rates:
    """Per line (the other factors' values) and u-value: collaborative decisions out of the
    decisions made, and mismatched pairs out of the pairs that both decided."""

    collaborate: dict[str, dict[float, Tally]] = field(default_factory=dict)
    mismatch: dict[str, dict[float, Tally]] = field(default_factory=dict)
    unequal_u: int = 0  # runs whose agents have different u-values: no single u for the pair

    def tally(self, kind: dict[str, dict[float, Tally]], line: str, u: float) -> Tally:
        return kind.setdefault(line, {}).setdefault(u, Tally())


def thresholds(history: History) -> list[float]:
    """Each agent's u*: the lowest u* of its collaborative options, the belief above which
    some collaborative option pays more in expectation than the individual one
    (docs/collaboration.md §1)."""
    config = facts.config_of(history)
    if config is None:
        return []
    found = []
    for agent in config.agent_names():
        stars = [facts.option_u_star(config, agent, o) for o in config.options_of(agent)]
        known = [s for s in stars if s is not None]
        if known:
            found.append(min(known))
    return found


def line_of(run: StudyRun) -> str:
    """The run's condition without its u-value factors: one line per such condition."""
    rest = {k: v for k, v in run.factors.items() if not k.endswith("u_value")}
    return ", ".join(f"{k}={v}" for k, v in rest.items()) or "all runs"


def count_rates(runs: Sequence[StudyRun]) -> Rates:
    rates = Rates()
    for run in runs:
        history = run.history
        if history.experiment is None or history.config is None:
            continue
        rows: dict[str, list[Row]] = history.experiment.views().table_rows(history)
        line = line_of(run)
        u_values = {d["agent"]: d["u_value"] for d in rows["decisions"]}
        made = [d for d in rows["decisions"] if d["strategy"] is not None]
        for decision in made:
            rates.tally(rates.collaborate, line, decision["u_value"]).add(
                decision["strategy"] == "collaborative"
            )
        outcome = rows["outcome"][0] if rows["outcome"] else {}
        if outcome.get("mismatch") is None:
            continue
        if len(set(u_values.values())) != 1:
            rates.unequal_u += 1
            continue
        (u,) = set(u_values.values())
        rates.tally(rates.mismatch, line, u).add(bool(outcome["mismatch"]))
    return rates


def study_report(runs: Sequence[StudyRun], reference: Reference | None) -> list[Section]:
    rates = count_rates(runs)
    stars = sorted({star for run in runs for star in thresholds(run.history)})
    return [rates_section(rates, stars), beliefs_section(runs)]


def _lines(kind: dict[str, dict[float, Tally]]) -> list[Line]:
    lines = []
    for label, by_u in kind.items():
        points = sorted(by_u.items())
        lines.append(
            Line(
                label,
                [(u, t.successes / t.trials) for u, t in points],
                intervals=[(u, *wilson_interval(t.successes, t.trials)) for u, t in points],
                counts=[(u, t.trials) for u, t in points],
            )
        )
    return lines


def rates_section(rates: Rates, stars: list[float]) -> Section:
    rules = [Rule(star, f"u* = {star:.3f}") for star in stars]
    plots = [
        line_chart(
            "collaboration-rate",
            "Collaboration rate by u (95% Wilson intervals)",
            _lines(rates.collaborate),
            x_label="u-value",
            y_label="share of decisions collaborative",
            y_range=(0, 1),
            rules=rules,
        ),
        line_chart(
            "mismatch-rate",
            "Mismatch rate by u (95% Wilson intervals)",
            _lines(rates.mismatch),
            x_label="u-value (both agents)",
            y_label="share of pairs whose strategies differ",
            y_range=(0, 1),
            rules=rules,
        ),
    ]
    rows = []
    for line, by_u in rates.collaborate.items():
        for u, tally in sorted(by_u.items()):
            pairs = rates.mismatch.get(line, {}).get(u)
            rows.append((line, num(u), *_cells(tally), *(_cells(pairs) if pairs else ("—",) * 3)))
    columns = ["condition", "u", "decisions", "collaborative", "rate [95% CI]"]
    columns += ["pairs", "mismatched", "rate [95% CI]"]
    words = [
        "Collaboration rate: the decisions that chose a collaborative option over the decisions "
        "made (a missing decision counts in neither), by the deciding agent's u-value. "
        "Mismatch rate: the pairs whose strategies differ over the pairs where both decided, by "
        "the u-value both agents were given. Intervals: Wilson's 95% score interval. The red "
        "line marks u*, the belief above which the best collaborative option pays more in "
        "expectation than the individual one (docs/collaboration.md §1); one line per distinct "
        "u* in the study."
    ]
    if rates.unequal_u:
        words.append(
            f"{rates.unequal_u} run(s) gave its agents different u-values and are left out of "
            "the mismatch rate (no single u for the pair)."
        )
    return Section(
        "Collaboration and mismatch by u",
        join([figures(*plots), table(columns, rows), *(paragraph(w) for w in words)]),
    )


def _cells(tally: Tally) -> tuple[int, int, str]:
    low, high = wilson_interval(tally.successes, tally.trials)
    rate = tally.successes / tally.trials
    return tally.trials, tally.successes, f"{rate:.2f} [{low:.2f}, {high:.2f}]"


def update_index(step: int) -> int:
    """Which of its own beliefs a stated belief is: 0 the initial one (step 0), i the one
    after the i-th message the agent read. Agent 2 reads at steps 2, 4, ... and agent 1 at
    3, 5, ... (docs/collaboration.md §2): both are ``step // 2``, so the two agents' i-th
    updates line up although they are made at different steps."""
    return step // 2


def _mean_line(label: str, by_update: dict[int, list[float]]) -> Line:
    """A condition's mean belief at each update, with its t interval (drawn within 0-100, the
    scale a belief cannot leave) and its n."""
    points, intervals = [], []
    for i, beliefs in sorted(by_update.items()):
        result = mean_interval(beliefs)
        points.append((float(i), result.mean))
        if result.low is not None and result.high is not None:
            intervals.append((float(i), max(result.low, 0.0), min(result.high, 100.0)))
    counts = [(float(i), len(b)) for i, b in sorted(by_update.items())]
    return Line(label, points, intervals=intervals, counts=counts)


def beliefs_section(runs: Sequence[StudyRun]) -> Section:
    """The mean belief at each of an agent's updates, over every agent and run of a
    condition."""
    beliefs_at: dict[str, dict[int, list[float]]] = {}
    for run in runs:
        history = run.history
        if history.experiment is None:
            continue
        beliefs: list[Row] = history.experiment.views().table_rows(history)["beliefs"]
        by_update = beliefs_at.setdefault(run.condition, {})
        for row in beliefs:
            if row["belief"] is not None:
                by_update.setdefault(update_index(row["step"]), []).append(row["belief"])
    lines = [_mean_line(label, by_update) for label, by_update in beliefs_at.items() if by_update]
    updates = sorted({i for by_update in beliefs_at.values() for i in by_update})
    plot = line_chart(
        "beliefs-by-condition",
        "Mean belief by condition, from the initial belief through each update (95% t intervals)",
        lines,
        x_label="messages the agent had read (0: its initial belief)",
        y_label="mean belief (0-100)",
        y_range=(0, 100),
        x_ticks=[(i, str(i)) for i in updates],
        dodge=0.02,
    )

    def mean(values: list[float] | None) -> str:
        return f"{sum(values) / len(values):.1f} ({len(values)})" if values else "—"

    rows = [
        (label, *(mean(by_update.get(i)) for i in updates))
        for label, by_update in beliefs_at.items()
    ]
    note = paragraph(
        "Each agent states a belief (0-100: how likely it is that both commit) before any "
        "message and again after each message it reads (docs/collaboration.md §2). Column i: "
        "the mean of the beliefs stated after reading i messages, over both agents and every "
        "run of the condition, with how many there were (a missing belief is left out). The "
        "plot draws each mean with its 95% Student's t interval (within 0-100) and its n."
    )
    columns = ["condition", *(f"after {i} read" if i else "initial" for i in updates)]
    return Section("Beliefs by condition", join([figures(plot), table(columns, rows), note]))
