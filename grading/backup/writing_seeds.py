"""Writing a restored contest's seeded checks (`grading.backup.writing`), after everything
else, the calibration rounds and their papers included: the seeds, then their marks and the
marks' history, in the file's order, so that rows restored into an empty database draw back
the ids they had."""

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from grading.backup import table
from grading.backup.reader import Restored
from grading.backup.writing_calibration import scheme_versions
from grading.models import CalibrationMark, CalibrationMarkEvent, CalibrationPaper, Seed


def write_seeds(d: Restored, users: dict[str, User]) -> None:
    if not d.seeds:
        return
    papers = {
        (paper.round.problem.number, paper.label): paper
        for paper in CalibrationPaper.objects.filter(
            round__problem__in=list(d.problems.values())
        ).select_related("round__problem")
    }
    seeds = {}
    for values in d.seeds:
        paper = papers.get((values["problem"], values["calibration_paper"]))
        if paper is None:
            # Refused at the write, which undoes the whole restore: the round's rows are read
            # by their own sections, which name their papers.
            raise ValidationError(
                f"A seed of problem {values['problem']} names the calibration paper "
                f"“{values['calibration_paper']}”, which the file's calibration rounds do not "
                "hold; nothing was imported."
            )
        seeds[values["problem"], values["label"]] = Seed(
            calibration_paper=paper, juror=users[values["juror"]], **table.SEEDS.own(values)
        )
    Seed.objects.bulk_create(seeds.values())
    table.SEEDS.put_back_stamps(list(seeds.values()), d.seeds)
    versions = scheme_versions(d)
    marks = [
        CalibrationMark(
            seed=(seed := seeds[values["problem"], values["seed"]]),
            calibration_paper=seed.calibration_paper,
            criterion=d.criteria[(values["problem"], values["criterion"])],
            reopened_by=versions.get((values["problem"], values["reopened_by"])),
            **table.SEED_MARKS.own(values, "updated_at"),
        )
        for values, _ in d.seed_marks
    ]
    CalibrationMark.objects.bulk_create(marks)
    table.SEED_MARKS.put_back_stamps(marks, [values for values, _ in d.seed_marks])
    events = [
        CalibrationMarkEvent(
            mark=mark, actor=users.get(event["actor"]), **table.SEED_MARK_EVENTS.own(event)
        )
        for mark, (_, rows) in zip(marks, d.seed_marks, strict=True)
        for event in rows
    ]
    CalibrationMarkEvent.objects.bulk_create(events)
    table.SEED_MARK_EVENTS.put_back_stamps(events, [e for _, rows in d.seed_marks for e in rows])
    _point_at_seeds(d, seeds)


def _point_at_seeds(d: Restored, seeds: dict) -> None:
    """The questions asked on a seed's row, and their notices, get their seed back."""
    by_model = {}
    for obj, problem, label in d.seed_refs:
        obj.seed = seeds[problem, label]
        by_model.setdefault(type(obj), []).append(obj)
    for model, objects in by_model.items():
        model.objects.bulk_update(objects, ["seed"], batch_size=500)
