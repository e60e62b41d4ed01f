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

Escapes do not stop GFM's autolink literals: remark-gfm finds `https://x.y`, `www.x.y` and
`a@b.c` in the text *after* the escapes are resolved, so `https\\://x\\.y` is still a link in
the browser. `esc` therefore also puts an invisible U+2060 WORD JOINER where such a literal
would start: between a scheme GFM links by itself and its colon (`http:`, `https:`, `mailto:`,
`xmpp:`, in any case), before every `@`, and between `www` and `.`. A reader sees the value as
typed; the patterns no longer match. Only there: a setting a student may copy and paste
(`max_split_size_mb:1024`) keeps its colon bare, so the copy is the setting, not a key name with
an invisible character in it. The value's own format characters (Cf, U+2060 among them) become spaces first,
so a value cannot cancel ours.

For tests: `unescape` is what a reader sees (no escapes, no joiners), `shown_text` the text the
autolink finder sees (no escapes, the joiners kept), `live_markup` the escaped characters
blanked out, and `live_constructs` every link, image, tag or autolink still live in a string.
"""
from __future__ import annotations

import re
import unicodedata

# ASCII punctuation that CommonMark, GFM or Streamlit give a meaning to:
#   \ ` * _ { } [ ] ( ) # + - . ! < > | ~ $ : @ &
# `.`, `:` and `@` are here because GFM turns `www.x.y`, `https://x.y` and `a@b.c` into links
# by themselves; `:` also starts Streamlit's `:red[...]` directives and emoji shortcodes.
MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()#+-.!<>|~$:@&")
MAX_CHARS = 200  # longer values are clipped: a notice is one line, not a dump of the URL
INVISIBLE = ("Cc", "Cf", "Zl", "Zp")  # control, format and line/paragraph separator characters
WORD_JOINER = "\u2060"  # invisible, no width, no line break: it only splits an autolink pattern
_AUTOLINK_START = re.compile(r"(?<=https)(?=:)|(?<=http)(?=:)|(?<=mailto)(?=:)|(?<=xmpp)(?=:)|(?=@)|(?<=www)(?=\.)",
                             re.IGNORECASE)


def esc(value, max_chars: int | None = MAX_CHARS) -> str:
    """`value` as Markdown that renders as exactly its text (clipped to `max_chars`).

    Args:
        value: anything; str() of it is escaped.
        max_chars: keep at most this many characters of the value (None: keep all); a clipped
            value ends with "… (N more characters)".
    """
    text, more = _cut(_printable(str(value)), max_chars)
    text = _AUTOLINK_START.sub(WORD_JOINER, text)  # after _printable: input joiners are spaces by now
    out = "".join("\\" + ch if ch in MARKDOWN_SPECIAL else ch for ch in text)
    return out + (f"… ({more} more characters)" if more else "")


def esc_typed(value, max_chars: int | None = MAX_CHARS) -> str:
    """A value a student typed, quoted back to them: as `esc`, but a control or format character
    (a zero-width space, a byte-order mark, a bidi override, pasted along with a number) shows as
    its code point, ⟨U+200B⟩, not as a space the student cannot tell from one typed."""
    shown = "".join(f"⟨U+{ord(ch):04X}⟩" if unicodedata.category(ch) in INVISIBLE else ch
                    for ch in str(value))
    return esc(shown, max_chars)


def clip(value, max_chars: int | None = MAX_CHARS) -> str:
    """`value` as plain text, clipped like `esc` but not escaped: for a place that escapes it
    itself (a `tables.show` cell), where `esc` would show its backslashes."""
    text, more = _cut(_printable(str(value)), max_chars)
    return text + (f"… ({more} more characters)" if more else "")


def _cut(text: str, max_chars: int | None) -> tuple[str, int]:
    """`text` cut to `max_chars` (None: whole), and how many characters were cut."""
    if max_chars is None or len(text) <= max_chars:
        return text, 0
    return text[:max_chars], len(text) - max_chars


def md(template: str, **values) -> str:
    """Fill a trusted Markdown `template` ("URL value {raw} ignored") with escaped `values`."""
    return template.format(**{k: esc(v) for k, v in values.items()})


def unescape(markdown: str) -> str:
    """What a reader sees of text made by `esc`: the backslash escapes and the word joiners
    removed (for tests: it equals the value as typed)."""
    return shown_text(markdown).replace(WORD_JOINER, "")


def shown_text(markdown: str) -> str:
    """The text Markdown hands to GFM's autolink finder: the backslash escapes resolved, the word
    joiners kept (for tests: search it for autolink patterns, see `live_constructs`)."""
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


# What GFM (remark-gfm's autolink literal) turns into a link by itself, in the text after the
# escapes are resolved: www. or http(s):// (any case), an e-mail address, mailto: and xmpp:.
AUTOLINK_PATTERNS = re.compile(r"(?:https?://|www\.)[-.\w]|(?:mailto|xmpp):[-.\w+]+@|[-.\w+]@[-\w]+\.[-\w]",
                               re.IGNORECASE)
LIVE_MARKUP = re.compile(r"\]\(|!\[|<[A-Za-z/!?]")  # a link or an image, an HTML tag


def live_constructs(markdown: str) -> list[str]:
    """Every link, image, HTML tag or autolink `markdown` would still render: escaped characters
    do not count (`live_markup`), a word joiner in a pattern does (`shown_text`). For tests: a
    string holding an outside value must give []."""
    found = [m.group(0) for m in LIVE_MARKUP.finditer(live_markup(markdown))]
    return found + [m.group(0) for m in AUTOLINK_PATTERNS.finditer(shown_text(markdown))]


def plot_text(value, max_chars: int | None = MAX_CHARS) -> str:
    """`value` for a Plotly label or hover text: Plotly reads `<a href>`, `<b>`, `<br>` there, so
    `<`, `>` and `&` become HTML entities (shown as typed); clipped like `esc`."""
    text = _printable(str(value))
    if max_chars is not None and len(text) > max_chars:
        text = text[:max_chars] + "…"
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


SOFT_HYPHEN = "\u00ad"  # a format character that only offers a line break (drawn as a hyphen there)


def _printable(text: str) -> str:
    """Control characters (newlines, tabs, escapes) and format characters (bidi overrides,
    zero-width joiners) become spaces: one line, shown in the order it was typed. A soft hyphen
    stays: it reorders nothing and joins nothing, and a long word in a narrow table needs it."""
    return "".join(" " if unicodedata.category(ch) in INVISIBLE and ch != SOFT_HYPHEN else ch
                   for ch in text)


RECORDED_CHARS = 400  # the recorders keep this much of a logged line (aot/trees_points.py, aot/cache_artifacts.py)
_CHECKOUT = re.compile(r"[^\s'\"(]*/(?=runtime_core/)")  # whatever stands before runtime_core/ in a path


def log_text(text: str) -> str:
    """A line torch logged, as a student should read it: paths from the repository's root (not the
    recording machine's checkout, nor torch's own cut of it), and a line the recorder cut at
    RECORDED_CHARS ends at a word, saying so."""
    cut = len(text) >= RECORDED_CHARS
    text = _CHECKOUT.sub("", text)
    if cut and " " in text.strip():
        text = text[:text.rstrip().rfind(" ")].rstrip() + " … (the recording keeps the start of this line)"
    return text
