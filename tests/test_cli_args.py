"""The ``chaodipi`` command line: bad options are refused once, clearly; file errors are one line;
``arena`` and ``simulate`` draw a progress bar on a terminal and plain lines when piped."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chaodipi.arena import run_arena
from chaodipi.cli import main

# (arguments, the option named in the message, the allowed range the message states)
BAD_OPTIONS = [
    (["arena", "random", "random", "--deals", "0"], "--deals", "at least 1"),
    (["arena", "random", "random", "--deals", "-3"], "--deals", "at least 1"),
    (["arena", "random", "random", "--deals", "2.5"], "--deals", "at least 1"),
    (["arena", "random", "random", "--jobs", "0"], "--jobs", "at least 1"),
    (["arena", "random", "random", "--budget", "-1"], "--budget", "greater than 0"),
    (["arena", "random", "random", "--budget", "0"], "--budget", "greater than 0"),
    (["arena", "random", "random", "--budget", "nan"], "--budget", "greater than 0"),
    (["arena", "random", "random", "--budget", "inf"], "--budget", "greater than 0"),
    (["arena", "random", "random", "--seed", "-1"], "--seed", "at least 0"),
    (["simulate", "--games", "0"], "--games", "at least 1"),
    (["simulate", "--seed", "-1"], "--seed", "at least 0"),
    (["selfplay", "--seed", "-1"], "--seed", "at least 0"),
    (["selfplay", "--seed", "one"], "--seed", "at least 0"),
    (["demo", "--seed", "-1"], "--seed", "at least 0"),
    (["demo", "--level", "Z"], "--level", "from 2 to A"),
    (["demo", "--level", "1"], "--level", "from 2 to A"),
    (["demo", "--level", "BJ"], "--level", "from 2 to A"),
    (["play", "--hands", "0"], "--hands", "at least 1"),
    (["play", "--seed", "-5"], "--seed", "at least 0"),
    (["serve", "--forwarded-allow-ips", "proxy.example"], "--forwarded-allow-ips", "IP addresses or networks"),
    (["serve", "--forwarded-allow-ips", "10.0.0.1,*"], "--forwarded-allow-ips", "IP addresses or networks"),
    (["serve", "--forwarded-allow-ips", ""], "--forwarded-allow-ips", "IP addresses or networks"),
    (["serve", "--keepalive", "0"], "--keepalive", "greater than 0"),
    (["serve", "--keepalive", "nan"], "--keepalive", "greater than 0"),
]


@pytest.mark.parametrize(
    ("argv", "option", "allowed"), BAD_OPTIONS, ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_bad_option_is_a_usage_error(
    argv: list[str], option: str, allowed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: chaodipi ")
    message = f"error: argument {option}: must be "
    assert err.count(message) == 1 and allowed in err and repr(argv[-1]) in err
    assert "Traceback" not in err


def test_edge_values_are_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "0", "--level", "10", "--trump", "nt"]) == 0
    assert "level 级牌 T" in capsys.readouterr().out
    assert main(["demo", "--seed", "12345678901234567890", "--level", "a"]) == 0  # seeds have no upper bound
    assert "level 级牌 A" in capsys.readouterr().out


def test_serve_believes_forwarded_headers_only_from_the_proxies_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--forwarded-allow-ips`` reaches uvicorn; without it no proxy is trusted (uvicorn's default trusted
    127.0.0.1, so that a local client could say any address it liked in X-Forwarded-For)."""
    import chaodipi.server.serve as serve_module
    from chaodipi.server.config import ServerConfig

    options: list[dict[str, object]] = []

    def fake_serve(host: str, port: int, url: str, config: ServerConfig) -> None:
        options.append(serve_module.uvicorn_options(config))

    monkeypatch.setattr(serve_module, "serve", fake_serve)
    assert main(["serve"]) == 0
    assert main(["serve", "--forwarded-allow-ips", "10.0.0.1, 10.1.0.0/16"]) == 0
    assert [(o["proxy_headers"], o["forwarded_allow_ips"]) for o in options] == [
        (False, []),
        (True, ["10.0.0.1", "10.1.0.0/16"]),
    ]


