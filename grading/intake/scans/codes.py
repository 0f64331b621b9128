"""The contestant code: what a cover's QR code carries and what a scanned file may be named.
A code is private to the organizers (a human paper's `identity`); the "codes only" rule keeps
contestants' names out of file names, where they would travel further than the database."""

import re

COVER_PREFIX = "JURY1"
_CODE = re.compile(r"[A-Za-z0-9_-]{1,40}", re.ASCII)
_WORD = re.compile(r"[A-Za-z]{5,}", re.ASCII)


def code_problem(code: str) -> str:
    """Why `code` may not be a contestant code or a scanned file's name, or "" if it may: only
    letters, digits, "-" and "_", at least one digit, and no run of five letters or more (a
    name, such as "ivanova", would be one)."""
    if not _CODE.fullmatch(code):
        return "only letters, digits, “-” and “_” (at most 40) may make it up"
    if not any(character.isdigit() for character in code):
        return "it holds no digit, so it may be a name rather than a code"
    if _WORD.search(code):
        return "it holds a word of five letters or more, which may be a name"
    return ""


def cover_payload(*, contest_slug: str, problem_number: int, code: str) -> str:
    return f"{COVER_PREFIX}|{contest_slug}|{problem_number}|{code}"


def parse_cover_payload(text: str) -> tuple[str, int, str] | None:
    """(contest slug, problem number, code) of a cover's QR text; None for any other QR."""
    parts = text.split("|")
    if len(parts) != 4 or parts[0] != COVER_PREFIX or not parts[2].isdigit():
        return None
    return parts[1], int(parts[2]), parts[3]
