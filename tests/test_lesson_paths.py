"""Every source file the lesson prose names is a path from the repository root that exists: a
student who looks for `engine/capture.py` from the top of the clone found nothing."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATH = re.compile(r"(?<![\w./-])((?:[A-Za-z_][\w-]*/)+[\w-]+\.(?:py|json|md|sh))\b")


def test_every_file_path_in_the_lesson_prose_exists():
    files = sorted((ROOT / "lessons").glob("*.md")) + sorted((ROOT / "lessons").glob("*.json"))
    cited = {(f.name, m) for f in files for m in PATH.findall(f.read_text(encoding="utf-8"))}
    assert cited, "no path found: the pattern is broken"
    missing = sorted((name, m) for name, m in cited if not (ROOT / m).exists())
    assert not missing, missing
