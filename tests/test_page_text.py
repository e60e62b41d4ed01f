"""The pages' prose lives in lessons/page_text.json: every text renders its fields, and the
allocator page's driver-call figures come from the simulator's parameter and the recording."""
import json
import re

from runtime_core.engine.sim.params import SimParams
from runtime_core.lesson import figures
from runtime_core.lesson.page_text import PAGE_TEXT, text
from runtime_core.recordings import best


def test_every_page_text_renders_its_fields():
    for page, texts in json.loads(PAGE_TEXT.read_text()).items():
        for key in texts:
            names = set(re.findall(r"(?<!\{)\{(\w+)\}(?!\})", texts[key]))
            out = text(page, key, **{n: "X" for n in names})
            assert "{{" not in out and figures.NOT_RECORDED not in out, (page, key, out)


def test_the_allocator_page_cites_the_simulators_driver_call_and_the_recorded_pair():
    badge = text("caching_allocator", "hot_path_badge", markdown=False)
    assert f"costs {SimParams().driver_call_us:.0f} µs" in badge
    raw = best("alloc").labs["alloc"]["allocators"]["raw"]["alloc_free_us"]
    assert f"~{raw:.0f} µs per cudaMalloc+cudaFree pair" in badge
