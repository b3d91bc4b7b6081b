"""``maai report RUN_ID``: one self-contained HTML page of a run (docs/projections.md,
"Reports").

The page is built here from what every run has (its experiment, id, status, seed, labels,
agents and recorded config) and from the sections its experiment adds through the optional
``report(history)`` member of its views (``maai.domain.experiment.ExperimentViews``); a new
experiment adds sections without editing this module. The page needs no network: the style
is inline (``projections/templates/maai.css``, the stylesheet ``maai view`` serves), the
plots are inline SVG (``projections/charts.py``), there is no script, font or image from
elsewhere. Every part is rendered by the shared templates (``projections/templating.py``,
autoescaped), and the same events give the same bytes (no clock, no random ids).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from maai.domain.costs import usage_of
from maai.domain.events import RunFailed
from maai.projections.build import build_of
from maai.projections.history import History
from maai.projections.markup import (
    Markup,
    code,
    details,
    facts,
    inline,
    join,
    preformatted,
    strong,
    table,
)
from maai.projections.templating import shared, stylesheet

FORMAT = "maai.report/1"


@dataclass(frozen=True)
class Section:
    """One titled part of a report; ``body`` is markup built with ``projections/markup.py``
    and ``projections/charts.py`` (so every text in it is escaped)."""

    title: str
    body: Markup


def experiment_sections(history: History) -> list[Section]:
    """The experiment's own sections, or none when its views define no ``report``."""
    if history.experiment is None:
        return []
    report = getattr(history.experiment.views(), "report", None)
    return list(report(history)) if report is not None else []


def run_report(history: History, parent: History | None = None) -> str:
    """The whole page for one run; a fork's opens with it beside its ``parent`` (where the
    ledger holds it) from the fork point on (docs/forks.md)."""
    sections = [run_section(history), *experiment_sections(history)]
    fork = fork_section(history, parent)
    return render_page(history, [fork, *sections] if fork is not None else sections)


def fork_section(history: History, parent: History | None) -> Section | None:
    from maai.projections.forks import fork_facts

    found = fork_facts(history, parent)
    if found is None:
        return None
    pairs, rows = found
    columns = ["", "run", "status", "outcome", "events after", "calls after", "tokens after"]
    return Section("The fork beside its parent", join([facts(pairs), table(columns, rows)]))


def run_section(history: History) -> Section:
    """What every run has: experiment, id, status, seed, labels, agents, the config."""
    experiment = history.experiment
    config = history.config
    started = history.started
    name = experiment.name if experiment else "unknown"
    title = f"{experiment.title} ({name})" if experiment else name
    labels = getattr(config, "labels", None) or {}
    pairs: list[tuple[str, Any]] = [
        ("experiment", title),
        ("run id", history.run_id),
        ("status", history.status),
        ("seed", getattr(config, "seed", None)),
        ("labels", ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) or "none"),
        ("events", len(history.entries)),
        ("build", build_of(started)),
    ]
    failure = failure_words(history)
    if failure is not None:
        pairs.append(("failure", failure))
    prices = getattr(config, "prices", None) or {}
    if prices:
        cost = usage_of(entry.event for entry in history.entries).cost_usd(prices)
        pairs.append(
            ("cost", "a model used has no price" if cost is None else f"${cost:,.4f} (US dollars)")
        )
    if experiment is not None:
        pairs.append(("rules", experiment.docs))
    body = [facts(pairs)]
    if config is not None:
        # The utility agent too: it read some answers (extraction), so it shaped the run.
        users = [
            (user.who, user.model, (user.provider.base_url or "") if user.provider else "")
            for user in config.model_users()
        ]
        body.append(table(["agent", "model", "server (base_url)"], users))
    if started is not None:
        recorded = json.dumps(started.config, indent=2, sort_keys=True, ensure_ascii=False)
        body.append(details("The config as recorded in run.started", preformatted(recorded)))
    return Section("The run", join(body))


def failure_words(history: History) -> str | None:
    """Why a failed run stopped, from its last ``run.failed`` event: the reason, where
    (the call's address, the agent) and the event's seq; ``None`` unless it failed."""
    failed = history.of(RunFailed)
    if history.status != "failed" or not failed:
        return None
    entry, event = failed[-1]
    where = ", ".join(
        part
        for part in (
            f"call {event.address}" if event.address else "",
            f"agent {event.agent}" if event.agent else "",
            f"seq {entry.seq}",
        )
        if part
    )
    return f"{event.reason} ({where}; maai resume {history.run_id} asks again)"


def anchored_sections(sections: Sequence[Section]) -> list[dict[str, str]]:
    """The sections as the template ``_sections.html.j2`` takes them: each with its anchor
    (``s3-the-run``), the same in a report and on the viewer's page."""
    return [
        {"anchor": _anchor(section.title, i), "title": section.title, "body": section.body}
        for i, section in enumerate(sections, 1)
    ]


def _anchor(title: str, index: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return f"s{index}-{slug}"


def render_page(history: History, sections: Sequence[Section]) -> str:
    experiment = history.experiment
    name = experiment.title if experiment else "maai run"
    return page_shell(
        f"{name}: run {history.run_id}",
        inline(["status: ", strong(history.status)]),
        sections,
        inline(
            [
                "Written by ",
                code("maai report"),
                " from the run's events alone; the same events give the same page.",
            ]
        ),
    )


def page_shell(title: str, status: str, sections: Sequence[Section], footer: str) -> str:
    """A whole page: the title, a status line and a contents list, the sections, a footer,
    rendered by the shared template ``projections/templates/page.html.j2`` (Jinja2,
    autoescaped; ``projections/templating.py``), with the stylesheet ``maai.css`` inlined.
    ``status`` and ``footer`` are markup (the caller escapes what they quote); a section's body is
    :class:`Markup`."""
    anchored = anchored_sections(sections)
    for part in (status, footer, *(section.body for section in sections)):
        if not isinstance(part, Markup):
            raise TypeError(f"page parts must be Markup, not {type(part).__name__}")
    return (
        shared()
        .get_template("page.html.j2")
        .render(
            generator=FORMAT,
            title=title,
            status=status,
            footer=footer,
            sections=anchored,
            style=Markup(stylesheet()),
        )
    )
