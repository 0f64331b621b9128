"""The jury evaluations (`grading.results.jury_evaluations`) as files: CSV, XLSX with a README
sheet, or a zip of the CSV and a README.txt. Works on what the selector returns and never
queries on its own.

The CSV is one header line and the rows, nothing else, so that `pandas.read_csv(path)` loads it
with its default options; what each column means is in the zip's README.txt, the XLSX's README
sheet and the project's README, all from `COLUMNS` below. Points are numbers (blank where there
is none), codes and names text; every text value goes through `spreadsheets.safe_text`, so no
cell runs as a formula."""

import csv
import io
import zipfile

from grading.results.jury_evaluations import JuryEvaluations
from grading.rules.spreadsheets import safe_text

FORMATS = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "zip": "application/zip",
}

TEXT, NUMBER = "text", "number"
IDENTITY_COLUMNS = ("identity", "kind")

# (column, type, meaning), in the files' order; the identity columns only where the export
# names the systems.
COLUMNS = [
    ("paper", TEXT, "The paper's public code (random, the same in every problem and export)."),
    ("identity", TEXT, "The AI system or contestant (only in exports that name them)."),
    ("kind", TEXT, "AI system or human contestant (only in exports that name them)."),
    ("problem", NUMBER, "The problem's number."),
    ("label", TEXT, "The paper's anonymous label in this problem, as its jurors saw it."),
    ("criterion", TEXT, "The criterion's code in the problem's grading scheme."),
    ("criterion_kind", TEXT, "assignment or theory."),
    ("max_points", NUMBER, "The most points the criterion gives."),
    ("juror", TEXT, "The juror's username."),
    (
        "submitted_points",
        NUMBER,
        "The juror's mark when they submitted their sheet, before any discussion or revision "
        "(read from the mark's history); blank if the mark was blank then.",
    ),
    (
        "revised_points",
        NUMBER,
        "The juror's mark now, after any revision in the resolution phase (equal to "
        "submitted_points when the juror did not change it).",
    ),
    (
        "agreed_points",
        NUMBER,
        "The cell's value as the results count it (the same for every juror of the paper and "
        "criterion); blank while the cell is open; for a pending cell, the value so far.",
    ),
    (
        "settled",
        TEXT,
        "How the cell was settled: agreed (every mark the same), within_tolerance (marks "
        "within the criterion's tolerance: their mean rounded down to the step), consensus "
        "(the jurors revised to agreement), chair (decided by the chair), appeal (decided on "
        "a team leader's appeal), open (a discrepancy not resolved yet), pending (a juror's "
        "mark is still missing).",
    ),
    ("reason", TEXT, "The chair's or the appeal's reason, for cells settled so."),
    (
        "scheme_version",
        NUMBER,
        "The version of the problem's grading scheme the mark was last given or re-confirmed "
        "under.",
    ),
]


def columns(identities: bool) -> list[tuple[str, str, str]]:
    return [c for c in COLUMNS if identities or c[0] not in IDENTITY_COLUMNS]


def _values(data: JuryEvaluations) -> list[list]:
    """The rows as lists in the columns' order, text made safe and numbers left numbers."""
    names = [(name, kind) for name, kind, _ in columns(data.identities)]
    return [
        [
            getattr(row, name) if kind == NUMBER else safe_text(getattr(row, name) or "")
            for name, kind in names
        ]
        for row in data.rows
    ]


def readme_lines(data: JuryEvaluations) -> list[str]:
    """What the files hold and what each column means: the XLSX's README sheet and the zip's
    README.txt."""
    contest = data.contest
    named = "names" if data.identities else "does not name"
    return [
        f"Jury evaluations of {contest.name} ({contest.slug}), {len(data.rows)} rows.",
        "One row per juror, paper and criterion: every mark that counts (marks on submitted "
        "sheets of papers still assigned to the juror; calibration and seed marks never).",
        f"This export {named} the systems; papers are known by their public code.",
        f"The contest's state when exported: {contest.get_state_display()}; "
        + (
            "the values are final."
            if contest.is_final
            else "agreed values may still change (open and pending cells, appeals)."
        ),
        "",
        "Columns:",
        *(f"{name} ({kind}): {meaning}" for name, kind, meaning in columns(data.identities)),
    ]


def _csv(data: JuryEvaluations) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([name for name, _, _ in columns(data.identities)])
    writer.writerows(_values(data))
    # A byte-order mark, without which Excel on Windows reads a name like "Zoë" as mojibake;
    # pandas reads past it.
    return out.getvalue().encode("utf-8-sig")


# The rows between two reports of a workbook's progress: about fifty for a real contest's.
PROGRESS_EVERY = 1000


def xlsx_write(data: JuryEvaluations, target, progress=None) -> None:
    """The XLSX (the rows' sheet, then the README sheet) into `target`, a path or a binary
    file; `progress(done, total)` is told of the rows written as they go, for the job that
    makes it at a real contest's size (tens of seconds)."""
    # Write-only: a real contest is some fifty thousand rows, which a workbook kept in memory
    # writes several times slower.
    # openpyxl is heavy: loaded when a workbook is written, never when Django starts.
    from openpyxl import Workbook
    from openpyxl.utils import get_column_letter

    book = Workbook(write_only=True)
    sheet = book.create_sheet("Jury evaluations")
    names = [name for name, _, _ in columns(data.identities)]
    for index, name in enumerate(names, start=1):
        sheet.column_dimensions[get_column_letter(index)].width = max(10, len(name) + 2)
    sheet.freeze_panes = "A2"
    sheet.append(names)
    total = len(data.rows)
    for done, values in enumerate(_values(data), start=1):
        sheet.append(values)
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, total)
    readme = book.create_sheet("README")
    readme.column_dimensions["A"].width = 120
    for line in readme_lines(data):
        readme.append([safe_text(line)])
    book.save(target)
    if progress is not None:
        progress(total, total)


def _xlsx(data: JuryEvaluations) -> bytes:
    out = io.BytesIO()
    xlsx_write(data, out)
    return out.getvalue()


def _zip(data: JuryEvaluations) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(file_name(data.contest, fmt="csv"), _csv(data))
        archive.writestr("README.txt", "\n".join(readme_lines(data)) + "\n")
    return out.getvalue()


def jury_evaluations_export(data: JuryEvaluations, *, fmt: str) -> bytes:
    """The file's content in `fmt` (csv, xlsx or zip)."""
    writers = {"csv": _csv, "xlsx": _xlsx, "zip": _zip}
    if fmt not in writers:
        raise ValueError(f"Unknown export format {fmt!r}; use csv, xlsx or zip.")
    return writers[fmt](data)


def file_name(contest, *, fmt: str) -> str:
    return f"{contest.slug}-jury-evaluations.{fmt}"
