"""Every page renders on a CPU the way the app runs it, and the lab, interview and claims pages
do what a student clicks them for."""
import json
import re
from pathlib import Path

import pytest
from conftest import open_page
from pages.ui.safe_text import unescape

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_without_exception(page):
    """Every page renders; and none of its download buttons reruns the page when pressed (a
    rerun mid-download left the next button unclickable in the browser test on CI)."""
    at = open_page(page)
    rerunning = [b.proto.label for b in at.get("download_button") if not b.proto.ignore_rerun]
    assert not rerunning, f"download buttons that rerun {page}: {rerunning}"
    cut = [str(c.value)[-120:] for c in at.caption if "more characters)" in str(c.value)]
    assert not cut, f"{page}: lines cut short as if they were junk: {cut}"
    slugs = [h if anchor else _slug(h) for h, anchor in _headings(at)]
    twice = sorted({h for h in slugs if slugs.count(h) > 1})
    assert not twice, f"{page}: headings that share an anchor (a link to one lands on the other): {twice}"


def _headings(at) -> list[tuple[str, bool]]:
    """Every heading on the page, as (its own anchor, True) or (its text, False): titles, headers
    and subheaders, and Markdown's # lines."""
    out = [(e.proto.anchor, True) if e.proto.anchor else (str(e.value), False)
           for kind in ("title", "header", "subheader") for e in getattr(at, kind)]
    for m in at.markdown:
        out += [(line.lstrip("#").strip(), False) for line in str(m.value).splitlines() if re.match(r"#{1,6} ", line)]
    return out


