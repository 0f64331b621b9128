"""The analysis export: the analysis page's tables (`grading.results.analysis_tables`) as one CSV
per table, a zip of them all with a README.csv, or one XLSX workbook with a sheet per table and
a README sheet first. Who may have it, and with which identities, is the caller's to decide
(`access`, as for the results exports); this module only writes.

As every file the project writes: CSV in UTF-8 with a byte-order mark (Excel on Windows reads
names right then), and text through `spreadsheets.safe_text`, so that no cell runs as a formula;
numbers stay numbers (negative differences included) for whoever sorts or sums them."""

import csv
import io
import zipfile
from decimal import Decimal

from grading.results.analysis_tables import (
    CALIBRATION,
    README_HEADER,
    TABLE_NAMES,
    TEXT,
    Table,
    readme_rows,
)
from grading.rules.spreadsheets import safe_text

FORMATS = {
    "csv": "text/csv; charset=utf-8",
    "zip": "application/zip",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
README = "README"


def _cell(value, kind: str):
    """A value as a file holds it: text neutralised (a code stays text whatever it looks like),
    numbers as they are, None blank."""
    if value is None:
        return None
    if kind == TEXT:
        return safe_text(str(value))
    return value


def _csv_text(header: list[str], rows: list[list]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if value is None else value for value in row])
    return buffer.getvalue().encode("utf-8-sig")


def _safe_rows(table: Table) -> list[list]:
    kinds = [column.kind for column in table.columns]
    return [
        [_cell(value, kind) for value, kind in zip(row, kinds, strict=True)] for row in table.rows
    ]


def _readme_rows(tables: list[Table]) -> list[list]:
    return [[safe_text(value) for value in row] for row in readme_rows(tables)]


def table_csv(table: Table) -> bytes:
    """One table as CSV."""
    return _csv_text(table.header, _safe_rows(table))


def tables_zip(tables: list[Table], *, stem: str) -> bytes:
    """Every table's CSV and README.csv (what each column means) in one zip."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{stem}-{README}.csv", _csv_text(README_HEADER, _readme_rows(tables)))
        for table in tables:
            archive.writestr(f"{stem}-{table.name}.csv", table_csv(table))
    return buffer.getvalue()


def tables_xlsx(tables: list[Table]) -> bytes:
    """One workbook: the README sheet, then a sheet per table named as the table."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    workbook = Workbook()
    sheets = [(README, README_HEADER, _readme_rows(tables))]
    sheets += [(table.name, table.header, _safe_rows(table)) for table in tables]
    for position, (title, header, rows) in enumerate(sheets):
        sheet = workbook.active if position == 0 else workbook.create_sheet()
        sheet.title = title
        sheet.append(header)
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for row in rows:
            # openpyxl stores a Decimal as a number; text that survived safe_text is a string.
            sheet.append([float(v) if isinstance(v, Decimal) else v for v in row])
        sheet.freeze_panes = "A2"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def analysis_export(tables: list[Table], *, fmt: str, stem: str, table: str = "") -> bytes:
    """The tables as file content: `csv` one table (`table`, by name), `zip` every table's CSV
    with a README.csv, `xlsx` one workbook. An unknown format or table is a ValueError whose
    sentence names the choices."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format “{fmt}”; use csv, zip or xlsx.")
    if fmt == "zip":
        return tables_zip(tables, stem=stem)
    if fmt == "xlsx":
        return tables_xlsx(tables)
    by_name = {each.name: each for each in tables}
    if table not in by_name:
        raise ValueError(
            f"There is no analysis table “{table}”; the tables are {', '.join(by_name)}."
        )
    return table_csv(by_name[table])


def file_name(contest, *, fmt: str, table: str = "") -> str:
    stem = f"{contest.slug}-analysis"
    return f"{stem}-{table}.csv" if fmt == "csv" else f"{stem}.{fmt}"


def table_names(*, calibration: bool) -> list[str]:
    """The tables' names in the export's order, for the command's and the page's choices."""
    return [*TABLE_NAMES, CALIBRATION] if calibration else list(TABLE_NAMES)
