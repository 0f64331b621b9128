"""Progress made inside a job's own transaction (a service that saves all or nothing): a write
of the job's row would be seen only at its commit, so `grading.jobs.running.job_run` notes it in
the job's folder, the pages read the note meanwhile (`job_status`), and the row takes it at the
end."""

from pathlib import Path

# Progress made inside a transaction, as "done total", in the job's folder (`job_run`).
PROGRESS_NOTE = "progress"


def note_progress(folder: Path, done: int, total: int) -> None:
    """`folder`: the job's (`job_folder`)."""
    draft = folder / f".{PROGRESS_NOTE}"
    draft.write_text(f"{done} {total}", encoding="utf-8")
    draft.replace(folder / PROGRESS_NOTE)


def noted_progress(folder: Path) -> tuple[int, int] | None:
    try:
        done, total = (folder / PROGRESS_NOTE).read_text(encoding="utf-8").split()
    except (FileNotFoundError, ValueError):
        return None
    return int(done), int(total)


def take_noted_progress(folder: Path) -> dict:
    """The noted progress, for the row's last write, and the note removed."""
    noted = noted_progress(folder)
    (folder / PROGRESS_NOTE).unlink(missing_ok=True)
    return {} if noted is None else {"done": noted[0], "total": noted[1]}
