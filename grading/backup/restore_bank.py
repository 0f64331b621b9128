"""Reading a backup's comment banks, once its scheme and users are read
(`grading.backup.restore`): each problem's "bank", its notes checked against the table's
section, the problem's criteria (a note on a criterion the file does not hold, or suggesting
points the criterion does not allow, is a sentence), the file's users and each other (one text
per criterion). Backups written before the bank existed have none."""

from grading.backup import table
from grading.backup.reader import Restored, check_row, read_fields


def read_bank(d: Restored, document: dict) -> None:
    problems = document.get("problems")
    if not isinstance(problems, list):
        return  # reported with the scheme
    seen = set()
    for index, problem in enumerate(problems):
        if not isinstance(problem, dict) or "bank" not in problem:
            continue
        number = problem.get("number")
        for where, row in d.r.items(problem, "bank", f"problems[{index}]"):
            if isinstance(row, dict):
                row = table.BANK.defaults | row
            values = read_fields(d.r, row, where, table.BANK.spec())
            d.criterion_ref(number, values["criterion"], where, points=values["points"])
            d.user_ref(values["author"], where)
            check_row(d.r, where, table.BANK, values, "criterion", "author")
            # As the database's constraints have it: a text once in a criterion's bank, and
            # once among each juror's proposals.
            proposer = None if values["adopted"] else values["author"]
            key = (number, values["criterion"], values["text"], proposer)
            if key in seen:
                d.r.error(
                    where,
                    f"the note “{values['text']}” appears twice in the bank of criterion "
                    f"{values['criterion']}.",
                )
            seen.add(key)
            d.bank.append((number, values))
