"""A problem's comparison a screenful at a time: at a few hundred papers the whole grid is
megabytes of HTML that the chair scrolls through, when they mostly want the papers still open,
those straddling a medal cut-off, or (a juror) their own. The rows matching the filters come a
page of `PAGE_SIZE` at a time, with links to the other pages, to each narrowing
(`comparison.SHOWS`) and to the whole grid ("Show all N papers").

Where every paper fits on one screen and nothing narrows it, none of this shows: the page is the
whole grid, as it always was."""

from dataclasses import dataclass, field
from urllib.parse import urlencode

from grading.resolution.comparison import SHOWS

PAGE_SIZE = 50
_SHOW_TEXT = {
    "": ("all", "Every paper"),
    "open": ("open", "Papers with a cell not yet settled"),
    "straddling": (
        "straddling",
        "Papers whose total, depending on whose marks are taken, falls on different sides of a medal cut-off",
    ),
    "mine": ("mine", "The papers you grade"),
}


@dataclass
class ShowLink:
    text: str
    title: str
    query: str
    current: bool


@dataclass
class ComparisonScreen:
    """The rows shown (`rows`) of the `total` matching the filters, and the links of the
    screen's bar (`shown`: whether the bar shows at all)."""

    rows: list
    total: int
    first: int = 1
    last: int = 0
    shown: bool = False
    everything: bool = False
    # More rows match than a page holds.
    pageable: bool = False
    shows: list[ShowLink] = field(default_factory=list)
    previous_query: str = ""
    next_query: str = ""
    all_query: str = ""
    paged_query: str = ""


def offered_shows(*, straddle_shown: bool, reader_grades: bool) -> list[str]:
    """The narrowings this reader is offered: the straddle only to a reader shown the flag
    (`access.reads_every_paper`), their own papers only to a juror who grades some."""
    return [
        show
        for show in SHOWS
        if (show != "straddling" or straddle_shown) and (show != "mine" or reader_grades)
    ]


def comparison_screen(
    rows: list,
    *,
    paper_count: int,
    kept: list[tuple[str, str]],
    show: str,
    offered: list[str],
    page: str,
    everything: bool,
) -> ComparisonScreen:
    """The screen of `rows` (those matching the filters) asked for: page `page` (1 when it is
    not a page number) or, with `everything`, every row. `kept`: the query's other parameters
    (view, filters), which every link of the bar keeps; `paper_count`: the problem's papers
    before any filter, which decides whether the bar shows."""
    total = len(rows)
    asked = page.isdigit() or everything or bool(show)
    screen = ComparisonScreen(rows=rows, total=total, last=total, everything=everything)
    screen.shown = asked or paper_count > PAGE_SIZE
    if not screen.shown:
        return screen
    with_show = kept + [("show", show)] * bool(show)
    screen.shows = [
        ShowLink(
            text=_SHOW_TEXT[name][0],
            title=_SHOW_TEXT[name][1],
            query=urlencode(kept + [("show", name)] * bool(name) + [("all", "1")] * everything),
            current=name == show,
        )
        for name in ["", *offered]
    ]
    screen.all_query = urlencode(with_show + [("all", "1")])
    screen.paged_query = urlencode(with_show)
    screen.pageable = total > PAGE_SIZE
    if everything or not screen.pageable:
        return screen
    pages = (total + PAGE_SIZE - 1) // PAGE_SIZE
    number = min(max(int(page) if page.isdigit() else 1, 1), pages)
    start = (number - 1) * PAGE_SIZE
    screen.rows = rows[start : start + PAGE_SIZE]
    screen.first, screen.last = start + 1, start + len(screen.rows)
    if number > 1:
        screen.previous_query = urlencode(with_show + [("page", str(number - 1))])
    if number < pages:
        screen.next_query = urlencode(with_show + [("page", str(number + 1))])
    return screen