def test_serve_keepalive_reaches_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--keepalive`` (seconds) is the config's ``keepalive_s``, which the welcome's pace tells the clients."""
    import chaodipi.server.serve as serve_module
    from chaodipi.server.config import ServerConfig

    configs: list[ServerConfig] = []
    monkeypatch.setattr(serve_module, "serve", lambda host, port, url, config: configs.append(config))
    assert main(["serve"]) == 0
    assert main(["serve", "--keepalive", "2.5"]) == 0
    assert [c.keepalive_s for c in configs] == [10.0, 2.5]


def test_simulate_into_a_file_is_one_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "taken"
    target.write_text("not a folder", encoding="utf-8")
    assert main(["simulate", "--games", "1", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert err == f"chaodipi: cannot write records to {target}: it is a file, not a folder\n"
    assert main(["simulate", "--games", "1", "--out", str(target / "below")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"chaodipi: cannot write records to {target / 'below'}: ") and err.count("\n") == 1


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_simulate_into_an_unwritable_place_is_one_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "1", "--out", "/proc/chaodipi-records"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("chaodipi: cannot write records to /proc/chaodipi-records: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_errors_are_printed_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err
    assert err == f"{tmp_path / 'missing.json'}: cannot read the file: No such file or directory\n"
    assert main(["arena", "nobody", "random", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("unknown bot") == 1 and err.count("\n") == 1


def test_a_closed_output_pipe_ends_quietly() -> None:
    # selfplay writes far more than a pipe's buffer, so the broken pipe is met inside main
    argv = [sys.executable, "-m", "chaodipi.cli", "selfplay", "--seed", "2"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `| head` does once it has its lines
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0 and err == b""


def test_arena_reports_progress_as_deals_come_in() -> None:
    for jobs in (1, 2):
        seen: list[tuple[int, int, int]] = []
        result = run_arena("random", "random", deals=2, seed=5, jobs=jobs, on_progress=lambda *p, s=seen: s.append(p))
        assert [(done, total) for done, total, _ in seen] == [(2, 4), (4, 4)]
        assert seen[-1][2] == result.a_wins
    with pytest.raises(ValueError, match="deals must be at least 1"):
        run_arena("random", "random", deals=0)


# -- the progress bar, in a child process: piped, and on a pseudo-terminal

ARENA = [sys.executable, "-m", "chaodipi.cli", "arena", "random", "random", "--deals", "2"]
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # a control sequence: colour, cursor, erase
COLOUR = re.compile(r"\x1b\[(?:[0-9]+;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]")  # an SGR colour


def _env(**extra: str) -> dict[str, str]:
    drop = {"NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(TERM="xterm-256color", COLUMNS="200", **extra)
    return env


def _on_a_terminal(argv: list[str], env: dict[str, str], *, pipe_stdout: bool = False) -> tuple[str, str]:
    """Run ``argv`` with stderr (and stdout unless ``pipe_stdout``) on a pseudo-terminal; return
    what the terminal showed and what the pipe got."""
    import pty

    master, slave = pty.openpty()
    stdout = subprocess.PIPE if pipe_stdout else slave
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=slave, env=env)
    os.close(slave)
    shown = bytearray()
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # Linux: EIO once the child has closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        piped = proc.stdout.read() if proc.stdout is not None else b""
        assert proc.wait(timeout=30) == 0, shown.decode(errors="replace")
    finally:
        os.close(master)
        if proc.stdout is not None:
            proc.stdout.close()
    return shown.decode("utf-8"), piped.decode("utf-8")


def test_arena_piped_draws_no_bar() -> None:
    done = subprocess.run(ARENA, capture_output=True, env=_env(FORCE_COLOR="1"), timeout=60, check=True)
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    assert "random vs random — preset standard, 2 duplicate deals (4 hands)" in out
    for text in (out, err):
        assert "\r" not in text and "\x1b" not in text
    # plain progress lines instead, on stderr (stdout holds the result alone): one per tenth reached
    lines = err.splitlines()
    assert lines and lines[-1].startswith("random vs random: 4/4 hands, random won")
    assert all(line.startswith("random vs random: ") for line in lines) and len(lines) <= 4


needs_pty = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")


@needs_pty
def test_arena_on_a_terminal_draws_a_bar() -> None:
    shown, _ = _on_a_terminal(ARENA, _env())
    bar, _, report = shown.rpartition("random vs random — preset standard")
    assert "\r" in bar and "\x1b[" in bar and COLOUR.search(bar)
    plain = ESCAPE.sub("", bar)
    assert "random vs random" in plain and "4/4 hands" in plain and "left" in plain and "Wilson 95%" in plain
    assert "hands won by random: " in report


@needs_pty
def test_arena_bar_respects_no_color() -> None:
    shown, _ = _on_a_terminal(ARENA, _env(NO_COLOR="1"))
    assert "4/4 hands" in ESCAPE.sub("", shown) and not COLOUR.search(shown)


@needs_pty
def test_arena_bar_goes_to_stderr_and_stdout_stays_clean() -> None:
    shown, piped = _on_a_terminal(ARENA, _env(), pipe_stdout=True)
    assert "4/4 hands" in ESCAPE.sub("", shown) and "preset standard" not in shown
    assert "random vs random — preset standard" in piped and "\r" not in piped and "\x1b" not in piped


@needs_pty
def test_simulate_on_a_terminal_draws_a_bar(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "chaodipi.cli", "simulate", "--games", "1", "--out", str(tmp_path)]
    shown = ESCAPE.sub("", _on_a_terminal(argv, _env())[0])
    assert "simulate standard" in shown and "1/1 games written" in shown
    assert "standard-seed1.json: " in shown  # the line printed meanwhile, above the bar
    assert (tmp_path / "standard-seed1.json").is_file()


@needs_pty
def test_without_rich_there_is_no_bar_but_plain_lines() -> None:
    code = (
        "import sys; sys.modules['rich'] = None\n"  # as if the tui extra were not installed
        "from chaodipi.cli import main\n"
        "sys.exit(main(['arena', 'random', 'random', '--deals', '2']))"
    )
    shown, _ = _on_a_terminal([sys.executable, "-c", code], _env())
    assert "hands won by random: " in shown and "\x1b" not in shown
    assert "random vs random: 4/4 hands, random won" in shown  # plain progress lines in place of the bar


def test_play_without_rich_says_which_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "rich", None)  # as if the tui extra were not installed
    monkeypatch.delitem(sys.modules, "chaodipi.tui", raising=False)
    monkeypatch.delitem(sys.modules, "rich.console", raising=False)
    assert main(["play", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "chaodipi play needs rich" in err and "chaodipi[tui]" in err and "Traceback" not in err
