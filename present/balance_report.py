"""The balance report: plots (PNG and SVG, matplotlib) and one HTML page (Jinja2) in a folder.

matplotlib is the optional `balance` extra; `plotting()` raises `PlotsUnavailable` with the install
line when it cannot be imported. Figures are drawn on the Agg canvas without pyplot (no global state,
no display needed). The same statistics give the same bytes: SVG ids come from a fixed hash salt and
the SVG carries no date, PNG no software tag, and the page no timestamp.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardsmith.runtime.balance import Balance, CardBalance

PLOTS_HELP = ("the balance report draws its plots with matplotlib, an optional dependency of cardsmith; "
              "install it with: python3 -m pip install 'cardsmith[balance]'")

# A fixed salt gives SVG element ids that do not change between runs; glyphs as paths need no fonts to view.
_RC = {"svg.hashsalt": "cardsmith-balance", "svg.fonttype": "path", "font.size": 9}
_PLAYED, _OTHER, _EVEN = "#2f6fc0", "#999999", "#c8372d"


class PlotsUnavailable(RuntimeError):
    """matplotlib is missing."""


def plotting():
    """matplotlib, or PlotsUnavailable saying how to install it."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401  (the Agg canvas must load)
    except ImportError as e:
        raise PlotsUnavailable(f"{PLOTS_HELP} ({e})") from e
    return matplotlib


@dataclass(frozen=True)
class Plot:
    """One figure of the report: files `<name>.png` and `<name>.svg`, a title and what backs it."""

    name: str
    title: str
    caption: str


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, folder: Path, name: str) -> None:
    fig.savefig(folder / f"{name}.svg", format="svg", metadata={"Date": None})
    fig.savefig(folder / f"{name}.png", format="png", metadata={"Software": None})


def _games(b: Balance) -> str:
    return f"{b.games} game{'s' if b.games != 1 else ''}"


def _tick(label: str, n: int | None = None) -> str:
    """An axis label: the agent of a seat, and the count, on lines of their own."""
    text = label.replace(" (", "\n(")
    return text if n is None else f"{text}\nn={n}"


def _interval_bars(ax, xs, rates, color, label=None, horizontal=False, marker="o", fill=True):
    """Points at each rate with 95% interval whiskers."""
    values = [r.rate for r in rates]
    err = [[r.rate - r.low for r in rates], [r.high - r.rate for r in rates]]
    kw = {"fmt": marker, "color": color, "ecolor": color, "capsize": 3, "label": label,
          "markerfacecolor": color if fill else "white"}
    if horizontal:
        ax.errorbar(values, xs, xerr=err, **kw)
    else:
        ax.errorbar(xs, values, yerr=err, **kw)


def seat_plot(b: Balance, folder: Path) -> Plot:
    seats = len(b.seats)  # the players, then any automa seats
    fig = _figure(max(4.8, 1.2 + 1.1 * seats), 3.6)
    ax = fig.add_subplot()
    xs = list(range(1, seats + 1))
    ax.bar(xs, [s.rate.rate for s in b.seats], color="#dfe9d3", edgecolor="#3d9a3d", width=0.6)
    _interval_bars(ax, xs, [s.rate for s in b.seats], "#1d1d1b")
    ax.axhline(1 / seats, color=_EVEN, linestyle="--", linewidth=1, label=f"even share 1/{seats}")
    for x, s in zip(xs, b.seats, strict=True):
        ax.annotate(f"{s.rate.wins:g}/{s.rate.count}", (x, s.rate.high), textcoords="offset points",
                    xytext=(0, 4), ha="center", fontsize=8)
    ax.set_xticks(xs, [_tick(s.label) for s in b.seats])
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate")
    ax.set_title(f"Win rate by seat, 95% intervals ({_games(b)})")
    fig.legend(loc="outside lower center", fontsize=8, frameon=False)
    _save(fig, folder, "seat-win-rates")
    return Plot("seat-win-rates", "First-player advantage: win rate by seat",
                f"Each bar is one seat's share of the wins over {_games(b)}; seat 1 takes the first turn. "
                "Whiskers are 95% Wilson intervals, the dashed line the even share.")


def score_plot(b: Balance, folder: Path, by_agent: bool) -> Plot:
    groups = b.by_agent if by_agent else b.seats
    fig = _figure(max(4.2, 1.6 + 1.1 * len(groups)), 3.4)
    ax = fig.add_subplot()
    ax.boxplot([list(g.scores) for g in groups], showmeans=True, widths=0.5,
               meanprops={"marker": "D", "markerfacecolor": _PLAYED, "markeredgecolor": _PLAYED})
    ax.set_xticks(range(1, len(groups) + 1), [_tick(g.label, len(g.scores)) for g in groups])
    ax.set_ylabel("final score")
    what = "agent" if by_agent else "seat"
    ax.set_title(f"Scores by {what} ({_games(b)})")
    name = f"scores-by-{what}"
    _save(fig, folder, name)
    unit = "seat-games" if by_agent else "games"
    return Plot(name, f"Score distribution by {what}",
                f"Final scores over {_games(b)}; n under each box counts its {unit}. The box spans the middle "
                "half, the line is the median, the diamond the mean, whiskers reach 1.5 box lengths.")


