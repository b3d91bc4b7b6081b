"""Helpers of the ledger tests (imported as ``tests.ledger.helpers``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

RunSql = Callable[[str], list[tuple[Any, ...]]]
"""Runs one SQL statement on a store's database behind the store's back."""


@contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """Make ``folder`` one in which this process cannot create files, for the block.

    As root (CI containers often are) permission bits do not bind, so the folder is made
    immutable with ``chattr +i`` instead; where that is not possible either, the test skips.
    """
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    made = (
        chattr is not None
        and subprocess.run([chattr, "+i", str(folder)], capture_output=True).returncode == 0
    )
    if not made or os.access(folder, os.W_OK):
        pytest.skip("running as root and cannot make a folder immutable (chattr +i)")
    try:
        yield
    finally:
        assert chattr is not None
        subprocess.run([chattr, "-i", str(folder)], check=True)
