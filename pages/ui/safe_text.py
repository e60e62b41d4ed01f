"""Outside text on a page, shown as text: never as Markdown, HTML or a link.

Streamlit renders the body of st.markdown, st.caption, st.warning, st.info, st.error,
st.success, st.toast, st.status labels and expander labels as Markdown (GitHub flavour, with
its own `:red[...]` directives and `$...$` maths). A value that did not come from us (a URL
query value, a number a student typed, an exception message that quotes one, a recording's
file name or device name, a child process's error line) could therefore render as a clickable
link (`[log in again](https://evil.example)`), make the browser fetch an image
(`![x](https://evil.example/a.png)`), or turn a bare `https://...` into a link (GFM autolinks).

`esc(value)` makes such a value inert: every character Markdown, GFM or Streamlit gives a
meaning to is backslash-escaped (CommonMark shows `\\[` as a plain `[`), control and
bidirectional-override characters become spaces (a newline could start a heading or a list),
and the text is clipped to a length a notice can show. `md(template, **values)` fills a
trusted Markdown template with escaped values. Nothing here imports streamlit.
"""
from __future__ import annotations

import unicodedata

# ASCII punctuation that CommonMark, GFM or Streamlit give a meaning to:
#   \ ` * _ { } [ ] ( ) # + - . ! < > | ~ $ : @ &
# `.`, `:` and `@` are here because GFM turns `www.x.y`, `https://x.y` and `a@b.c` into links
# by themselves; `:` also starts Streamlit's `:red[...]` directives and emoji shortcodes.
MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()#+-.!<>|~$:@&")
MAX_CHARS = 200  # longer values are clipped: a notice is one line, not a dump of the URL


def esc(value, max_chars: int | None = MAX_CHARS) -> str:
    """`value` as Markdown that renders as exactly its text (clipped to `max_chars`).

    Args:
        value: anything; str() of it is escaped.
        max_chars: keep at most this many characters of the value (None: keep all); a clipped
            value ends with "… (N more characters)".
    """
    text = _printable(str(value))
    more = 0
    if max_chars is not None and len(text) > max_chars:
        more = len(text) - max_chars
        text = text[:max_chars]
    out = "".join("\\" + ch if ch in MARKDOWN_SPECIAL else ch for ch in text)
    return out + (f"… ({more} more characters)" if more else "")


def md(template: str, **values) -> str:
    """Fill a trusted Markdown `template` ("URL value {raw} ignored") with escaped `values`."""
    return template.format(**{k: esc(v) for k, v in values.items()})


def unescape(markdown: str) -> str:
    """What a reader sees of text made by `esc`: the backslash escapes removed (for tests)."""
    out, i = [], 0
    while i < len(markdown):
        ch = markdown[i]
        if ch == "\\" and i + 1 < len(markdown) and markdown[i + 1] in MARKDOWN_SPECIAL:
            out.append(markdown[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def live_markup(markdown: str) -> str:
    """`markdown` with every escaped character (and its backslash) blanked out: what is left is
    the text Markdown would still interpret. Tests search it for "](", "![" or "<img"."""
    out, i = [], 0
    while i < len(markdown):
        ch = markdown[i]
        if ch == "\\" and i + 1 < len(markdown) and markdown[i + 1] in MARKDOWN_SPECIAL:
            out.append("  ")
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def plot_text(value, max_chars: int | None = MAX_CHARS) -> str:
    """`value` for a Plotly label or hover text: Plotly reads `<a href>`, `<b>`, `<br>` there, so
    `<`, `>` and `&` become HTML entities (shown as typed); clipped like `esc`."""
    text = _printable(str(value))
    if max_chars is not None and len(text) > max_chars:
        text = text[:max_chars] + "…"
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _printable(text: str) -> str:
    """Control characters (newlines, tabs, escapes) and format characters (bidi overrides,
    zero-width joiners) become spaces: one line, shown in the order it was typed."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text)
