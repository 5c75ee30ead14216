"""``chaodipi play`` driven end to end through a pseudo-terminal: whole hands of a dark and an open
preset, read screen by screen as a player reads them."""

from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable

import pytest

from chaodipi.cards import Card, Rank

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")

PROMPTS = ("bid> ", "bury> ", "fry> ", "play> ", "show> ", "continue> ")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _controlling_terminal() -> None:
    """In the child: a new session whose controlling terminal is the pty (so Ctrl-C sends SIGINT), and SIGINT's
    default action (a test runner's worker may ignore SIGINT, and an ignored signal stays ignored across exec)."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """A ``chaodipi play`` process on a pseudo-terminal."""

    def __init__(self, *args: str, env: dict[str, str | None] | None = None) -> None:
        self.main_fd, sub_fd = pty.openpty()
        environ = {**os.environ, "TERM": "dumb", "COLUMNS": "160"}
        for key, value in (env or {}).items():
            if value is None:
                environ.pop(key, None)
            else:
                environ[key] = value
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chaodipi.cli", "play", *args],
            stdin=sub_fd,
            stdout=sub_fd,
            stderr=sub_fd,
            close_fds=True,
            env=environ,
            preexec_fn=_controlling_terminal,
        )
        os.close(sub_fd)
        self.raw = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character may span two reads

    @property
    def text(self) -> str:
        """Everything shown so far, without colour codes."""
        return ANSI.sub("", self.raw)

    def _read(self) -> bool:
        """Read what is there (waiting up to half a second); False once the program has ended."""
        ready, _, _ = select.select([self.main_fd], [], [], 0.5)
        if ready:
            try:
                data = os.read(self.main_fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            self.raw += self.decoder.decode(data).replace("\r\n", "\n")
        return True

    def until_prompt(self, deadline: float) -> str | None:
        """Read until a prompt shows (returns it) or the program ends (None)."""
        while time.time() < deadline:
            for p in PROMPTS:
                if self.text.endswith(p):
                    return p
            if not self._read():
                return None
        raise AssertionError("the game stopped answering:\n" + self.text[-3000:])

    def drain(self, deadline: float) -> None:
        """Read everything until the program ends."""
        while time.time() < deadline and self._read():
            pass

    def send(self, answer: str) -> None:
        self.raw += "<<" + answer + ">>"
        os.write(self.main_fd, (answer + "\n").encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.main_fd)


def play(
    args: list[str], answer: Callable[[str, str], str], *, env: dict[str, str | None] | None = None
) -> tuple[str, int]:
    term = Terminal(*args, env=env)
    deadline = time.time() + 150
    try:
        while (prompt := term.until_prompt(deadline)) is not None:
            term.send(answer(prompt, term.text))
    finally:
        code = term.close()
    return term.text, code


def south(prompt: str, screen: str, *, bid: bool) -> str:
    """South's answers: bid the first legal bid (or none), pass on fries, bury and play as hinted."""
    if prompt == "bid> ":
        bids = re.findall(r"legal bids 可亮: (.*) \(Enter", screen)
        return bids[-1].split(" | ")[0] if bid and bids and not bids[-1].startswith("none") else ""
    if prompt == "fry> ":
        return "pass"
    if prompt == "bury> ":
        return re.findall(r"\(hint: ([^)]*)\)", screen)[-1]
    if prompt in ("show> ", "continue> "):
        return ""
    return "auto"


def hand_blocks(screen: str) -> list[list[str]]:
    """The trump line of every hand display: its cards."""
    out = []
    for m in re.finditer(r"your hand 你的牌[^\n]*:\n((?:  .*\n)+)", screen):
        trumps = [line for line in m.group(1).splitlines() if line.strip().startswith("主 trumps")]
        out.append(trumps[0].split()[2:] if trumps else [])
    return out