def _slug(heading: str) -> str:
    """The anchor Streamlit gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r":[a-z-]+\[([^\]]*)\]", r"\1", heading)  # :blue-badge[x] -> x
    return re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", text.lower()).strip())


def _text(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "warning", "success", "info", "subheader")
             for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts)


def test_failure_mode_buttons_show_each_labs_signal():
    at = open_page("pages/8_Failure_modes.py")
    for lab in ("fusion", "sync", "storm", "stale", "malloc"):
        at = at.button(key=f"lab_run_{lab}_s7").click().run()
        assert not at.exception, at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert warnings.count("**Signal seen.**") == 2 * 5  # each simulated run, and the GPU run recorded beside it
    assert sum("recorded on a real GPU" in e.label for e in at.expander) == 5
    assert ":blue-badge[SIMULATED]" in _text(at)


def test_failure_modes_page_shows_every_part_of_its_lesson_once():
    """The checklist and the takeaway read full width below the columns: each shows exactly once."""
    at = open_page("pages/8_Failure_modes.py")
    text = _text(at)
    for heading in ("### 1. Hoping the compiler", "### 12. Capturing code", "## Checklist", "## Takeaway",
                    "## Where this points next"):
        assert text.count(heading) == 1, heading
    assert text.index("### 12. Capturing code") < text.index("## Checklist") < text.index("## Takeaway")


def test_streams_page_labels_pytorch_eager_as_async_and_runs_its_labs():
    at = open_page("pages/2_Streams_and_async.py")
    assert "PyTorch's own eager mode is asynchronous" in _text(at)
    at = at.button(key="lab_run_overlap_s2").click().run()
    at = at.button(key="lab_run_sync_s2").click().run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert "+ pageable copy" in labels and "µs per step, sync every step" in labels


def test_streams_page_zooms_both_recorded_steps_to_where_the_gaps_show():
    """Over a whole step of 120 kernels at 2 µs, the gaps between the streams step's kernels are
    under a pixel on a projector and its GPU lane reads as solid, against the caption's GPU-busy
    figure. The zoom cuts both steps at the same moment: where streams ran its first dozen kernels."""
    import json as j
    at = open_page("pages/2_Streams_and_async.py")
    zoom = at.radio(key="s2_zoom")
    at = zoom.set_value(zoom.options[1]).run()
    assert not at.exception
    ranges = [j.loads(c.proto.spec)["layout"]["xaxis"]["range"] for c in at.get("plotly_chart")
              if "s2_gpu2_" in c.proto.id]
    assert len(ranges) == 2 and ranges[0] == ranges[1] and ranges[0][1] < 200
    assert "cut at the same moment" in _text(at)


def test_streams_busy_caption_blames_the_launch_only_where_it_outlasts_the_kernel():
    """At 2 µs of work a launch outlasts its kernel and the gaps are the host's; at 40 µs each kernel
    outlasts its launch, so the caption must not say the launches took longer, nor ask for a close-up
    that is already drawn."""
    at = open_page("pages/2_Streams_and_async.py")
    busy = lambda at: next(c.value for c in at.caption if c.value.startswith("GPU busy"))
    # the close-up hint sits right under the charts, where the slices are
    under = lambda at: next(c.value for c in at.caption if c.value.startswith("Profiled GPU lane"))
    assert "takes longer than its kernel" in busy(at) and "close up" in under(at)
    at = at.radio(key="s2_work").set_value(40).run()
    assert "takes longer than its kernel" not in busy(at) and "outlasts its launch" in busy(at)
    assert "close up" not in under(at)
    at = at.radio(key="s2_work").set_value(2).run()
    zoom = at.radio(key="s2_zoom")
    at = zoom.set_value(zoom.options[1]).run()
    assert "takes longer than its kernel" in busy(at) and "close up" not in under(at)


def test_interview_reveal_and_grade_changes_the_tally():
    at = open_page("pages/10_Interview.py")
    cards = json.loads((ROOT / "lessons" / "interview.json").read_text())["cards"]
    assert cards[0]["question"] in _text(at)
    assert cards[0]["answer"] not in _text(at)
    at = at.button(key="iv_reveal").click().run()
    assert cards[0]["answer"] in _text(at)
    at = at.button(key="iv_got").click().run()
    assert _tally(at) == ("1", "0", f"1 of {len(cards)}")
    assert cards[1]["question"] in _text(at)  # grading moves on to the next card
    at = at.button(key="iv_reveal").click().run()
    at = at.button(key="iv_missed").click().run()
    assert _tally(at) == ("1", "1", f"2 of {len(cards)}")
    at = at.button(key="iv_prev").click().run().button(key="iv_prev").click().run()  # back to card 1
    at = at.button(key="iv_reveal").click().run().button(key="iv_missed").click().run()
    assert _tally(at) == ("0", "2", f"2 of {len(cards)}")  # graded again: counted once, at its latest grade
    assert not at.exception


def _tally(at) -> tuple:
    m = {x.label: x.value for x in at.metric}
    return m["got it"], m["missed"], m["cards graded"]


def test_every_interview_card_links_to_an_existing_page():
    pytest.importorskip("streamlit")
    from pages.ui.nav import page_for
    for card in json.loads((ROOT / "lessons" / "interview.json").read_text())["cards"]:
        page = page_for(card["live_page"])
        assert page and (ROOT / page).exists(), card["live_page"]


def test_claims_page_shows_a_verdict_for_every_claim():
    at = open_page("pages/11_Claims.py")
    text = _text(at)
    claims = json.loads((ROOT / "lessons" / "claims.json").read_text())["claims"]
    verdicts = [m.value for m in at.markdown if m.value in (":green[**holds**]", ":orange[**differs**]",
                                                              ":blue[**not evidence**]", ":gray[**no data**]")]
    assert len(verdicts) == len(claims)
    from runtime_core.lesson.figures import render
    for c in claims:  # claims carry a [seed] citation, shown as a marker
        assert render(c["claim"]) in text
    assert ":orange-badge[RECORDED]" in text  # the pinned-copy claim too: the shipped labs recording measured it
    assert "Sources: ‹seed› the seed lesson" in text  # the marker is named on the page that uses it most
    sections = [int(c["section"].lstrip("§")) for c in claims]
    assert sections == sorted(sections)  # cards in the lesson's order, for an instructor walking through them


def _sidebar_links(at) -> list[str]:
    return [e.proto.label for e in at.sidebar if e.type == "page_link"]


@pytest.mark.parametrize("page", [None, "pages/6_Launch_overhead_killer.py"])
def test_the_sidebar_lists_every_page_by_number_and_the_landing_page_as_start_here(page):
    from pages.ui.nav import numbered_pages
    links = _sidebar_links(open_page(page))
    assert links[0] == "Start here" and "app" not in links
    numbers = [int(label.split(".", 1)[0]) for label in links[1:]]
    assert numbers == sorted(numbers) == list(range(1, len(PAGES) + 1))
    assert links[1:] == [label for _, label in numbered_pages()]
    assert "4. CUDA graphs" in links and "7. Will graphs help my model" in links


def test_streamlits_own_page_list_is_switched_off():
    import tomllib
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showSidebarNavigation"] is False


def test_the_landing_page_explains_every_source_badge_the_pages_use():
    """A badge a page wears (CPU, CPU, RECORDED included) is explained where the app begins."""
    from pages.ui.common import SOURCE_BADGES
    at = open_page()
    text = " ".join(m.value for m in at.markdown)
    for colour, name in SOURCE_BADGES.values():
        assert f":{colour}-badge[{name}]" in text, name


def test_interview_deck_ends_with_a_summary_and_the_tally_resets_only_when_confirmed():
    """Grading skips to the next card not graded yet; the whole deck graded says so, naming the
    missed cards; "reset tally" asks first (it sat beside "next", one slip from losing the tally)."""
    at = open_page("pages/10_Interview.py")
    cards = json.loads((ROOT / "lessons" / "interview.json").read_text())["cards"]
    at = at.button(key="iv_next").click().run()          # start at card 2: grade it, then the rest
    for i in range(len(cards)):
        at = at.button(key="iv_reveal").click().run()
        at = at.button(key="iv_missed" if i == 0 else "iv_got").click().run()
    assert _tally(at) == (str(len(cards) - 1), "1", f"{len(cards)} of {len(cards)}")
    done = [s.value for s in at.info if s.value.startswith(f"All {len(cards)} cards graded")]
    assert done and "Worth another look: card 2." in done[0]
    assert not [s for s in at.success if "cards graded" in s.value]  # a deck with a miss is not praised in green
    assert "Yes, clear my grades" in [b.label for b in at.button]   # inside the popover, not a bare button
    at = at.button(key="iv_reset").click().run()
    assert _tally(at) == ("0", "0", f"0 of {len(cards)}") and not at.exception


def test_the_recorded_storm_lab_says_its_own_cache_size_when_the_slider_moves_away():
    """At a cache of 8 the simulated run says "No storm" while the recorded expander under it says
    "because the cache holds 4 graphs": its title says the slider moves only the simulated run."""
    at = open_page("pages/4_CUDA_graphs.py")
    assert any(e.label == "The same lab, recorded on a real GPU" for e in at.expander)
    at = at.slider(key="s4_cache").set_value(8).run()
    labels = [e.label for e in at.expander]
    assert any("with a cache of 4 graphs (the slider moves only the simulated run above)" in lab for lab in labels)
    # the recorded run's verdict is made from its counts now, in today's words (why every request misses)
    storms = [unescape(w.value) for w in at.warning if "Capture storm: 32 captures" in unescape(w.value)]
    assert storms and all("always just evicted the graph the next request needs" in w for w in storms), storms
    # an instructor who looks at page 3 mid-demo comes back to the cache they set
    at.switch_page("pages/3_Caching_allocator.py").run()
    at.switch_page("pages/4_CUDA_graphs.py").run()
    assert at.slider(key="s4_cache").value == 8 and not at.exception


def test_a_long_card_keeps_its_grade_under_the_answer_and_its_finer_points_folded():
    """Card 4 ran 446 words and three labs: "got it / missed" sat some 5,000 px under the question.
    Its follow-up detail folds into an expander, and the grade comes before the labs."""
    at = open_page("pages/10_Interview.py")
    cards = json.loads((ROOT / "lessons" / "interview.json").read_text())["cards"]
    four = next(i for i, c in enumerate(cards) if c["id"] == "cuda_graph_reduce_overhead")
    assert len(cards[four]["answer"].split()) <= 200 and cards[four]["detail"]
    for _ in range(four):
        at = at.button(key="iv_next").click().run()
    at = at.button(key="iv_reveal").click().run()
    assert [e.label for e in at.expander if "follow-up" in e.label] == ["The finer points, for a follow-up question"]
    keys = [b.key for b in at.button]
    assert keys.index("iv_got") < min(i for i, k in enumerate(keys) if k and k.startswith("lab_run_"))
    assert not at.exception


def test_the_streams_page_keeps_its_knobs_across_a_visit_to_another_page():
    """N=24 and 40 µs of work, set on page 2, are still set after a look at page 1."""
    at = open_page("pages/2_Streams_and_async.py")
    at.slider(key="s2_n").set_value(24).run()
    at.radio(key="s2_work").set_value(40).run()
    at.switch_page("pages/1_Artifact_vs_runtime.py").run()
    at.switch_page("pages/2_Streams_and_async.py").run()
    assert not at.exception and not [w for w in at.warning if "Session State API" in w.value]
    assert at.slider(key="s2_n").value == 24 and at.radio(key="s2_work").value == 40
    assert any("streams makes 24 launches" in str(c.value) for c in at.caption)