def card_plot(b: Balance, folder: Path, min_plays: int, top: int = 15) -> Plot:
    ranked = b.ranked(min_plays)
    shown: list[CardBalance] = ranked if len(ranked) <= 2 * top else ranked[:top] + ranked[-top:]
    fig = _figure(7.5, 1.4 + 0.28 * max(len(shown), 2))
    ax = fig.add_subplot()
    if shown:
        ys = list(range(len(shown), 0, -1))
        _interval_bars(ax, [y + 0.15 for y in ys], [c.played for c in shown], _PLAYED, "holder played it",
                       horizontal=True)
        _interval_bars(ax, [y - 0.15 for y in ys], [c.not_played for c in shown], _OTHER, "all other seat-games",
                       horizontal=True, fill=False)
        ax.set_yticks(ys, [f"{c.name} (n={c.played.count})" for c in shown], fontsize=7)
        if len(ranked) > 2 * top:
            ax.axhline(ys[top - 1] - 0.5, color="#d8d4cc", linewidth=1)
        ax.axvline(1 / len(b.seats), color=_EVEN, linestyle="--", linewidth=1,
                   label=f"even share 1/{len(b.seats)}")
        fig.legend(loc="outside lower center", ncol=3, fontsize=7, frameon=False)
    else:
        ax.text(0.5, 0.5, f"no card was played in {min_plays} or more seat-games", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_yticks([])
    ax.set_xlim(0, 1)
    ax.set_xlabel("holder's win rate")
    part = f"the {top} largest and {top} smallest holder advantages" if len(ranked) > 2 * top else "every card"
    ax.set_title(f"Holder's win rate: card played or not ({_games(b)})")
    _save(fig, folder, "card-win-rates")
    return Plot("card-win-rates", "Cards: the holder's win rate when played and not",
                f"From {_games(b)} ({b.seat_games} seat-games): for {part} among the {len(ranked)} cards played "
                f"in at least {min_plays} seat-games, the win rate of the player who played the card (filled) "
                "against every other seat-game (hollow); n is how often it was played. Whiskers are 95% Wilson "
                "intervals.")


def length_plot(b: Balance, folder: Path) -> Plot:
    from matplotlib.ticker import MaxNLocator

    names = list(b.lengths)
    fig = _figure(3.4 * len(names) + 0.4, 3.2)
    for i, name in enumerate(names):
        ax = fig.add_subplot(1, len(names), i + 1)
        values = b.lengths[name]
        lo, hi = min(values), max(values)
        step = max(1, (hi - lo + 1) // 25)  # at most about 25 bars, each a whole number of turns wide
        edges = [lo - 0.5 + k * step for k in range((hi - lo) // step + 2)]  # whole numbers at bar centres
        ax.hist(values, bins=edges, color="#efe9dc", edgecolor="#8b5a2b")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(name)
        ax.set_ylabel("games")
        ax.set_title(f"{name} per game ({_games(b)})")
    _save(fig, folder, "game-length")
    return Plot("game-length", "Game length",
                f"How many {' and '.join(names)} the {_games(b)} lasted (the values at the end of each game).")


def write_report(b: Balance, folder: str | Path, min_plays: int = 10, pack_folder: Path | None = None,
                 comparison=None) -> list[Path]:
    """Draw the plots and write index.html into `folder` (created if need be); returns the files written.
    `comparison` (runtime.balance.Comparison): a what-if section for a variant of the pack.

    Everything is made in a scratch folder first and moved in only when the page rendered: a pack
    template that fails (TemplateError) leaves no file behind."""
    import os
    import tempfile

    from cardsmith.present.render import environment, render_template

    matplotlib = plotting()
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out, prefix=".report-") as scratch:
        stage = Path(scratch)
        with matplotlib.rc_context(_RC):
            plots = [seat_plot(b, stage), score_plot(b, stage, by_agent=False), score_plot(b, stage, by_agent=True),
                     card_plot(b, stage, min_plays), length_plot(b, stage)]
        ranked = b.ranked(min_plays)
        played = [c for c in b.cards if c.played.count]
        table = sorted(played, key=lambda c: (-c.difference[0], c.id)) + b.never_played
        html = render_template(
            environment(pack_folder), "balance.html.j2", b=b, plots={p.name: p for p in plots}, cards=table,
            ranked=ranked, min_plays=min_plays, strongest=[c for c in ranked if c.difference[0] > 0][:5],
            weakest=[c for c in reversed(ranked) if c.difference[0] < 0][:5], comparison=comparison)
        (stage / "index.html").write_text(html, encoding="utf-8")
        names = ["index.html"] + [f"{p.name}.{ext}" for p in plots for ext in ("png", "svg")]
        for name in names:
            os.replace(stage / name, out / name)
    return [out / name for name in names]
