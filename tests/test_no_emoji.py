"""Nothing on our screens needs an emoji font: headless Chromium (and many school machines) draw
emoji as empty boxes. Source badges are Markdown badges, icons are Material icons (Streamlit
ships their font), buttons say what they do in words."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _emoji(ch: str) -> bool:
    o = ord(ch)
    return (0x1F000 <= o <= 0x1FAFF or 0x2600 <= o <= 0x27BF or 0x2B00 <= o <= 0x2BFF
            or 0x25A0 <= o <= 0x25FF or o == 0xFE0F)


def test_our_pages_and_labels_use_no_emoji():
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "pages" / "ui").glob("*.py")),
             ROOT / "lessons" / "claims.json", ROOT / "lessons" / "labs.json"]
    hits = [f"{f.relative_to(ROOT)}:{i}: {line.strip()[:80]}"
            for f in files
            for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if any(map(_emoji, line))]
    assert not hits, hits


def test_source_labels_are_badges_with_words():
    from pages.ui.common import SOURCE_LABELS
    assert set(SOURCE_LABELS) == {"live", "recorded", "simulated", "model", "cpu", "cpu_recorded"}
    for label in SOURCE_LABELS.values():
        assert label.startswith(":") and "-badge[" in label and not any(map(_emoji, label))
