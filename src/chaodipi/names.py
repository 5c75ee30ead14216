"""Names as people type them: the one folding by which two names are the same name.

An account's username is unique by its folded form (server/accounts.py), and an event's players and
pairs are told apart the same way (tournament/event.py): NFKC normalisation (full-width ``Ｂ`` is ``B``,
``ﬁ`` is ``fi``), then case folding, then NFKC again (folding can undo the normal form).

>>> fold_name("ＢＯＢ") == fold_name("bob") == fold_name("Bob")
True
>>> fold_name("Straße")
'strasse'
"""

from __future__ import annotations

import unicodedata

__all__ = ["fold_name"]


def fold_name(name: str) -> str:
    """``name`` NFKC-normalised and case-folded: two names with the same fold are one name."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
