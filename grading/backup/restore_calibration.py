"""Reading a backup's calibration rounds, once its scheme, users and papers are read
(`grading.backup.restore`): each round with its papers and their reference marks (with their
history), and its jurors' calibration sheets with their marks and events, each row checked
against its section of `grading.backup.table` and against what the file holds, a sentence for
each problem. Backups written before rounds existed have none."""

from grading.backup import table
from grading.backup.reader import Restored, check_row, read_fields
from grading.models import CalibrationRound


def read_calibration(d: Restored, document: dict) -> None:
    if "calibration_rounds" not in document:
        return
    seen = set()
    for where, row in d.r.items(document, "calibration_rounds", ""):
        values = read_fields(d.r, row, where, table.CALIBRATION_ROUNDS.spec())
        number = values["problem"]
        d.problem_ref(number, where)
        d.user_ref(values["created_by"], where)
        check_row(d.r, where, table.CALIBRATION_ROUNDS, values, "problem", "created_by")
        if number in seen:
            d.r.error(where, f"problem {number} has a second calibration round.")
        seen.add(number)
        # An amendment of the scheme during an open round may leave a reference entered before
        # it that no longer fits its criterion, for the chair to re-enter (the round neither
        # opens to the jurors nor closes until then): such a reference keeps its points as they
        # are. One entered since must fit.
        amended_at = (
            _last_reopening(d, number) if values["state"] == CalibrationRound.State.OPEN else None
        )
        papers = _read_papers(d, where, row, number, amended_at=amended_at)
        sheets = _read_sheets(
            d,
            where,
            row,
            number,
            {paper["label"] for paper, _ in papers},
            kept={paper["label"] for paper, _ in papers if paper["for_seeding"]},
        )
        d.calibration_rounds.append((values, papers, sheets))


def _last_reopening(d: Restored, number: int):
    """When the problem's last amendment that reopened marks was made, or None."""
    return max(
        (
            values["created_at"]
            for (problem, _), (values, _) in d.scheme_versions.items()
            if problem == number and values["reopens_marks"] and values["created_at"]
        ),
        default=None,
    )


def _read_papers(d: Restored, where: str, row, number, *, amended_at) -> list:
    papers, labels, identities = [], set(), set()
    for at, paper in d.r.items(row, "papers", where):
        if isinstance(paper, dict):
            paper = table.CALIBRATION_PAPERS.defaults | paper
        values = read_fields(d.r, paper, at, table.CALIBRATION_PAPERS.spec())
        d.paper_ref(values["paper"], at)
        check_row(d.r, at, table.CALIBRATION_PAPERS, values, "paper", "round")
        if values["label"] in labels:
            d.r.error(at, f"the calibration label “{values['label']}” appears twice.")
        if values["paper"] in identities:
            d.r.error(at, "the paper appears twice in the round.")
        labels.add(values["label"])
        identities.add(values["paper"])
        references, criteria = [], set()
        for ref_at, reference in d.r.items(paper, "references", at):
            ref = read_fields(d.r, reference, ref_at, table.REFERENCE_MARKS.spec())
            entered_before = (
                amended_at is not None
                and ref["updated_at"] is not None
                and ref["updated_at"] <= amended_at
            )
            d.criterion_ref(
                number, ref["criterion"], ref_at, None if entered_before else ref["points"]
            )
            check_row(d.r, ref_at, table.REFERENCE_MARKS, ref, "criterion", "calibration_paper")
            if ref["criterion"] in criteria:
                d.r.error(ref_at, f"criterion {ref['criterion']} has a second reference.")
            criteria.add(ref["criterion"])
            references.append((ref, _read_history(d, reference, ref_at)))
        papers.append((values, references))
    return papers


def _read_history(d: Restored, reference, where: str) -> list[dict]:
    """A reference's changes, where the file has them (a reference made before they were
    recorded has none)."""
    if not isinstance(reference, dict) or "history" not in reference:
        return []
    changes = []
    for at, change in d.r.items(reference, "history", where):
        values = read_fields(d.r, change, at, table.REFERENCE_MARK_EVENTS.spec())
        d.user_ref(values["actor"], at)
        check_row(d.r, at, table.REFERENCE_MARK_EVENTS, values, "actor", "reference")
        changes.append(values)
    return changes


def _read_sheets(d: Restored, where: str, row, number, labels: set, *, kept: set) -> list:
    sheets, jurors = [], set()
    for at, sheet in d.r.items(row, "sheets", where):
        values = read_fields(d.r, sheet, at, table.CALIBRATION_SHEETS.spec())
        d.user_ref(values["juror"], at)
        check_row(d.r, at, table.CALIBRATION_SHEETS, values, "juror", "round")
        if values["juror"] in jurors:
            d.r.error(at, f"“{values['juror']}” has a second calibration sheet in the round.")
        jurors.add(values["juror"])
        marks, cells = [], set()
        for mark_at, mark in d.r.items(sheet, "marks", at):
            if isinstance(mark, dict):
                mark = table.CALIBRATION_MARKS.defaults | mark
            mark_values = read_fields(d.r, mark, mark_at, table.CALIBRATION_MARKS.spec())
            if mark_values["paper"] not in labels:
                d.r.error(mark_at, f"the round has no paper labelled “{mark_values['paper']}”.")
            elif mark_values["paper"] in kept:
                d.r.error(
                    mark_at,
                    f"paper “{mark_values['paper']}” is kept out of the round for seeding: no "
                    "calibration sheet has a mark on it.",
                )
            d.criterion_ref(
                number,
                mark_values["criterion"],
                mark_at,
                reopened_points(d, mark_at, number, mark_values),
            )
            check_row(
                d.r,
                mark_at,
                table.CALIBRATION_MARKS,
                mark_values,
                "paper",
                "criterion",
                "sheet",
                "calibration_paper",
            )
            cell = (mark_values["paper"], mark_values["criterion"])
            if cell in cells:
                d.r.error(mark_at, f"paper {cell[0]}, criterion {cell[1]} has a second mark.")
            cells.add(cell)
            events = []
            for event_at, event in d.r.items(mark, "events", mark_at):
                event_values = read_fields(
                    d.r, event, event_at, table.CALIBRATION_MARK_EVENTS.spec()
                )
                d.user_ref(event_values["actor"], event_at)
                events.append(event_values)
            marks.append((mark_values, events))
        sheets.append((values, marks))
    return sheets


def reopened_points(d: Restored, where: str, number: int, values: dict):
    """The mark's points to check against its criterion: none for a mark an amendment
    reopened (its juror's points under the older version, which the amended criterion may no
    longer allow), whose version must be among the problem's."""
    reopened = values["reopened_by"]
    if reopened is None:
        return values["points"]
    if (number, reopened) not in d.scheme_versions:
        d.r.error(
            where,
            f"the mark was reopened by scheme version {reopened}, which is not among the "
            f"versions of problem {number}.",
        )
    return None
