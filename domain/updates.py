"""Changing some fields of a frozen, slotted dataclass: as a copy (what ``evolve`` returns)
or in place (what a fold does to the private copy it builds, ``Experiment.fold``).

A reducer step changes two or three fields of a state of fifteen or more: copying every
field for every event is most of what a step costs, and a fold of a whole run makes no use
of the states between its first and its last. A fold therefore copies the state it starts
from once and sets each event's changes on that copy, which nothing else can see until the
fold returns it; ``evolve`` keeps copying, since its caller keeps the state before."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

Changes = dict[str, Any]
"""New values of some of a state's fields."""


def updater(cls: type) -> Callable[[Any, Changes], Any]:
    """``lambda obj, changes: dataclasses.replace(obj, **changes)`` for the frozen, slotted
    dataclass ``cls``, at a quarter of the cost: it sets the slots one by one, in code written
    for ``cls`` (as ``dataclasses`` writes ``__init__``), instead of looping over the fields
    and calling ``__init__`` with every field by name. No ``__post_init__`` runs."""
    names = [f.name for f in fields(cls)]
    lines = ["def update(obj, changes):", "    new = new_object(cls)"]
    for i, name in enumerate(names):
        lines.append(f"    set{i}(new, changes[{name!r}] if {name!r} in changes else obj.{name})")
    lines.append("    return new")
    scope: dict[str, Any] = {"cls": cls, "new_object": object.__new__}
    scope.update({f"set{i}": getattr(cls, name).__set__ for i, name in enumerate(names)})
    exec("\n".join(lines), scope)  # code built from the field names above, nothing else
    update: Callable[[Any, Changes], Any] = scope["update"]
    update.__doc__ = f"dataclasses.replace for {cls.__name__}, changes given as a dict"
    return update


def setter(cls: type) -> Callable[[Any, Changes], None]:
    """Sets ``changes`` on an instance of the frozen, slotted dataclass ``cls`` in place:
    only for a private copy (``updater(cls)(obj, {})``) that no one else holds yet."""
    slots = {f.name: getattr(cls, f.name).__set__ for f in fields(cls)}

    def set_in_place(obj: Any, changes: Changes) -> None:
        for name, value in changes.items():
            slots[name](obj, value)

    set_in_place.__doc__ = f"sets fields of a private {cls.__name__} in place"
    return set_in_place


__all__ = ["Changes", "setter", "updater"]
