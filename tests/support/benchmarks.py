"""The scripts under ``benchmarks/`` loaded as modules, for their smoke tests
(``benchmarks/`` is no package: each is loaded from its file)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_benchmark(file_name: str, module_name: str) -> ModuleType:
    """``benchmarks/<file_name>`` as a fresh module named ``module_name`` (registered in
    ``sys.modules``, as the dataclasses and pickles a benchmark defines need)."""
    spec = importlib.util.spec_from_file_location(module_name, BENCHMARKS / file_name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
