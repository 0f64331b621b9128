"""Reading a backup's seeded checks, once its scheme, users and papers are read
(`grading.backup.restore`): the seeds (a calibration paper back in a juror's live sheet under
its own label) and their marks with their history, each row checked against its section of
`grading.backup.table` and against what the file holds, a sentence for each problem. Backups
written before seeds existed have none. The calibration papers the seeds name are the round's
own rows, which its sections restore; the writing finds them (`writing_seeds`)."""

from grading.backup import table
from grading.backup.reader import Restored, check_clean, check_row, read_fields
from grading.backup.restore_calibration import reopened_points
from grading.models import CalibrationMark, CalibrationMarkEvent


def read_seeds(d: Restored, document: dict) -> None:
    if "seeds" in document:
        _read_seed_rows(d, document)
    if "seed_marks" in document:
        _read_seed_marks(d, document)
    _check_seed_refs(d)


def _check_seed_refs(d: Restored) -> None:
    """The questions asked on a seed's row, and their notices, name a seed of the file."""
    seeds = {(seed["problem"], seed["label"]) for seed in d.seeds}
    sections = (("help_requests", "question", d.help_requests),)
    sections += (("notifications", "notification", d.notifications),)
    for key, what, rows in sections:
        for index, values in enumerate(rows):
            label = values.get("seed")
            if label is not None and (values["problem"], label) not in seeds:
                d.r.error(
                    f"{key}[{index}]",
                    f"the {what} names the seed “{label}”, which is not in the file's list "
                    "of seeds.",
                )


def _read_seed_rows(d: Restored, document: dict) -> None:
    labels = {}
    for where, row in d.r.items(document, "seeds", ""):
        values = read_fields(d.r, row, where, table.SEEDS.spec())
        d.problem_ref(values["problem"], where)
        d.user_ref(values["juror"], where)
        check_row(d.r, where, table.SEEDS, values, "calibration_paper", "juror")
        key = (values["problem"], values["label"])
        if key in labels:
            d.r.error(where, f"the seed label “{values['label']}” appears twice in the problem.")
        labels[key] = values
        d.seeds.append(values)


def _read_seed_marks(d: Restored, document: dict) -> None:
    r = d.r
    seeds = {(seed["problem"], seed["label"]) for seed in d.seeds}
    for where, row in r.items(document, "seed_marks", ""):
        if isinstance(row, dict):
            row = table.SEED_MARKS.defaults | row
        values = read_fields(r, row, where, table.SEED_MARKS.spec())
        if (values["problem"], values["seed"]) not in seeds:
            r.error(where, "the mark's seed is not in the file's list of seeds.")
        points = reopened_points(d, where, values["problem"], values)
        d.criterion_ref(values["problem"], values["criterion"], where, points)
        check_clean(
            r,
            where,
            CalibrationMark(**table.SEED_MARKS.own(values, "updated_at")),
            exclude=("calibration_paper", "sheet", "seed", "criterion"),
        )
        events = []
        for event_where, event_row in r.items(row, "events", where):
            event = read_fields(r, event_row, event_where, table.SEED_MARK_EVENTS.spec())
            d.user_ref(event["actor"], event_where)
            check_clean(
                r,
                event_where,
                CalibrationMarkEvent(**table.SEED_MARK_EVENTS.own(event)),
                exclude=("mark", "actor"),
            )
            events.append(event)
        d.seed_marks.append((values, events))
