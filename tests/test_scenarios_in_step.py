"""The referee scenarios kept in tests/scenarios stay in step with ../shared (when it is beside the project).

The repository carries its own copy of the public scenarios and of their checker, so that a clone
on its own runs them too (``make referee``). Where the shared material is present, every scenario
file there must be in tests/scenarios with the same bytes, and the checker must be the same: a
newer file upstream is copied in, never left behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
HERE = ROOT / "tests" / "scenarios"
SHARED_SCENARIOS = sorted((SHARED / "scenarios").glob("*.jsonl"))


def test_the_repository_has_its_own_scenarios_and_checker() -> None:
    assert (HERE / "public.jsonl").is_file()
    assert (HERE / "referee_check.py").is_file()


@pytest.mark.skipif(not SHARED_SCENARIOS, reason="../shared/scenarios is not beside the project")
@pytest.mark.parametrize("shared", SHARED_SCENARIOS, ids=lambda p: p.name)
def test_every_shared_scenario_file_is_copied_unchanged(shared: Path) -> None:
    copy = HERE / shared.name
    assert copy.is_file(), f"{shared} is not in tests/scenarios: copy it there"
    assert copy.read_bytes() == shared.read_bytes(), f"tests/scenarios/{shared.name} differs from {shared}: copy it"


@pytest.mark.skipif(
    not (SHARED / "tools" / "referee_check.py").is_file(), reason="../shared/tools is not beside the project"
)
def test_the_checker_is_the_shared_one() -> None:
    shared = SHARED / "tools" / "referee_check.py"
    assert (HERE / "referee_check.py").read_bytes() == shared.read_bytes(), f"copy {shared} to tests/scenarios"
