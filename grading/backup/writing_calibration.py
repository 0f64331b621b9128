"""Writing a restored contest's calibration rounds (`grading.backup.writing`), after everything
else, in the file's order, so that rows restored into an empty database draw back the ids
they had."""

from django.contrib.auth.models import User

from grading.backup import table
from grading.backup.reader import Restored
from grading.models import (
    CalibrationMark,
    CalibrationMarkEvent,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    ReferenceMark,
    ReferenceMarkEvent,
)
from rubrics.models import SchemeVersion


def scheme_versions(d: Restored) -> dict[tuple[int, int], SchemeVersion]:
    """The restored problems' scheme versions (written before), by (problem number, number):
    what a reopened calibration mark names. One query."""
    return {
        (version.problem.number, version.number): version
        for version in SchemeVersion.objects.filter(
            problem__in=list(d.problems.values())
        ).select_related("problem")
    }


def write_calibration(d: Restored, users: dict[str, User]) -> None:
    rows = d.calibration_rounds
    rounds = [
        CalibrationRound(
            problem=d.problems[values["problem"]],
            created_by=users.get(values["created_by"]),
            **table.CALIBRATION_ROUNDS.own(values),
        )
        for values, _, _ in rows
    ]
    CalibrationRound.objects.bulk_create(rounds)
    table.CALIBRATION_ROUNDS.put_back_stamps(rounds, [values for values, _, _ in rows])
    papers, paper_rows, of_label = [], [], {}
    for round_, (_, round_papers, _) in zip(rounds, rows, strict=True):
        for values, references in round_papers:
            paper = CalibrationPaper(
                round=round_,
                paper=d.papers[values["paper"]],
                **table.CALIBRATION_PAPERS.own(values, "paper"),
            )
            papers.append(paper)
            paper_rows.append((round_, paper, references))
            of_label[(round_.problem.number, values["label"])] = paper
    CalibrationPaper.objects.bulk_create(papers)
    references, reference_rows = [], []
    for round_, paper, round_references in paper_rows:
        for values, history in round_references:
            references.append(
                ReferenceMark(
                    calibration_paper=paper,
                    criterion=d.criteria[(round_.problem.number, values["criterion"])],
                    **table.REFERENCE_MARKS.own(values, "criterion", "updated_at"),
                )
            )
            reference_rows.append((values, history))
    ReferenceMark.objects.bulk_create(references)
    table.REFERENCE_MARKS.put_back_stamps(references, [values for values, _ in reference_rows])
    _write_history(users, references, [history for _, history in reference_rows])
    _write_sheets(d, users, rounds, rows, of_label)


def _write_history(users, references: list[ReferenceMark], histories: list[list[dict]]) -> None:
    changes, change_rows = [], []
    for reference, history in zip(references, histories, strict=True):
        for values in history:
            changes.append(
                ReferenceMarkEvent(
                    reference=reference,
                    actor=users.get(values["actor"]),
                    **table.REFERENCE_MARK_EVENTS.own(values, "actor"),
                )
            )
            change_rows.append(values)
    ReferenceMarkEvent.objects.bulk_create(changes)
    table.REFERENCE_MARK_EVENTS.put_back_stamps(changes, change_rows)


def _write_sheets(d, users, rounds, rows, of_label) -> None:
    sheets, sheet_rows = [], []
    for round_, (_, _, round_sheets) in zip(rounds, rows, strict=True):
        for values, marks in round_sheets:
            sheets.append(
                CalibrationSheet(
                    round=round_,
                    juror=users[values["juror"]],
                    **table.CALIBRATION_SHEETS.own(values, "juror"),
                )
            )
            sheet_rows.append((round_, marks))
    CalibrationSheet.objects.bulk_create(sheets)
    versions = scheme_versions(d)
    marks, mark_rows = [], []
    for sheet, (round_, sheet_marks) in zip(sheets, sheet_rows, strict=True):
        number = round_.problem.number
        for values, events in sheet_marks:
            marks.append(
                CalibrationMark(
                    sheet=sheet,
                    calibration_paper=of_label[(number, values["paper"])],
                    criterion=d.criteria[(number, values["criterion"])],
                    reopened_by=versions.get((number, values["reopened_by"])),
                    **table.CALIBRATION_MARKS.own(values, "paper", "criterion", "updated_at"),
                )
            )
            mark_rows.append((values, events))
    CalibrationMark.objects.bulk_create(marks)
    table.CALIBRATION_MARKS.put_back_stamps(marks, [values for values, _ in mark_rows])
    events, event_rows = [], []
    for mark, (_, mark_events) in zip(marks, mark_rows, strict=True):
        for values in mark_events:
            events.append(
                CalibrationMarkEvent(
                    mark=mark,
                    actor=users.get(values["actor"]),
                    **table.CALIBRATION_MARK_EVENTS.own(values, "actor"),
                )
            )
            event_rows.append(values)
    CalibrationMarkEvent.objects.bulk_create(events)
    table.CALIBRATION_MARK_EVENTS.put_back_stamps(events, event_rows)
