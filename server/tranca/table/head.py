"""The table head's options (003 "Opciones de mesa"): which options the head may
change, the change as the snapshot keeps it, the log's text of a change, and the
length of match it sets. Pure; ``table/game.py`` applies the ``options`` and
``consent`` actions with them (docs/platform/table-head.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Final

from tranca_rules.errors import InvalidMove, RulesError
from tranca_rules.presets import make_rules

from .setup import Setup, TableOptions

# What the table head may change: 003's "Opciones de mesa" ("Permitir público" is the
# setup's ``spectators_allowed``) and the chat; the rest stays as created (table-head.md).
CHANGEABLE_OPTIONS: Final = frozenset(
    {"turn_seconds", "competitive", "stake", "private", "express", "point_limit", "chat"}
)
# A change of these needs every other seated player's consent again.
TERMS: Final = ("competitive", "stake")


Options = tuple[TableOptions, bool, int]  # a table's options, spectators, target score


@dataclass(frozen=True)
class TableChange:
    """The table's options as the head last changed them (an ``options`` action, at
    ``version``: what "el icono cambia a rojo" shows); ``terms_version`` is the
    version of the last change of stake or rated play (0: none); ``created``: the
    options as created, so that the snapshot reads back with either setup."""

    now: Options
    created: Options
    version: int
    terms_version: int

    def to_dict(self) -> dict[str, Any]:
        now, created = ([o[0].to_dict(), *o[1:]] for o in (self.now, self.created))
        return {"now": now, "created": created, "versions": [self.version, self.terms_version]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TableChange:
        now, created = (
            (TableOptions.from_dict(t), bool(s), int(n)) for t, s, n in (d["now"], d["created"])
        )
        version, terms = d["versions"]
        return cls(now, created, int(version), int(terms))

    def setups(self, setup: Setup) -> tuple[Setup, Setup]:
        """The setup as created and as changed, from either."""
        created = _setup_with(setup, self.created)
        return created, _setup_with(created, self.now)


def _setup_with(setup: Setup, options: Options) -> Setup:
    """``setup`` with these options (itself where they are its own already)."""
    table, spectators, target = options
    if (setup.table, setup.spectators_allowed, setup.rules.target_score) == options:
        return setup
    rules = setup.rules
    if rules.target_score != target:
        rules = replace(rules, target_score=target)
    return replace(setup, rules=rules, table=table, spectators_allowed=spectators)


def options_text(table: TableOptions, spectators_allowed: bool) -> str:
    """An ``options`` action's text: the new options, as the log keeps them."""
    body = {"table": table.to_dict(), "spectators_allowed": spectators_allowed}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse_options(text: str) -> tuple[TableOptions, bool]:
    """The options an ``options`` action's text holds; ``InvalidMove`` if it holds none."""
    try:
        body = json.loads(text)
        return TableOptions.from_dict(dict(body["table"])), bool(body["spectators_allowed"])
    except (ValueError, TypeError, KeyError) as exc:
        raise InvalidMove(f"unreadable table options: {exc}") from None


def target_score_for(created: Setup, table: TableOptions) -> int:
    """The rules' target score under ``table`` (TableOptions.match_overrides): express
    0, a point limit itself; otherwise the target the table was created with, or the
    preset's where it was created express or with a point limit (what it would have had
    without them)."""
    if table.express:
        return 0
    if table.point_limit:
        return table.point_limit
    if not (created.table.express or created.table.point_limit):
        return created.rules.target_score
    try:
        return make_rules(created.rules.name).target_score
    except RulesError:  # rules stored under a name no preset has: keep theirs
        return created.rules.target_score


def join_text(terms_version: int) -> str:
    """A join's text: the version of the stake and rated play its player saw when they
    asked for the seat (``TableChange.terms_version``); "" for none changed yet."""
    return str(terms_version) if terms_version else ""


def seen_terms(text: str) -> int:
    """The terms' version a join's text holds (``join_text``)."""
    if text and not text.isdigit():
        raise InvalidMove("a join's text is the version of the terms its player saw")
    return int(text or 0)


__all__ = [
    "CHANGEABLE_OPTIONS",
    "TERMS",
    "TableChange",
    "join_text",
    "options_text",
    "parse_options",
    "seen_terms",
    "target_score_for",
]
