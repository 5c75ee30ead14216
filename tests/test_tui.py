"""``chaodipi play`` driven end to end through a pseudo-terminal for a whole hand."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

PROMPTS = ("bid> ", "bury> ", "fry> ", "play> ")


def _read_until_prompt(fd: int, buf: str, deadline: float) -> tuple[str, str | None, bool]:
    """Read until a prompt shows (returns it) or the program ends."""
    while time.time() < deadline:
        for p in PROMPTS:
            if buf.endswith(p):
                return buf, p, False
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            return buf, None, True
        if not data:
            return buf, None, True
        buf += data.decode("utf-8", "replace").replace("\r\n", "\n")
    raise AssertionError("the game stopped answering:\n" + buf[-2000:])


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_whole_hand_in_the_terminal() -> None:
    main_fd, sub_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "chaodipi.cli", "play", "--seed", "11", "--hands", "1"],
        stdin=sub_fd,
        stdout=sub_fd,
        stderr=sub_fd,
        close_fds=True,
        env={**os.environ, "TERM": "dumb"},
    )
    os.close(sub_fd)
    buf = ""
    plays = illegal_tried = 0
    deadline = time.time() + 120
    try:
        while True:
            buf, prompt, ended = _read_until_prompt(main_fd, buf, deadline)
            if ended:
                break
            if prompt == "bid> ":
                # bid the first legal bid if there is one, so the first hand is not redealt forever
                bids = re.findall(r"legal bids: (.*) \(enter", buf)
                answer = bids[-1].split(" | ")[0] if bids and bids[-1] != "none" else ""
            elif prompt == "fry> ":
                answer = "pass"
            elif prompt == "bury> ":
                answer = re.findall(r"suggested: ([^)]*)\)", buf)[-1]
            else:
                if not illegal_tried:
                    illegal_tried = 1
                    answer = "Xx"  # a clear message for bad input, then the prompt again
                else:
                    legal = re.findall(r"legal(?: leads)?: (.*)", buf)[-1]
                    answer = legal.split(" | ")[0].split(" (or")[0].rstrip(" …")
                    plays += 1
            buf += "<<" + answer + ">>"
            os.write(main_fd, (answer + "\n").encode())
    finally:
        proc.wait(timeout=30)
        os.close(main_fd)
    assert proc.returncode == 0, buf[-2000:]
    assert "is not a card" in buf
    assert "hand over: scoring side total" in buf
    assert plays >= 8 and buf.count("trick: ") >= 8
    assert "your hand:" in buf and "trump" in buf
