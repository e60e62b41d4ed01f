"""pages/ui/server_heap.py: the server freezes its heap once per new set of imported modules."""
import gc
import sys
import types

from pages.ui import server_heap


def test_settle_freezes_once_per_new_set_of_modules(monkeypatch):
    monkeypatch.setenv("RUNTIME_GC_FREEZE", "1")
    monkeypatch.setattr(server_heap, "_modules_seen", 0)
    try:
        assert server_heap.settle() is True and gc.get_freeze_count() > 0
        assert server_heap.settle() is False  # nothing imported since
        monkeypatch.setitem(sys.modules, "_server_heap_probe", types.ModuleType("_server_heap_probe"))
        assert server_heap.settle() is True
    finally:
        gc.unfreeze()


def test_settle_is_off_with_runtime_gc_freeze_0(monkeypatch):
    monkeypatch.setenv("RUNTIME_GC_FREEZE", "0")
    monkeypatch.setattr(server_heap, "_modules_seen", 0)
    assert server_heap.settle() is False
    assert server_heap._modules_seen == 0
