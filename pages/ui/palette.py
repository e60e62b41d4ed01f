"""Chart colours that colour-blind readers can tell apart: the Okabe–Ito palette (Okabe and Ito,
"Color Universal Design", 2002), used by every chart of the app.

Colour is never the only cue: each series also has a name in the legend or on its axis, and
where two series of one chart would differ by colour alone, a dash (lines) or a hatch pattern
(bars) tells them apart too. `hatched` is the one way a bar series gets its colour and hatch:
the hatch is drawn over the colour, never in its place. `legend_below` is the one legend placement
the charts share.
"""
from __future__ import annotations

BLACK = "#000000"
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
GREEN = "#009E73"        # bluish green
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"       # reddish purple
GREY = "#999999"
LIGHT_GREY = "#CCCCCC"
# A line or marker that stands for no series (a threshold, a crossover, the arena's top, a model's
# figure): a grey with 3:1 contrast or more on the light theme's white and on the dark theme's
# near-black, where BLACK vanished (page 3's "arena size" line).
INK = "#767676"
DARK_BACKGROUND = "#171614"  # the dark theme's page, as Chromium draws it (for the contrast test)

# In this order when a chart has many series of equal standing (e.g. the buffers of a plan).
CYCLE = [BLUE, ORANGE, GREEN, VERMILLION, SKY_BLUE, PURPLE, YELLOW, GREY]

# Hatch patterns (Plotly bar marker.pattern.shape), in the order charts hand them out.
PATTERNS = ["", "/", "x", ".", "\\", "+", "-", "|"]


def _luminance(colour: str) -> float:
    """WCAG relative luminance of a "#RRGGBB" colour."""
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(int(colour.lstrip("#")[i:i + 2], 16) / 255) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(colour: str) -> str:
    """BLACK or "white", whichever has the higher WCAG contrast ratio on `colour` (a "#RRGGBB")."""
    lum = _luminance(colour)
    return BLACK if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def hatched(colour: str, hatch: str = "", size: int | None = None, **marker) -> dict:
    """A bar trace's `marker`: filled with `colour`, and `hatch` (a PATTERNS shape, "" for none)
    drawn on top of it in black or white, whichever shows better on that colour.

    Plotly's default `pattern.fillmode` ("replace") draws the hatch in place of the colour on a
    transparent background: a black hatch on white, a white one invisible. "overlay" with
    bgcolor = the colour keeps the fill; both cues stay (colour for most readers, the hatch for
    those who cannot tell the colours apart). `marker`: more marker fields (line=...)."""
    pattern = dict(shape=hatch, fillmode="overlay", bgcolor=colour, fgcolor=contrast(colour))
    if size is not None:
        pattern["size"] = size
    return dict(color=colour, pattern=pattern, **marker)


def legend_below(fig, font_size: int = 12):
    """A horizontal legend at the bottom of the figure, under the axis title.

    The legend is placed in container coordinates, so Plotly grows the bottom margin to hold it:
    it cannot sit on the x axis title, and it is as far from the title as the figure is tall."""
    fig.update_layout(legend=dict(orientation="h", xref="container", x=0, xanchor="left",
                                  yref="container", y=0, yanchor="bottom", font=dict(size=font_size),
                                  title_text=""))
    return fig
