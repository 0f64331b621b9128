"""Results as CSV or XLSX tables through django-import-export resources.

Two tables: *wide*, one row per paper (labels, points per problem, total, the automatic score
of an AI paper, medal, rank, flags), and
*long*, one row per paper, problem and criterion (each juror's mark, the agreed value and how it
was agreed). They work on what comparison.contest_results returns and never query on their own.
Identity and kind (AI system or human contestant) columns appear only when the caller says so (chair or organizer, contest final). Every
text column goes through spreadsheets.safe_text, so no cell runs as a formula."""

from import_export import resources
from import_export.fields import Field
from import_export.widgets import DecimalWidget, IntegerWidget, Widget

from grading.resolution.comparison import ContestResults
from grading.rules.spreadsheets import safe_text

FORMATS = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


class _RowsResource(resources.Resource):
    """A resource over plain dicts whose columns are known only at run time (problems, jurors)."""

    def __init__(self, columns: list[tuple[str, Widget]]):
        super().__init__()
        for key, widget in columns:
            self.fields[key] = Field(attribute=key, column_name=key, widget=widget)

    def get_export_order(self):
        return tuple(self.fields)


def _number():
    return DecimalWidget(coerce_to_string=False)


class _TextWidget(Widget):
    """Text as the spreadsheet must show it: names, labels, codes and reasons come from
    participants, jurors and the chair, and must never run as a formula."""

    def render(self, value, obj=None, **kwargs):
        return safe_text(super().render(value, obj, **kwargs))


def _text():
    return _TextWidget()


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


class WideResultResource(_RowsResource):
    """One row per paper."""

    def __init__(
        self, results: ContestResults, *, identities: bool, provisional=None, automatic=None
    ):
        provisional = provisional or {}
        automatic = automatic or {}
        numbers = [problem.number for problem in results.problems]
        columns = [("paper", _text())]
        if identities:
            columns += [("identity", _text()), ("kind", _text())]
        columns += [(f"P{n} label", _text()) for n in numbers]
        columns += [(f"P{n}", _number()) for n in numbers]
        columns += [
            ("total", _number()),
            # The competition's final score (0–1, its name), beside the jury's; a human
            # contestant's paper has none: the metric reads typed answers, not scans.
            ("score", _number()),
            ("max total", _number()),
            ("medal", _text()),
            ("rank", IntegerWidget(coerce_to_string=False)),
            ("percentile", _number()),
            ("provisional", _text()),
            ("straddles cut-off", _text()),
            # The problems the contestant left blank: their 0 is "no answer", not a grade.
            ("no answer", _text()),
        ]
        if provisional:
            # Provisional results were published: what they said, and what the appeals changed.
            columns += [
                ("provisional total", _number()),
                ("provisional rank", IntegerWidget(coerce_to_string=False)),
                ("provisional medal", _text()),
                ("changed by appeals", _text()),
            ]
        super().__init__(columns)
        self.rows = []
        for paper in results.papers:
            row = {"paper": paper.public_code}
            if identities:
                row["identity"] = paper.identity
                row["kind"] = paper.kind
            for n in numbers:
                row[f"P{n} label"] = paper.labels.get(n, "")
                row[f"P{n}"] = paper.problem_points[n]
            row.update(
                {
                    "total": paper.total,
                    "score": None if paper.is_human else automatic.get(paper.paper_id),
                    "max total": results.contest.max_total,
                    "medal": paper.medal,
                    "rank": paper.rank,
                    "percentile": paper.percentile,
                    "provisional": _yes_no(paper.provisional),
                    "straddles cut-off": _yes_no(paper.straddle),
                    "no answer": " ".join(f"P{n}" for n in sorted(paper.blank_problems)),
                }
            )
            if provisional:
                line = provisional.get(paper.paper_id)
                row.update(
                    {
                        "provisional total": line.total if line else None,
                        "provisional rank": line.rank if line else None,
                        "provisional medal": line.medal if line else "",
                        "changed by appeals": "; ".join(line.changes) if line else "",
                    }
                )
            self.rows.append(row)


class LongResultResource(_RowsResource):
    """One row per paper, problem and criterion, with every juror's submitted mark."""

    def __init__(self, results: ContestResults, *, identities: bool):
        columns = [("paper", _text())]
        if identities:
            columns += [("identity", _text()), ("kind", _text())]
        columns += [
            ("problem", IntegerWidget(coerce_to_string=False)),
            ("label", _text()),
            ("criterion", _text()),
            ("max points", _number()),
        ]
        for slot in range(1, results.juror_slots + 1):
            columns += [(f"juror {slot}", _text()), (f"mark {slot}", _number())]
        columns += [("agreed", _number()), ("how", _text()), ("reason", _text())]
        super().__init__(columns)
        number_of = {problem.pk: problem.number for problem in results.problems}
        self.rows = []
        for paper in sorted(results.papers, key=lambda p: p.public_code):
            for criterion in results.criteria:
                cell = paper.cells[criterion.pk]
                number = number_of[criterion.problem_id]
                row = {"paper": paper.public_code}
                if identities:
                    row["identity"] = paper.identity
                row["kind"] = paper.kind
                row.update(
                    {
                        "problem": number,
                        "label": paper.labels.get(number, ""),
                        "criterion": criterion.code,
                        "max points": criterion.points,
                    }
                )
                marks = cell.marks
                for slot in range(results.juror_slots):
                    username, points = marks[slot] if slot < len(marks) else ("", None)
                    row[f"juror {slot + 1}"] = username
                    row[f"mark {slot + 1}"] = points
                # An open cell has no agreed value yet; a pending one shows what is in so far.
                row.update(
                    {
                        "agreed": cell.points if cell.outcome.has_value else None,
                        "how": cell.status.label,
                        "reason": cell.reason,
                    }
                )
                self.rows.append(row)


def results_dataset(
    results: ContestResults, *, long: bool, identities: bool, provisional=None, automatic=None
):
    """The table; `provisional` (`grading.results.selectors.provisional_lines`) adds the
    published provisional results and the appeals' changes to the wide one, and `automatic`
    (`grading.results.selectors.automatic_scores`) the AI papers' automatic scores."""
    if long:
        resource = LongResultResource(results, identities=identities)
    else:
        resource = WideResultResource(
            results, identities=identities, provisional=provisional, automatic=automatic
        )
    dataset = resource.export(resource.rows)
    # The XLSX tab's name (tablib's default is "Tablib Dataset").
    dataset.title = "Results by criterion" if long else "Results"
    return dataset


def results_export(
    results: ContestResults,
    *,
    long: bool,
    identities: bool,
    fmt: str,
    provisional=None,
    automatic=None,
) -> bytes:
    """The table as file content: CSV (UTF-8 with a byte-order mark, without which Excel on
    Windows reads a name like "Zoë" as mojibake) or XLSX."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; use csv or xlsx.")
    dataset = results_dataset(
        results, long=long, identities=identities, provisional=provisional, automatic=automatic
    )
    content = dataset.export(fmt)
    return content.encode("utf-8-sig") if isinstance(content, str) else content


def file_name(contest, *, long: bool, fmt: str) -> str:
    return f"{contest.slug}-results-{'long' if long else 'wide'}.{fmt}"
