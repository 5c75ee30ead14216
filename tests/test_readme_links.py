"""Every relative link in README.md and docs/*.md points at a file inside the repository.

A clone on its own has nothing beside it (no ../shared), so a link out of the repository, or to a
file that is not there, is dead. Web links (http, https, mailto) and links to an anchor on the same
page are not checked; for ``file.md#section`` the file is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
#: ``[text](target "title")`` and ``![alt](target)``; reference definitions ``[name]: target``.
_INLINE = re.compile(r"""\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)""")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, …


def relative_links(text: str) -> list[str]:
    """The relative link targets of a markdown text (code blocks and code spans left out), without anchors.

    >>> relative_links("[a](docs/x.md#y) `[b](no.md)` [c](https://e.org) [d](#top) ![e](img/f.png 'f')")
    ['docs/x.md', 'img/f.png']
    """
    text = _CODE.sub("", _FENCE.sub("", text))
    targets = _INLINE.findall(text) + _REFERENCE.findall(text)
    out = []
    for target in targets:
        if _EXTERNAL.match(target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        if path:
            out.append(path)
    return out


def test_the_pages_exist() -> None:
    assert (ROOT / "README.md").is_file()
    assert (ROOT / "docs" / "rules.md").is_file() and (ROOT / "docs" / "referee.md").is_file()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_into_the_repository(page: Path) -> None:
    dead = []
    for target in relative_links(page.read_text(encoding="utf-8")):
        resolved = (page.parent / target).resolve()
        if not resolved.is_relative_to(ROOT):
            dead.append(f"{target} (outside the repository)")
        elif not resolved.exists():
            dead.append(f"{target} (no such file)")
    assert not dead, f"{page.relative_to(ROOT)} links to: {', '.join(dead)}"


def test_readme_links_to_the_rule_book_and_the_referee_protocol() -> None:
    links = set(relative_links((ROOT / "README.md").read_text(encoding="utf-8")))
    assert {"docs/rules.md", "docs/referee.md"} <= links
