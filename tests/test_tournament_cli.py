"""``chaodipi tournament …`` (issue 37): results, corrections and CSV imports from the command line, on an
SQLite database of the test's own; a refused command prints its reason and exits 2, changing nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from chaodipi.cli import main
from chaodipi.server.store import Store
from chaodipi.tournament.event import Event
from chaodipi.tournament.store import EventStore


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.db'}"


def tour(db: str, *args: str) -> int:
    return main(["tournament", "--db", db, "--as", "ref", *args])


def load(db: str) -> Event:
    return EventStore(Store(db)).load(1)


def started_event(db: str, tmp_path: Path) -> None:
    """Event 1: four pairs on physical tables, round 1 paired, published and started."""
    assert tour(db, "create", "Cup", "--format", "swiss", "--swiss-rounds", "2", "--seed", "3") == 0
    csv = tmp_path / "pairs.csv"
    csv.write_text("name,player1,player2\nP1,a1,b1\nP2,a2,b2\nP3,a3,b3\nP4,a4,b4\n", encoding="utf-8")
    assert tour(db, "import", "1", str(csv)) == 0
    assert tour(db, "pair", "1") == 0
    assert tour(db, "publish", "1", "1") == 0
    assert tour(db, "start", "1", "1") == 0


def test_a_round_starts_only_once_published(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert tour(db, "create", "Cup", "--format", "knockout", "--seed", "3") == 0
    for i in (1, 2):
        assert tour(db, "add-pair", "1", f"a{i}", f"b{i}") == 0
    assert tour(db, "pair", "1") == 0
    capsys.readouterr()
    assert tour(db, "start", "1", "1") == 2
    assert "not published" in capsys.readouterr().err
    assert load(db).rounds[0].status == "drawn"


def test_a_result_is_games_or_a_forfeit_not_both(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started_event(db, tmp_path)
    capsys.readouterr()
    assert tour(db, "result", "1", "1", "1", "--game", "a:A:9", "--forfeit", "b") == 2
    assert "not both" in capsys.readouterr().err
    assert load(db).rounds[0].pairings[0].forfeit is None and not load(db).rounds[0].pairings[0].games


def test_results_are_corrected_only_by_a_correction_with_its_reason(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started_event(db, tmp_path)
    assert tour(db, "result", "1", "1", "1", "--game", "b:A:9") == 2  # pair b at 9 is behind
    assert "is behind" in capsys.readouterr().err
    assert tour(db, "result", "1", "1", "1", "--game", "a:A:9") == 0
    assert tour(db, "result", "1", "1", "1", "--game", "b:9:A") == 2
    assert "correction" in capsys.readouterr().err
    assert tour(db, "correct", "1", "1", "1", "--game", "b:9:A", "--reason", "winner entered wrong") == 0
    last = load(db).log[-1]
    assert (last.op, last.by, last.data["reason"]) == ("correct", "ref", "winner entered wrong")


def test_a_result_after_a_game_lost_penalty_decided_the_tie_is_refused(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started_event(db, tmp_path)
    assert tour(db, "penalty", "1", "1", "2", "a", "disturbing", "--game-lost") == 0
    capsys.readouterr()
    assert tour(db, "result", "1", "1", "2", "--game", "a:A:9") == 2
    assert "lost a game by penalty" in capsys.readouterr().err
    assert load(db).log[-1].op == "penalty"


# -- CSV imports ------------------------------------------------------------------------------------------------


def physical_event(db: str) -> None:
    assert tour(db, "create", "Cup", "--format", "swiss", "--seed", "3") == 0


def import_csv(db: str, tmp_path: Path, text: str) -> int:
    csv = tmp_path / "pairs.csv"
    csv.write_text(text, encoding="utf-8")
    return tour(db, "import", "1", str(csv))


def test_a_csv_import_reports_every_bad_line_by_the_files_line_numbers_and_registers_none(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    physical_event(db)
    text = (
        "name,player1,player2,club\n"  # 1
        "Red,Li,Wang,East\n"  # 2
        "Blue,Zhao\n"  # 3: one player
        "\n"  # 4
        "Green,Sun,Zhou,West,extra\n"  # 5: a fifth field
        "Gold,Wu,Zheng\n"  # 6
        "Jade,li,Qian\n"  # 7: Li again
        "Pearl,Ｂ,Feng\n"  # 8
        "Ruby,Han,B\n"  # 9: Ｂ folds to B
        "Onyx,Ma,MA\n"  # 10: one player twice
        "red,Xu,He\n"  # 11: a pair called Red already
    )
    capsys.readouterr()
    assert import_csv(db, tmp_path, text) == 2
    err = capsys.readouterr().err
    assert "6 lines of the CSV are refused" in err and "CSV pair" not in err
    found = [int(x) for x in __import__("re").findall(r"CSV line (\d+)", err)]
    assert found == [3, 5, 7, 9, 10, 11], err
    assert "'extra' is in no column" in err and "li already plays in pair 'Red'" in err
    assert "B already plays in pair 'Pearl'" in err and "not Ma twice" in err
    assert load(db).pairs == {}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "holds no pairs"),
        ("name,player1,player2,club\n\n", "holds no pairs, only its header"),
        ("name,player1,player2,rating\nRed,Li,Wang,1500\n", "CSV line 1: unknown or repeated column 'rating'"),
        ("Red,Li,Wang,East,1500\n", "CSV line 1: 5 fields: '1500' is in no column"),
    ],
)
def test_a_csv_with_no_pair_or_unknown_columns_is_refused(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    physical_event(db)
    capsys.readouterr()
    assert import_csv(db, tmp_path, text) == 2
    assert words in capsys.readouterr().err
    assert load(db).pairs == {}


def test_a_csv_may_not_name_a_player_already_registered(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    physical_event(db)
    assert tour(db, "add-pair", "1", "Ｌｉ", "Wang", "--name", "Red") == 0
    capsys.readouterr()
    assert import_csv(db, tmp_path, "Blue,LI,Zhao\nGreen,Sun,Zhou,,\n") == 2
    assert "CSV line 1: LI already plays in pair 'Red'" in capsys.readouterr().err
    assert import_csv(db, tmp_path, "Blue,Qian,Zhao\nGreen,Sun,Zhou,,\n") == 0  # (empty padding fields are nothing)
    assert [p.name for p in load(db).pairs.values()] == ["Red", "Blue", "Green"]
