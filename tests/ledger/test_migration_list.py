"""The ledger lists its migrations by hand (so that opening a store needs no Alembic import);
the list must be exactly the revision scripts shipped, oldest first."""

from __future__ import annotations

import subprocess
import sys

from alembic.script import ScriptDirectory

from maai.ledger.migrate import REVISIONS, alembic_config, head_revision


def test_the_listed_revisions_are_the_shipped_scripts_oldest_first() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    newest_first = [revision.revision for revision in script.walk_revisions()]
    assert tuple(reversed(newest_first)) == REVISIONS
    assert script.get_current_head() == head_revision()


def test_opening_a_store_does_not_import_alembic(tmp_path: object) -> None:
    """Every command opens a store; Alembic is only needed to upgrade one."""
    code = (
        "import sys; from ledger import EventStore\n"
        f"EventStore.open({str(tmp_path)!r} + '/a.db').close()\n"  # new: upgraded
        f"assert 'alembic' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    code = (
        "import sys; from ledger import EventStore\n"
        f"EventStore.open({str(tmp_path)!r} + '/a.db').close()\n"  # current: only read
        "assert 'alembic' not in sys.modules, 'alembic imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
