"""Chart colours that colour-blind readers can tell apart: the Okabe–Ito palette (Okabe and Ito,
"Color Universal Design", 2002), used by every chart of the app.

Colour is never the only cue: each series also has a name in the legend or on its axis, and
where two series of one chart would differ by colour alone, a dash (lines) or a hatch pattern
(bars) tells them apart too. `legend_below` is the one legend placement the charts share.
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

# In this order when a chart has many series of equal standing (e.g. the buffers of a plan).
CYCLE = [BLUE, ORANGE, GREEN, VERMILLION, SKY_BLUE, PURPLE, YELLOW, GREY]

# Hatch patterns (Plotly bar marker.pattern.shape), in the order charts hand them out.
PATTERNS = ["", "/", "x", ".", "\\", "+", "-", "|"]


def legend_below(fig, font_size: int = 12):
    """A horizontal legend at the bottom of the figure, under the axis title.

    The legend is placed in container coordinates, so Plotly grows the bottom margin to hold it:
    it cannot sit on the x axis title, and it is as far from the title as the figure is tall."""
    fig.update_layout(legend=dict(orientation="h", xref="container", x=0, xanchor="left",
                                  yref="container", y=0, yanchor="bottom", font=dict(size=font_size),
                                  title_text=""))
    return fig
