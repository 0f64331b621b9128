"""The analysis page's charts as SVG, rendered on the server with matplotlib so that they need no
JavaScript and print as they show.

A fresh `Figure` per chart (no pyplot): no global figure state shared between requests. Text
stays text (`svg.fonttype` none) and ids are salted with a constant so the same data gives the
same file. Points sit in groups with ids (`jury-points`, `auto-points`, `papers`, `criteria`),
bars are `bar-<label>`. Papers are labelled by their neutral index only, never by identity:
a chart is easily saved and passed on."""

import io

from grading.results.analysis import Analysis

JURY = "#2450a6"
AUTO = "#b06f00"
OVER = "#b06f00"
UNDER = "#2450a6"
GUIDE = "#8a93a3"
RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "jury-analysis",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
# Labelling every point stops helping beyond a few dozen.
LABEL_LIMIT = 30


def _svg(figure) -> str:
    from matplotlib import rc_context

    buffer = io.StringIO()
    with rc_context(RC):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buffer.getvalue()


def _figure(width: float, height: float):
    # matplotlib loads with the first chart, not with the URL conf (every start of a command).
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    with rc_context(RC):
        figure = Figure(figsize=(width, height))
        return figure, figure.subplots()


def _nothing_yet(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color=GUIDE)


def distribution_svg(analysis: Analysis) -> str:
    """Jury and automatic totals of every paper on one 0–100 axis, with the medal cut-offs."""
    figure, ax = _figure(7, 2.4)
    rows = [row for row in analysis.papers if row.jury_total is not None]

    def jitter(index: int) -> float:
        # A fixed spread so that equal totals stay visible and the file is reproducible.
        return ((index - 1) % 5 - 2) * 0.07

    ax.scatter(
        [row.jury_total for row in rows],
        [1 + jitter(row.index) for row in rows],
        color=JURY,
        s=22,
        gid="jury-points",
    )
    auto = [row for row in rows if row.auto_total is not None]
    ax.scatter(
        [row.auto_total for row in auto],
        [jitter(row.index) for row in auto],
        color=AUTO,
        marker="D",
        s=18,
        gid="auto-points",
    )
    for name, minimum in analysis.cutoffs:
        ax.axvline(minimum, color=GUIDE, linestyle="--", linewidth=0.8)
        ax.text(minimum, 1.5, f" {name}", color=GUIDE, fontsize=7, rotation=0, va="bottom")
    ax.set_xlim(-2, 102)
    ax.set_ylim(-0.5, 1.75)
    ax.set_yticks([0, 1], ["Automatic", "Jury"])
    ax.set_xlabel("Total, % of the maximum")
    if not rows:
        _nothing_yet(ax, "No paper has a jury total yet.")
    return _svg(figure)


def scatter_svg(analysis: Analysis) -> str:
    """Jury total against automatic total per paper, with the identity line: points below the
    line are papers the automatic metric over-credits."""
    figure, ax = _figure(4.8, 4.6)
    rows = [
        row for row in analysis.papers if row.jury_total is not None and row.auto_total is not None
    ]
    ax.plot([0, 100], [0, 100], color=GUIDE, linestyle="--", linewidth=0.8, gid="identity")
    ax.scatter(
        [row.auto_total for row in rows],
        [row.jury_total for row in rows],
        color=JURY,
        s=24,
        gid="papers",
    )
    if len(rows) <= LABEL_LIMIT:
        for row in rows:
            ax.annotate(
                str(row.index),
                (row.auto_total, row.jury_total),
                xytext=(4, 3),
                textcoords="offset points",
                fontsize=7,
            )
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 102)
    ax.set_aspect("equal")
    ax.set_xlabel("Automatic score (0–100)")
    ax.set_ylabel("Jury total, % of the maximum")
    if not rows:
        _nothing_yet(ax, "No paper has both totals yet.")
    return _svg(figure)


def differences_svg(analysis: Analysis) -> str:
    """Per problem (and for the totals) the mean of jury − automatic over the papers that have
    both: above zero the metric under-credits, below it over-credits."""
    figure, ax = _figure(6, 2.8)
    bars = [
        (item.problem.code, item.correlation.mean_difference)
        for item in analysis.by_problem
        if item.correlation.mean_difference is not None
    ]
    if analysis.totals.mean_difference is not None:
        bars.append(("Total", analysis.totals.mean_difference))
    for position, (label, value) in enumerate(bars):
        ax.bar(
            position,
            value,
            color=UNDER if value >= 0 else OVER,
            width=0.6,
            gid=f"bar-{label}",
        )
    ax.axhline(0, color=GUIDE, linewidth=0.8)
    ax.set_xticks(range(len(bars)), [label for label, _ in bars])
    ax.set_xlim(-0.6, max(len(bars), 1) - 0.4)
    ax.set_ylabel("Jury − automatic (points of 100)")
    if not bars:
        _nothing_yet(ax, "Nothing graded to compare yet.")
    return _svg(figure)


def difficulty_svg(analysis: Analysis) -> str:
    """Per criterion, the share of AI papers meeting it in full against the share of human
    contestants, with the identity line."""
    figure, ax = _figure(4.8, 4.6)
    rows = [row for row in analysis.difficulty if row.share is not None and row.human is not None]
    ax.plot([0, 100], [0, 100], color=GUIDE, linestyle="--", linewidth=0.8, gid="identity")
    ax.scatter(
        [100 * row.human for row in rows],
        [100 * row.share for row in rows],
        color=JURY,
        s=24,
        gid="criteria",
    )
    if len(rows) <= LABEL_LIMIT:
        for row in rows:
            ax.annotate(
                f"{row.criterion.problem.code} {row.criterion.code}",
                (100 * row.human, 100 * row.share),
                xytext=(4, 3),
                textcoords="offset points",
                fontsize=7,
            )
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 102)
    ax.set_aspect("equal")
    ax.set_xlabel("Human contestants meeting it in full (%)")
    ax.set_ylabel("AI papers meeting it in full (%)")
    if not rows:
        _nothing_yet(ax, "No human share yet: no human paper settled, no rates imported.")
    return _svg(figure)


CHARTS = {
    "distribution": distribution_svg,
    "scatter": scatter_svg,
    "differences": differences_svg,
    "difficulty": difficulty_svg,
}
