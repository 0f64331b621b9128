"""The analysis page's tables as plain rows with named, documented columns, for the analysis
export (`grading.results.analysis_exports` writes them as CSV, a zip of CSVs or XLSX). An output
layer over what `grading.results.analysis.contest_analysis` and its selectors return: no query.

Naming: a figure named as the competition names it (`score`: √(exact match × chrF) over every
task, 0–1) means what the competition's files mean by it. A figure the competition does not
publish, such as its metric over one problem's tasks, starts with `app_`. Columns ending in
`_pct` are on the 0–100 scale of the page (the jury's points as a percentage of the maximum, the
automatic score ×100); differences are jury − automatic, as the competition's paper reports them.
Each column says what it means once, here, and the export's README sheet is made from that."""

from dataclasses import dataclass, field

from grading.results.analysis import Analysis, Correlation
from grading.results.analysis_selectors import AnalysisData

# Floats leave with six decimals: more than the data's precision (points to 0.01, the metric to
# 0.0001 of 1), fewer than the noise of binary fractions (84.69000000000001).
DECIMALS = 6

NUMBER, TEXT = "number", "text"

# The tables in the page's order; the last only with the jurors' calibration (the chair's).
TABLE_NAMES = ("papers", "correlations", "difficulty", "difficulty_correlation", "agreement")
CALIBRATION = "calibration"


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # NUMBER or TEXT: what a spreadsheet cell of the column holds
    meaning: str


@dataclass
class Table:
    name: str
    about: str
    columns: list[Column]
    rows: list[list] = field(default_factory=list)

    @property
    def header(self) -> list[str]:
        return [column.name for column in self.columns]


def _number(value):
    """A figure as the file holds it: floats rounded, Decimals (points) as they are, None blank."""
    if isinstance(value, float):
        return round(value, DECIMALS)
    return value


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _papers(analysis: Analysis, data: AnalysisData) -> Table:
    columns = [Column("paper", TEXT, "the paper's public code, as in the results exports")]
    if analysis.identities:
        columns.append(Column("identity", TEXT, "the AI system"))
    columns += [
        Column("paper_number", NUMBER, "“Paper n” on the analysis page: 1 is the best jury total"),
        Column(
            "score",
            NUMBER,
            "the competition's final automatic score over every task, 0–1 (√(EM × chrF))",
        ),
    ]
    for problem in analysis.problems:
        p = f"p{problem.number}"
        columns += [
            Column(
                f"{p}_app_score_pct",
                NUMBER,
                f"the competition's metric over {problem.code}'s tasks alone, ×100 (the app's)",
            ),
            Column(f"{p}_jury_points", NUMBER, f"the jury's points for {problem.code}"),
            Column(f"{p}_jury_pct", NUMBER, f"the jury's points as % of {problem.code}'s maximum"),
            Column(f"{p}_difference_pct", NUMBER, f"{p}_jury_pct − {p}_app_score_pct"),
        ]
    columns += [
        Column(
            "app_score_pct",
            NUMBER,
            "the metric over the compared problems' tasks, ×100 (score ×100 once all are)",
        ),
        Column("jury_pct", NUMBER, "the jury's points over the compared problems, as % of max"),
        Column("difference_pct", NUMBER, "jury_pct − app_score_pct"),
        Column("medal", TEXT, "the medal of the jury total (blank: none)"),
        Column("provisional", TEXT, "yes while an open cell counts at its provisional value"),
        Column("human_rank", NUMBER, "the place the jury total takes among the human totals"),
        Column("human_percentile", NUMBER, "the share of human totals below it, %"),
    ]
    table = Table(
        "papers",
        "One row per AI paper: automatic against jury, per problem and in total.",
        columns,
    )
    for row in analysis.papers:
        scored = data.autoscores.get(row.paper_id)
        values = [row.public_code]
        if analysis.identities:
            values.append(row.name)
        values += [row.index, scored.overall.score if scored else None]
        for figures in row.problems:
            values += [figures.auto, figures.jury_points, figures.jury, figures.difference]
        values += [
            row.auto_total,
            row.jury_total,
            row.difference,
            row.medal,
            _yes_no(row.provisional),
            row.rank,
            row.percentile,
        ]
        table.rows.append([_number(value) for value in values])
    return table


_CORRELATION_COLUMNS = [
    Column("problem", TEXT, "P1, P2, … or total"),
    Column("problems", TEXT, "the problems the row covers (the total: those graded for all)"),
    Column("n", NUMBER, "AI papers with both figures"),
    Column("spearman", NUMBER, "Spearman ρ, jury against automatic (blank: under 3 pairs)"),
    Column("pearson", NUMBER, "Pearson r, jury against automatic"),
    Column("app_score_min_pct", NUMBER, "the lowest automatic figure, ×100"),
    Column("app_score_max_pct", NUMBER, "the highest automatic figure, ×100"),
    Column("app_score_range_pct", NUMBER, "app_score_max_pct − app_score_min_pct"),
    Column("jury_min_pct", NUMBER, "the lowest jury figure, % of the maximum"),
    Column("jury_max_pct", NUMBER, "the highest jury figure, % of the maximum"),
    Column("jury_range_pct", NUMBER, "jury_max_pct − jury_min_pct"),
    Column("range_ratio", NUMBER, "app_score_range_pct ÷ jury_range_pct (below 1: compressed)"),
    Column("mean_difference_pct", NUMBER, "mean of jury − automatic"),
    Column("weaker_half_difference_pct", NUMBER, "the same over the half the jury rates lower"),
    Column("stronger_half_difference_pct", NUMBER, "the same over the half it rates higher"),
]