def colour_codes(raw: str) -> list[str]:
    """The SGR escape codes in ``raw`` that set a colour (30–39, 40–49, 90–97, 100–107)."""
    out = []
    for params in re.findall(r"\x1b\[([0-9;]*)m", raw):
        numbers = [int(p) for p in params.split(";") if p]
        if any(30 <= n <= 49 or 90 <= n <= 107 for n in numbers):
            out.append(params)
    return out


def check_screens(screen: str) -> None:
    assert "▶▶ YOUR TURN 轮到你了" in screen
    assert re.search(r"level 级牌 \S+ · trump 主 .* · dealer 庄家", screen)
    assert "cards left 剩牌: 南 You" in screen and "points taken 得分" in screen
    assert "previous trick 上一轮" in screen and "this trick 本轮" in screen
    assert "settlement 第1副结算" in screen and "total p 总分" in screen
    assert re.search(r"level 级 南北 you & North: \S+ → \S+", screen)
    assert "player 0" not in screen and "player 1" not in screen  # engine words never reach the screen
    assert "Traceback" not in screen


def test_a_dark_hand_reads_like_a_card_table() -> None:
    # anchao: dark bids and fries. South never declares, so until frying ends South's hand
    # is grouped by level cards and jokers only, never by the hidden trump.
    screen, code = play(["--preset", "anchao", "--seed", "11", "--hands", "1"], lambda p, s: south(p, s, bid=False))
    assert code == 0, screen[-3000:]
    check_screens(screen)
    before, _, after = screen.partition("frying over 炒底结束")
    assert after, screen[-3000:]
    assert "trump 主 hidden 暗 until frying ends" in before or "not declared yet" in before
    for trumps in hand_blocks(before):
        for text in trumps:
            card = Card.parse(text.rstrip("*"))
            assert card.suit is None or card.rank == Rank.TWO or text.startswith("5h"), (text, trumps)
    assert re.search(r"declares \(dark: cards hidden\) 暗亮主", before)
    assert "credits 积分 南北" in screen  # the rooms keep credits


def test_an_open_hand_with_bids_and_a_bad_card() -> None:
    typed: list[str] = []

    def answer(prompt: str, screen: str) -> str:
        if prompt == "play> " and not typed:
            typed.append("Xx")
            return "Xx"  # a clear message for bad input, then the prompt again
        if prompt == "play> " and len(typed) == 1:
            typed.append("?")
            return "?"
        return south(prompt, screen, bid=True)

    screen, code = play(["--preset", "standard", "--seed", "11", "--hands", "1"], answer)
    assert code == 0, screen[-3000:]
    check_screens(screen)
    assert "'Xx' is not a card" in screen
    assert "commands 命令" in screen  # ? shows the help
    assert "declares 亮主" in screen and "the dealer 庄家 is" in screen
    assert "seed 种子 11" in screen


def test_ctrl_c_leaves_cleanly_and_no_color_is_respected() -> None:
    term = Terminal("--seed", "5", env={"TERM": "xterm-256color", "NO_COLOR": "1"})
    deadline = time.time() + 60
    assert term.until_prompt(deadline) is not None
    time.sleep(0.5)  # (readline is reading by then, as when a person presses Ctrl-C at the prompt)
    os.write(term.main_fd, b"\x03")  # Ctrl-C at the prompt
    term.drain(deadline)
    code = term.close()
    assert code == 130
    assert "bye 再见" in term.text and "chaodipi play --seed 5" in term.text
    assert "Traceback" not in term.raw
    assert not colour_codes(term.raw)  # NO_COLOR: bold may stay, colours go


def test_colours_on_a_colour_terminal() -> None:
    term = Terminal("--seed", "5", env={"TERM": "xterm-256color", "NO_COLOR": None})
    try:
        assert term.until_prompt(time.time() + 60) is not None
        term.send("quit")
        term.drain(time.time() + 30)
    finally:
        assert term.close() == 0
    assert colour_codes(term.raw)
