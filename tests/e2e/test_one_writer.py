"""One writer per run: two ``maai resume`` of one interrupted run at the same time. One
finishes the run (exit 0); the other stops with a clear message (exit 3); the history is not
forked. On SQLite and on PostgreSQL."""

from __future__ import annotations

import signal
from pathlib import Path

from maai.ledger import EventStore
from maai.runtime.verify import verify_events
from tests.e2e.history import (
    differences,
    domain_history,
    only_run,
    seqs_gapless,
    wait_for,
)
from tests.e2e.launcher import Launcher
from tests.e2e.runs import References


def test_two_resumes_at_once_one_wins_and_history_is_not_forked(
    cli: Launcher, references: References, latency_config: Path, ledger_url: str
) -> None:
    """With 20 ms per model call the rest of the run takes about a second, so the two resumes
    overlap for most of it: they really race for every append."""
    race_config = latency_config
    ref = references.of(race_config)
    EventStore.open(ledger_url, upgrade=True).close()
    with EventStore.open(ledger_url) as store:
        first = cli.start("run", race_config, "--db", ledger_url, "-q")

        def head() -> int:
            info = only_run(store)
            return info.head_seq if info is not None else 0

        threshold = ref.phase2_from // 3
        wait_for(lambda: head() >= threshold, timeout=60, what=f"head seq {threshold}")
        first.send(signal.SIGINT)
        assert first.wait(60) == 130, first.output()
        info = only_run(store)
        assert info is not None and info.status == "interrupted"
        interrupted_at = info.head_seq

        a = cli.start("resume", info.run_id, "--db", ledger_url, "-q")
        b = cli.start("resume", info.run_id, "--db", ledger_url, "-q")
        codes = sorted([a.wait(120), b.wait(120)])
        outputs = f"--- first resume:\n{a.output()}\n--- second resume:\n{b.output()}"
        assert codes == [0, 3], outputs
        winner, loser = (a, b) if a.poll() == 0 else (b, a)
        assert "another writer appended first; nothing was stored" in loser.flat_output(), outputs
        assert "status: completed" in winner.flat_output(), outputs

        final = store.get_run(info.run_id)
        assert final.status == "completed"
        assert final.head_seq > interrupted_at
        gapless, count = seqs_gapless(store, info.run_id)
        assert gapless and count == final.head_seq
        assert store.verify_chain(info.run_id).ok
        history = domain_history(store.read(info.run_id), ref.agents)
        report = verify_events(store.read(info.run_id))
    assert not differences(history, ref.history), differences(history, ref.history)
    assert report.ok, [d.describe() for d in report.divergences]
