"""Who grades and the outcome: papers and their anonymous labels, solutions, grading groups,
assignments, sheets, marks and the history of every mark.

One module per entity; `grading.models` names them all, as Django and every caller expect."""

from grading.models.appeal_evening import AppealEvening, AppealMeeting, AppealTables
from grading.models.appeals import (
    Appeal,
    AppealCriterion,
    AppealDeadlineChange,
    AppealEvent,
    ProvisionalResult,
)
from grading.models.calibration import (
    CalibrationMark,
    CalibrationMarkEvent,
    CalibrationPaper,
    CalibrationRound,
    CalibrationSheet,
    ReferenceMark,
    ReferenceMarkEvent,
    Seed,
)
from grading.models.comment_bank import BankNote
from grading.models.contest_events import ContestEvent
from grading.models.delegations import Delegation
from grading.models.discussion_sessions import DiscussionSession, SessionMember, SessionOutcome
from grading.models.jobs import Job, WorkerHeartbeat
from grading.models.juror_facts import (
    AssignmentMove,
    ConflictRuling,
    DeclaredConflict,
    JurorLanguage,
    JurorProfile,
    language_key,
    language_name,
)
from grading.models.jury import Assignment, GradingGroup
from grading.models.language_help import HelpRequest
from grading.models.marks import Mark, MarkEvent, MarkQuerySet, Sheet, SheetQuerySet
from grading.models.notifications import Notification, NotificationQuerySet
from grading.models.papers import (
    PUBLIC_CODE_ALPHABET,
    PUBLIC_CODE_LENGTH,
    Paper,
    PaperLabel,
    ScanPage,
    Solution,
    draw_public_code,
    validate_public_code,
)
from grading.models.resolution import Comment, Resolution, ResolutionEvent
from grading.models.scores import HumanCriterionRate, HumanScore

__all__ = [
    "DiscussionSession",
    "SessionMember",
    "SessionOutcome",
    "AppealEvening",
    "AppealMeeting",
    "AppealTables",
    "PUBLIC_CODE_ALPHABET",
    "PUBLIC_CODE_LENGTH",
    "validate_public_code",
    "draw_public_code",
    "Paper",
    "PaperLabel",
    "Solution",
    "ScanPage",
    "GradingGroup",
    "Assignment",
    "SheetQuerySet",
    "Sheet",
    "MarkQuerySet",
    "Mark",
    "MarkEvent",
    "Comment",
    "Resolution",
    "ResolutionEvent",
    "HumanScore",
    "HumanCriterionRate",
    "ContestEvent",
    "NotificationQuerySet",
    "Notification",
    "Job",
    "WorkerHeartbeat",
    "Delegation",
    "ProvisionalResult",
    "AppealDeadlineChange",
    "Appeal",
    "AppealCriterion",
    "AppealEvent",
    "JurorProfile",
    "JurorLanguage",
    "AssignmentMove",
    "ConflictRuling",
    "DeclaredConflict",
    "language_key",
    "language_name",
    "HelpRequest",
    "CalibrationRound",
    "CalibrationPaper",
    "ReferenceMark",
    "ReferenceMarkEvent",
    "CalibrationSheet",
    "Seed",
    "CalibrationMark",
    "CalibrationMarkEvent",
    "BankNote",
]