def _correlation_values(name: str, covers: str, figures: Correlation) -> list:
    auto, jury = figures.auto_range, figures.jury_range
    return [
        name,
        covers,
        figures.n,
        figures.spearman,
        figures.pearson,
        auto.low if auto else None,
        auto.high if auto else None,
        auto.span if auto else None,
        jury.low if jury else None,
        jury.high if jury else None,
        jury.span if jury else None,
        figures.compression,
        figures.mean_difference,
        figures.weaker_half_difference,
        figures.stronger_half_difference,
    ]


def _correlations(analysis: Analysis) -> Table:
    table = Table(
        "correlations",
        "Jury against automatic across the AI papers: per problem, then the totals.",
        _CORRELATION_COLUMNS,
    )
    for item in analysis.by_problem:
        code = item.problem.code
        table.rows.append(_correlation_values(code, code, item.correlation))
    compared = " ".join(f"P{number}" for number in analysis.compared)
    table.rows.append(_correlation_values("total", compared, analysis.totals))
    table.rows = [[_number(value) for value in row] for row in table.rows]
    return table


def _difficulty(analysis: Analysis) -> Table:
    table = Table(
        "difficulty",
        "Per criterion, the share of AI papers and of human contestants meeting it in full.",
        [
            Column("problem", TEXT, "P1, P2, …"),
            Column("criterion", TEXT, "the criterion's code in the grading scheme"),
            Column("kind", TEXT, "Assignment or Theory"),
            Column("title", TEXT, "the criterion's title"),
            Column("points", NUMBER, "the criterion's maximum"),
            Column("ai_papers", NUMBER, "AI papers with a settled value"),
            Column("ai_met", NUMBER, "of which met it in full (settled value = points)"),
            Column("ai_share", NUMBER, "ai_met ÷ ai_papers, 0–1"),
            Column("human_papers", NUMBER, "human papers with a settled value (blank: imported)"),
            Column("human_met", NUMBER, "of which met it in full"),
            Column("human_share", NUMBER, "share of human contestants meeting it, 0–1"),
            Column("human_basis", TEXT, "jury (human papers graded) or imported (rates)"),
        ],
    )
    for row in analysis.difficulty:
        criterion = row.criterion
        values = [
            criterion.problem.code,
            criterion.code,
            criterion.get_kind_display(),
            criterion.title,
            criterion.points,
            row.n,
            row.met,
            row.share,
            row.human_n,
            row.human_met,
            row.human,
            analysis.difficulty_basis,
        ]
        table.rows.append([_number(value) for value in values])
    return table


def _difficulty_correlation(analysis: Analysis) -> Table:
    table = Table(
        "difficulty_correlation",
        "Spearman ρ between the AI share and the human share over the criteria with both.",
        [
            Column("n", NUMBER, "criteria with both shares"),
            Column("spearman", NUMBER, "Spearman ρ (blank: under 3 criteria or no variation)"),
            Column("p_value", NUMBER, "its two-sided p-value"),
            Column("human_basis", TEXT, "jury (human papers graded) or imported (rates)"),
        ],
    )
    # The p-value as it is: rounded to six decimals, a small one would read as 0.
    table.rows.append(
        [
            analysis.difficulty_pairs,
            _number(analysis.difficulty_spearman),
            analysis.difficulty_p,
            analysis.difficulty_basis,
        ]
    )
    return table


def _agreement(analysis: Analysis) -> Table:
    table = Table(
        "agreement",
        "Agreement before resolution, over the marks as submitted in cells with two or more.",
        [
            Column("by", TEXT, "problem or kind (of criterion)"),
            Column("group", TEXT, "the problem (or All problems) or the criterion kind"),
            Column("cells", NUMBER, "cells with at least two marks as submitted"),
            Column("exact", NUMBER, "of which every mark was the same"),
            Column("exact_rate", NUMBER, "exact ÷ cells, 0–1"),
            Column("krippendorff_alpha", NUMBER, "Krippendorff's α, interval, on points"),
        ],
    )
    for by, rows in (
        ("problem", analysis.agreement_by_problem),
        ("kind", analysis.agreement_by_kind),
    ):
        for row in rows:
            values = [by, row.label, row.cells, row.exact, row.rate, row.alpha]
            table.rows.append([_number(value) for value in values])
    return table


def _calibration(analysis: Analysis) -> Table:
    table = Table(
        CALIBRATION,
        "Each juror's marks as submitted against the agreed values (the chair's).",
        [
            Column("juror", TEXT, "the juror's name"),
            Column("cells", NUMBER, "agreed cells the juror marked"),
            Column("mean_deviation", NUMBER, "mean of mark as submitted − agreed value"),
            Column("mean_absolute_deviation", NUMBER, "mean of its absolute value"),
        ],
    )
    for row in analysis.calibration or []:
        values = [row.name, row.n, row.mean_deviation, row.mean_absolute_deviation]
        table.rows.append([_number(value) for value in values])
    return table


def analysis_tables(analysis: Analysis, data: AnalysisData) -> list[Table]:
    """The page's tables in its order; the jurors' calibration only where the analysis has it
    (`contest_analysis(calibration=True)`, the chair's)."""
    tables = [
        _papers(analysis, data),
        _correlations(analysis),
        _difficulty(analysis),
        _difficulty_correlation(analysis),
        _agreement(analysis),
    ]
    if analysis.calibration is not None:
        tables.append(_calibration(analysis))
    return tables


def readme_rows(tables: list[Table]) -> list[list[str]]:
    """What each column of each table means: the README sheet's rows (table, column, kind,
    meaning), after a row per table saying what it is."""
    rows = [[table.name, "", "", table.about] for table in tables]
    for table in tables:
        rows += [[table.name, c.name, c.kind, c.meaning] for c in table.columns]
    return rows


README_HEADER = ["table", "column", "kind", "meaning"]
