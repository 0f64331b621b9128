"""What tests/snapshot_outputs.py writes is the same on every Python it runs on and reads back as
it was written: a command's help does not take argparse's layout (which changed in 3.13) nor the
terminal's width, and no body line of an approved text can pass for a record's header."""

import argparse
import sys

from tests.snapshot_outputs import HEADER, help_text, outputs_text, text_records

HELP = """\
Grade the papers of a contest.

contest
    The contest's slug.
-h, --help
    show this help message and exit
-v, --verbosity {0,1,2,3}
    How much to say (default 1, one of 0, 1, 2, 3).
--problem N [N ...]
    The problems to grade.
--out OUT (required)
--dry-run
    Write nothing.
"""


def grading_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="manage.py grade", description="Grade   the papers\n of a contest."
    )
    parser.add_argument("contest", help="The contest's slug.")
    parser.add_argument(
        "-v", "--verbosity", type=int, choices=[0, 1, 2, 3], default=1,
        help="How much to say (default %(default)s, one of %(choices)s).",
    )  # fmt: skip
    parser.add_argument("--problem", nargs="+", metavar="N", help="The problems to grade.")
    parser.add_argument("--out", required=True)
    parser.add_argument("--dry-run", action="store_true", help="Write nothing.")
    return parser


def test_a_command_s_help_reads_the_same_on_python_3_12_and_3_13():
    parser = grading_parser()
    raw = parser.format_help()

    # argparse's own layout is the running Python's: 3.13 names an option's choices once.
    if sys.version_info >= (3, 13):
        assert "-v, --verbosity {0,1,2,3}" in raw
    else:
        assert "-v {0,1,2,3}, --verbosity {0,1,2,3}" in raw
    assert help_text(parser) == HELP


def test_a_command_s_help_reads_the_same_at_any_terminal_width(monkeypatch):
    parser = grading_parser()
    monkeypatch.setenv("COLUMNS", "40")
    narrow, narrow_raw = help_text(parser), parser.format_help()
    monkeypatch.setenv("COLUMNS", "200")
    wide, wide_raw = help_text(parser), parser.format_help()

    assert narrow_raw != wide_raw
    assert narrow == wide == HELP


def test_the_arguments_common_to_every_command_are_left_out_of_the_help():
    shown = help_text(grading_parser(), common=frozenset({"verbosity", "help"}))

    assert "--verbosity" not in shown
    assert "--help" not in shown
    assert "--dry-run\n    Write nothing.\n" in shown


def test_a_body_line_that_looks_like_a_header_stays_in_its_record():
    page = {"status": 200, "headers": {"content-type": "text/plain"}, "body": "==== x GET /\n"}
    text = outputs_text({"a GET /": page, "b command c": "\\ one\n==== two"})

    assert [line for line in text.split("\n") if line.startswith(HEADER)] == [
        "==== a GET /",
        "==== b command c",
    ]
    assert text_records(text) == {
        "a GET /": "status 200\ncontent-type: text/plain\n\n\\==== x GET /\n",
        "b command c": "\\\\\\ one\n\\==== two\n\\ No newline at end of body\n",
    }


def test_outputs_that_differ_make_texts_that_differ():
    bodies = ["", "\n", "a", "a\n", "a\r\n", "a\\r\n", "\\ No newline at end of body", "a\n\n"]
    pages = [
        {"status": status, "headers": headers, "body": body}
        for status in (200, 302)
        for headers in ({}, {"location": "/"})
        for body in bodies
    ]
    texts = [outputs_text({"k": output}) for output in bodies + pages]

    assert len(set(texts)) == len(texts)
    assert all(text.endswith("\n") and "\r" not in text for text in texts)
