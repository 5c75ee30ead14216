"""The ``chaodipi`` command: simulate then replay agree; selfplay and demo print their logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chaodipi.cli import main


@pytest.mark.parametrize("preset", ["standard", "institute2023"])
def test_simulate_then_replay(tmp_path: Path, preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--preset", preset, "--games", "2", "--seed", "4", "--out", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2
    record = json.loads(files[0].read_text(encoding="utf-8"))
    assert record["format"] == "chaodipi-record/2" and record["seed"] == 4 and record["winner"] in (0, 1)
    capsys.readouterr()
    assert main(["replay", *map(str, files)]) == 0
    out = capsys.readouterr().out
    assert "every action is legal and every result agrees" in out and "trick  1:" in out and "Game over" in out


def test_replay_reports_a_broken_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["simulate", "--games", "1", "--seed", "8", "--out", str(tmp_path)])
    path = next(tmp_path.glob("*.json"))
    record = json.loads(path.read_text(encoding="utf-8"))
    deal = record["hands"][0]["deal"]
    record["hands"][0]["deal"] = deal[2:] + deal[:2]  # another deal: the recorded actions no longer fit
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", "--quiet", str(path)]) == 1
    assert "hand 1" in capsys.readouterr().err


def test_selfplay_and_demo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--preset", "kangqi", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "Hand 1" in out and "trump 主" in out and "Game over" in out
    assert main(["demo", "--preset", "anchao", "--seed", "3", "--level", "8", "--trump", "s"]) == 0
    out = capsys.readouterr().out
    assert "5h > BJ > SJ > 8s > 8h=8c=8d" in out and out.count("25 cards") == 4


def test_bad_arguments_are_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "nobody", "rules", "--deals", "1"]) == 2
    assert "unknown bot" in capsys.readouterr().err


def test_version_names_the_engine_build(capsys: pytest.CaptureFixture[str]) -> None:
    """``chaodipi --version`` says which engine runs: the compiled build (make fast) or the pure one."""
    import chaodipi.play
    from chaodipi._build import engine_build

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    compiled = not chaodipi.play.__file__.endswith(".py")
    assert engine_build() == ("compiled" if compiled else "pure")
    words = "compiled by mypyc" if compiled else "pure Python"
    assert capsys.readouterr().out.startswith(f"chaodipi {chaodipi.__version__} (engine: {words}")
