"""Hostile variants of a juror's downloaded sheet, shared by the upload-limit tests and
`bench/upload.py`: each edits the Marks tab's XML inside the workbook's zip."""

import io
import zipfile

MARKS_PART = "xl/worksheets/sheet1.xml"


def with_marks(data: bytes, change) -> bytes:
    """The workbook with its Marks tab's XML passed through `change`."""
    source = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info.filename)
            if info.filename == MARKS_PART:
                content = change(content.decode()).encode()
            target.writestr(info.filename, content)
    return buffer.getvalue()


def merged(ref: str):
    return lambda xml: xml.replace(
        "</sheetData>", f'</sheetData><mergeCells count="1"><mergeCell ref="{ref}"/></mergeCells>'
    )


def rows(numbers, cells_per_row: int = 1):
    """Rows numbered `numbers`, each of `cells_per_row` text cells."""

    def change(xml):
        added = "".join(
            f'<row r="{n}">'
            + "".join(f'<c t="inlineStr"><is><t>X{n}</t></is></c>' for _ in range(cells_per_row))
            + "</row>"
            for n in numbers
        )
        return xml.replace("</sheetData>", added + "</sheetData>")

    return change


def bogus_rows(first: int, count: int):
    """Labels and values that differ row to row, as a generated file would: about 1 MB packed
    for 100,000 rows."""

    def change(xml):
        added = "".join(
            f'<row r="{n}"><c r="A{n}" t="inlineStr"><is><t>Z{n * 7919 % 100003}</t></is></c>'
            f'<c r="B{n}"><v>{n % 5}</v></c></row>'
            for n in range(first, first + count)
        )
        return xml.replace("</sheetData>", added + "</sheetData>")

    return change
