"""The report tools' rooms: a family's room is found by the registry without a line of its
own (hdreport/registry.py reads hdreport/families/), and a room's look (register_look) can
only add to the shared one, never change it."""

from __future__ import annotations

import importlib
import sys

import pytest

from hdreport import families as rooms_package
from hdreport import registry
from hdreport.core import style

ROOM = '''"""A family made up for this test."""
from hdreport.families.{name} import figures, summary
PLACE = {place}
'''


def _add_room(tmp_path, monkeypatch, name: str, place) -> None:
    room = tmp_path / name
    room.mkdir()
    (room / "__init__.py").write_text(ROOM.format(name=name, place=place))
    (room / "figures.py").write_text("SPECS = []\nMAKERS = ()\n")
    (room / "summary.py").write_text("QUESTIONS = []\n")
    monkeypatch.setattr(rooms_package, "__path__", [*rooms_package.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, f"hdreport.families.{name}", raising=False)
    importlib.invalidate_caches()


def test_every_room_is_found_in_the_order_of_its_place():
    names = [room.__name__.rsplit(".", 1)[1] for room in registry.ROOMS]
    assert names[:2] == ["transfer", "device_local"]
    assert {"strided", "loader", "mlp", "dataparallel"} <= set(names)
    assert [room.PLACE for room in registry.ROOMS] == sorted(room.PLACE for room in registry.ROOMS)
    assert registry.FAMILIES == [(room.figures, room.summary) for room in registry.ROOMS]


def test_a_new_room_is_found_without_touching_the_registry(tmp_path, monkeypatch):
    _add_room(tmp_path, monkeypatch, "made_up_family", 65)
    rooms = registry._rooms()
    names = [room.__name__.rsplit(".", 1)[1] for room in rooms]
    assert names.index("made_up_family") == names.index("strided") + 1


@pytest.mark.parametrize("place, message", [(None, "gives no PLACE"), (60, "share PLACE 60")])
def test_a_room_without_a_place_of_its_own_is_refused_by_name(tmp_path, monkeypatch, place, message):
    _add_room(tmp_path, monkeypatch, "made_up_family", place)
    with pytest.raises(ImportError, match=message) as error:
        registry._rooms()
    assert "made_up_family" in str(error.value)


def test_a_room_cannot_recolour_a_value_another_room_coloured():
    # batch_copy's room colours its mapped kernel brown, as mapped memory; strided's agrees.
    assert style.COLOURS["method"]["mapped_kernel"] == style.COLOURS["memory"]["mapped"]
    with pytest.raises(ValueError, match="method=mapped_kernel is #8c564b already"):
        style.register_look(colours={"method": {"mapped_kernel": "#000000"}})
    assert style.COLOURS["method"]["mapped_kernel"] == "#8c564b"


def test_each_room_orders_its_own_values():
    order = [style.ORDER[v] for v in ("memcpy2d", "pack_then_copy", "contiguous")]
    assert order == sorted(order)
    assert style.ORDER["pageable"] < style.ORDER["demand"]  # shared values first, rooms' after
