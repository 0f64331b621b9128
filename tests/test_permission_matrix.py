"""The permission matrix: every URL pattern of the project, with the status each role gets for a
GET and a POST, and a check that a refused request wrote nothing.

Roles: an anonymous visitor, alice (a juror of problem 1's group, sheet still a draft), charlie
(a juror of problem 2's group only), lena (a team leader of a delegation of the contest),
jolene (a juror of problem 1's group assigned alice's papers, sheet still a draft, who also
leads the delegation of the paper the URLs name: conflicted with that paper, so the jury's
doors to it are shut to her as to a paper she does not grade, while her problem's pages are
hers as alice's, and her leader's pages as lena's; `juror_leader_conflicted`), the chair, the
organizer and sara (a language specialist, the helper of alice's question on the paper the URLs
name, in problem 1). URLs are built on the `contest` fixture, problem 1, a paper alice grades
and criterion A1. A new URL pattern without a row in MATRIX fails
`test_every_url_pattern_has_a_row_in_the_matrix`: add its row (and, for a new URL parameter, a
value in `_url_args`). The admin's patterns are Django's: two rows stand for
them in MATRIX, and ADMIN_DOORS (at the end) holds its filters and change pages. Static files are not routed by the project's URLconf, so they have no row.

Every request runs in a transaction rolled back afterwards, so each role starts from the same
database; a request not listed in WRITES must leave every row of the project's apps, users and
groups as it found them. RESOLUTION_MATRIX repeats the rows whose answer changes once
problem 1's jurors have submitted and the chair has opened the resolution phase;
PUBLISHED_MATRIX the rows of a leader's pages once the results are provisional and the paper
the URLs name is a contestant of lena's (and jolene's) delegation."""

import re
from pathlib import Path
from typing import NamedTuple

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from grading.console.contest_life import contest_resolution_open
from grading.models import (
    AssignmentMove,
    BankNote,
    HelpRequest,
    Job,
    JurorLanguage,
    JurorProfile,
    Mark,
    Paper,
    ProvisionalResult,
)
from grading.rules import roles
from rubrics.models import Contest, Criterion
from tests.crawl import shared_data
from tests.factories import assign, make_contest, make_delegation, make_user
from tests.grading.scan_pages import add_scans
from tests.grading.scenario import grade, submit

ROLES = (
    "anonymous",
    "juror",
    "other_juror",
    "leader",
    "juror_leader",
    "chair",
    "organizer",
    "specialist",
)

# Shorthands for the table. LOGIN: a redirect to the log-in page (for the admin, its own log-in).
LOGIN = "login"
# 302 elsewhere than the log-in page: a view that did its work (or refused with a message) and
# sends the user on.
REDIRECT = 302


# name: (GET statuses, POST statuses), each for ROLES in order:
#        anonymous, juror, other_juror, leader, juror_leader, chair, organizer, specialist.
# fmt: off
MATRIX: dict[str, tuple[tuple, tuple]] = {
    "home":                 ((LOGIN, 200, 200, 200, 200, 200, 200, 200),           (LOGIN, 200, 200, 200, 200, 200, 200, 200)),
    "login":                ((200,) * 8,                                           (200,) * 8),
    # Log-out is a POST only (Django 5+), and sends everyone to the log-in page.
    "logout":               ((405,) * 8,                                           (LOGIN,) * 8),
    "paper_detail":         ((LOGIN, 200, 404, 404, 404, 200, 200, 404),           (LOGIN, 200, 404, 404, 404, 200, 200, 404)),
    "paper_pdf":            ((LOGIN, 200, 404, 404, 404, 200, 200, 404),           (LOGIN, 200, 404, 404, 404, 200, 200, 404)),
    # A scanned page of alice's paper (`scan_page`): for those who may read the paper, and for
    # sara, the helper of a question on it; GET only.
    "scan_page_image":      ((LOGIN, 200, 404, 404, 404, 200, 200, 200),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "problem_pdf_bundle":   ((LOGIN, 200, 404, 404, 200, 200, 200, 404),           (LOGIN, 200, 404, 404, 200, 200, 200, 404)),
    "problem_pdf_zip":      ((LOGIN, 200, 404, 404, 200, 200, 200, 404),           (LOGIN, 200, 404, 404, 200, 200, 200, 404)),
    # Identities: the organizer's alone.
    "autoscore_ranking":    ((LOGIN, 404, 404, 404, 404, 404, 200, 404),           (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    # Alice's sheet is a draft: the comparison tells her to submit first (403), and jolene too.
    # The discussion's doors say so before they look the label up, whatever it names: to
    # jolene as to alice, though the cell is of a paper she is conflicted with (a 404 once she
    # has submitted: RESOLUTION_MATRIX).
    "comparison":           ((LOGIN, 403, 404, 404, 403, 200, 200, 404),           (LOGIN, 403, 404, 404, 403, 200, 200, 404)),
    "discussion":           ((LOGIN, 403, 404, 404, 403, 200, 200, 404),           (LOGIN, 403, 404, 404, 403, 200, 200, 404)),
    "discussion_comment":   ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 403, 404)),
    "discussion_revise":    ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, 403, 403, 404)),
    # A discussion session in the room: the group's jurors who have submitted (alice and jolene
    # draft here: 403, submit first) and the chair; the organizer reads but does not discuss.
    # No session runs, so the chair's every control comes back to the page with the sentence.
    "session":              ((LOGIN, 403, 404, 404, 403, 200, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "session_stamp":        ((LOGIN, 403, 404, 404, 403, 200, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "session_start":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    "session_join":       ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    "session_leave":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    "session_move":       ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    "session_revise":     ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    "session_agree":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    "session_take":       ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    "session_to_chair":   ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    "session_end":        ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 404, 404)),
    # The chair decides only cells with submitted marks: while the sheets are drafts the
    # decision is refused (the page again, with what was typed and why: 422, nothing written).
    "discussion_decide":    ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, 422, 403, 404)),
    "chair_queue":          ((LOGIN, 404, 404, 404, 404, 200, 404, 404),           (LOGIN, 404, 404, 404, 404, 200, 404, 404)),
    # The queue's next or previous cell from a discussion: a redirect, the chair's alone.
    "chair_queue_step":     ((LOGIN, 404, 404, 404, 404, REDIRECT, 404, 404),      (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "results":              ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    "results_export":       ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    "jury_evaluations_export": ((LOGIN, 404, 404, 404, 404, 200, 200, 404),        (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    # One paper's cells, loaded into its row of the results: the results page's readers'.
    "results_paper":        ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    "analysis":             ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    # The analysis page's tables as files: the page's readers'.
    "analysis_export":      ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    # Medal cut-offs proposed from the distribution: the chair's and organizers'. Confirming
    # without the proposal's values and the ticked box is the page again, with why (422).
    "cutoffs":              ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "cutoffs_confirm":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 422, 422, 404)),
    "analysis_chart":       ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    # Finalizing a contest still in grading is refused with a message (no write).
    "finalize":             ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, 404, 404)),
    # The chair sees identities only once the contest is final.
    "reveal":               ((LOGIN, 404, 404, 404, 404, 403, 200, 404),           (LOGIN, 404, 404, 404, 404, 403, 200, 404)),
    "resolution_open":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, 404, 404)),
    # Reopening is the organizer's; a contest not final (and no reason) is refused with a message.
    "reopen":               ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 403, REDIRECT, 404)),
    # The sheet is the juror's own: everyone else, the chair included, gets a 404. Jolene's
    # holds alice's papers but the one the URLs name: its cells are a 404 to her.
    "sheet":                ((LOGIN, 200, 404, 404, 200, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "sheet_cell_save":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 200, 404, 404, 404, 404, 404, 404)),
    "sheet_note_save":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 200, 404, 404, 404, 404, 404, 404)),
    "sheet_cell_history":   ((LOGIN, 200, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "sheet_solution":       ((LOGIN, 200, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # Submitting a sheet with blank cells is refused with a message (no write).
    "sheet_submit":         ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, REDIRECT, 404, 404, REDIRECT, 404, 404, 404)),
    "sheet_xlsx":           ((LOGIN, 200, 404, 404, 200, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # Without a file, a pending upload or a token: back to the sheet with a message.
    "sheet_xlsx_upload":    ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, REDIRECT, 404, 404, REDIRECT, 404, 404, 404)),
    "sheet_xlsx_preview":   ((LOGIN, REDIRECT, 404, 404, REDIRECT, 404, 404, 404), (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "sheet_xlsx_confirm":   ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, REDIRECT, 404, 404, REDIRECT, 404, 404, 404)),
    # The comment bank: from the sheet, the problem's jurors and the chair add a note and count
    # a use (JSON); the curation page and its forms are the chair's and the organizer's.
    "sheet_bank_add":       ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 200, 404, 404, 200, 200, 404, 404)),
    "sheet_bank_use":       ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 200, 404, 404, 200, 200, 404, 404)),
    "bank":                 ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "bank_add":             ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    "bank_edit":            ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    "bank_remove":          ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    # The sample note is in the group's bank already: adopting it again writes nothing.
    "bank_adopt":           ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    # One note in its bank: moving it down leaves it where it is.
    "bank_move":            ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    # Everyone's own inbox; marking read is a POST (with nothing unread yet, nothing written).
    "inbox":                ((LOGIN, 200, 200, 200, 200, 200, 200, 200),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "inbox_read":           ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, REDIRECT, REDIRECT, REDIRECT, REDIRECT, REDIRECT, REDIRECT, REDIRECT)),
    # The live pages' change stamps answer as their pages do.
    "inbox_stamp":          ((LOGIN, 200, 200, 200, 200, 200, 200, 200),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "comparison_stamp":     ((LOGIN, 403, 404, 404, 403, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "discussion_stamp":     ((LOGIN, 403, 404, 404, 403, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "queue_stamp":          ((LOGIN, 404, 404, 404, 404, 200, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # The chair's request to revise: refused with a message before the resolution phase.
    "discussion_ask_revise":((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 403, REDIRECT, 403, 404)),
    # Calibration rounds (grading/calibration/): the contest has none. The round's page is the
    # chair's and the organizer's; creating one without papers is refused with a message (no
    # write); the rest answer 404 until a round exists (tests/grading/calibration/).
    "calibration":          ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "calibration_create":   ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    "calibration_change":   ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "calibration_references": ((LOGIN, 405, 405, 405, 405, 405, 405, 405),         (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "calibration_open":     ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "calibration_close":    ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "calibration_sheet":    ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "calibration_cell_save": ((LOGIN, 405, 405, 405, 405, 405, 405, 405),          (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "calibration_note_save": ((LOGIN, 405, 405, 405, 405, 405, 405, 405),          (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "calibration_cell_history": ((LOGIN, 404, 404, 404, 404, 404, 404, 404),       (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "calibration_solution": ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "calibration_scan_page": ((LOGIN, 404, 404, 404, 404, 404, 404, 404),          (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "calibration_submit":   ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    # Seeded checks and each juror's own calibration: the chair's seeds and group pages (the
    # contest has no seeds: empty pages), alice's own (a draft sheet: 404 until submitted).
    "calibration_seeds":    ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "calibration_jurors":   ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # Alice's own page says what it will show once she submits; the chair and the organizer
    # are sent to the group's page.
    "calibration_mine":     ((LOGIN, 200, 404, 404, 200, REDIRECT, REDIRECT, 404),      (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # Amending a scheme: the chair's and organizer's page; a POST without a reason is refused
    # on the page with its sentence (422).
    "scheme":               ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 422, 422, 404)),
    # The admin: staff only (the chair reads, the organizer edits); jurors get its log-in page.
    # Background jobs: the organizer's and the chair's. The sample job is finished, with its
    # file: a retry is refused with a message (no write); starting one writes a queued job.
    "jobs":                 ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    "job_start":            ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    "job":                  ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    "job_progress":         ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    "job_retry":            ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    "job_download":         ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    # For monitors, no log-in: no worker beats in the tests, so 503.
    "healthz":              ((503,) * 8,                                           (405,) * 8),
    # The organizer's console: no other role learns it exists (404). Posts of the matrix's
    # empty fields are refused: forms with their sentences (422), a confirmation without its
    # lines back to the form; the contest's jurors have passwords, so no slip (back, with a
    # message). Alice is the person: deactivating and resetting her are real writes;
    # reactivating an active account and unlocking one that is not locked change nothing.
    "console:index":        ((LOGIN, 404, 404, 404, 404, 404, 200, 404),        (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:contest":      ((LOGIN, 404, 404, 404, 404, 404, 200, 404),        (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:jurors_add":   ((LOGIN, 404, 404, 404, 404, 404, 200, 404),        (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:jurors_confirm":((LOGIN, 404, 404, 404, 404, 404, 405, 404),       (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    # The jurors' facts and the papers' answer languages, as bulk lines: the organizer's alone.
    "console:juror_facts":  ((LOGIN, 404, 404, 404, 404, 404, 200, 404),        (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:juror_facts_confirm":((LOGIN, 404, 404, 404, 404, 404, 405, 404),      (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    "console:answer_languages":((LOGIN, 404, 404, 404, 404, 404, 200, 404),      (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:answer_languages_confirm":((LOGIN, 404, 404, 404, 404, 404, 405, 404),      (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    "console:contest_slips":((LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404),      (LOGIN, 404, 404, 404, 404, 404, 405, 404)),
    "console:people":       ((LOGIN, 404, 404, 404, 404, 404, 200, 404),        (LOGIN, 404, 404, 404, 404, 404, 200, 404)),
    # Restoring a backup: an empty upload is refused (422); a confirmation naming no preview
    # goes back to the upload page with a message.
    "console:restore":      ((LOGIN, 404, 404, 404, 404, 404, 200, 404),           (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:restore_confirm":((LOGIN, 404, 404, 404, 404, 404, 405, 404),         (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    # A restore's job, followed and retried: the organizer's; the sample job is printouts (404).
    "console:restore_job":  ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 404, 404, 404, 404, 404, 405, 404)),
    "console:restore_retry":((LOGIN, 404, 404, 404, 404, 404, 405, 404),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    # Empty fields would take alice out of problem 1, where she has papers: refused (422).
    "console:person":       ((LOGIN, 404, 404, 404, 404, 404, 200, 404),           (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:person_deactivate":((LOGIN, 404, 404, 404, 404, 404, 405, 404),       (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    "console:person_reactivate":((LOGIN, 404, 404, 404, 404, 404, 405, 404),       (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    "console:person_unlock":((LOGIN, 404, 404, 404, 404, 404, 405, 404),           (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    "console:person_reset": ((LOGIN, 404, 404, 404, 404, 404, 405, 404),           (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    "console:person_slip":  ((LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404),      (LOGIN, 404, 404, 404, 404, 404, 405, 404)),
    # Empty roles are refused with a message (back to her page): no write.
    "console:person_roles": ((LOGIN, 404, 404, 404, 404, 404, 405, 404),           (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    # The contest's life and its progress: the organizer's and the chair's. A step (here
    # finalizing) is performed by its own role only once its box is ticked: the chair's empty
    # post is refused by the form (422), the organizer's by the role (403).
    "console:life":         ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    "console:life_step":    ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 422, 403, 404)),
    "console:progress":     ((LOGIN, 404, 404, 404, 404, 200, 200, 404),           (LOGIN, 404, 404, 404, 404, 200, 200, 404)),
    # Groups and assignments: the organizer's; empty counts are refused (422).
    "console:assignments":  ((LOGIN, 404, 404, 404, 404, 404, 200, 404),        (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:assignments_confirm":((LOGIN, 404, 404, 404, 404, 404, 405, 404),      (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    # A preview job's or a confirmation job's section: the organizer's; the sample job is
    # printouts, neither (404).
    "console:assignments_preview":((LOGIN, 404, 404, 404, 404, 404, 404, 404),      (LOGIN, 404, 404, 404, 404, 404, 405, 404)),
    "console:assignments_confirmation":((LOGIN, 404, 404, 404, 404, 404, 404, 404), (LOGIN, 404, 404, 404, 404, 404, 405, 404)),
    # A juror leaving mid-grading: the organizer's; a post without juror and reason is 422.
    "console:juror_leaving":((LOGIN, 404, 404, 404, 404, 404, 200, 404),        (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:juror_leaving_confirm":((LOGIN, 404, 404, 404, 404, 404, 405, 404),      (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    # A juror back after leaving: a post without a juror who left is 422. Moving the papers that
    # sit with a juror in conflict with them to colleagues: jolene's (the paper the URLs name)
    # can go to nobody (alice and bob have it already), so nothing moves (back, with why).
    "console:juror_back":   ((LOGIN, 404, 404, 404, 404, 404, 405, 404),           (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:conflict_moves":((LOGIN, 404, 404, 404, 404, 404, 405, 404),          (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    # Groups posted empty would take alice and bob out of problem 1, where they have papers.
    "console:groups_save":  ((LOGIN, 404, 404, 404, 404, 404, 405, 404),           (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    # Imports: the organizer's. A post without its files is refused with a sentence (422); a
    # confirmation without a current preview goes back to the imports, with a message.
    "console:imports":      ((LOGIN, 404, 404, 404, 404, 404, 200, 404),           (LOGIN, 404, 404, 404, 404, 404, 200, 404)),
    "console:import_problemset":((LOGIN, 404, 404, 404, 404, 404, 200, 404),       (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:import_schemes":((LOGIN, 404, 404, 404, 404, 404, 200, 404),          (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:import_outputs":((LOGIN, 404, 404, 404, 404, 404, 200, 404),          (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:import_human_scores":((LOGIN, 404, 404, 404, 404, 404, 200, 404),      (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:import_confirm":((LOGIN, 404, 404, 404, 404, 404, 405, 404),          (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    # Scanned papers and their covers: the organizer's. Without files or codes, a sentence (422).
    "console:import_scans": ((LOGIN, 404, 404, 404, 404, 404, 200, 404),           (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:import_scans_confirm":((LOGIN, 404, 404, 404, 404, 404, 405, 404),      (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    # Delegations and team leaders: the organizer's. A leaders' post without lines is refused
    # with a sentence (422); a confirmation without its lines goes back to the form.
    "console:delegations":  ((LOGIN, 404, 404, 404, 404, 404, 200, 404),           (LOGIN, 404, 404, 404, 404, 404, 200, 404)),
    "console:leaders_add":  ((LOGIN, 404, 404, 404, 404, 404, 200, 404),           (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:leaders_confirm": ((LOGIN, 404, 404, 404, 404, 404, 405, 404),        (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    "console:import_delegations": ((LOGIN, 404, 404, 404, 404, 404, 200, 404),      (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    # The appeals evening: the organizer's alone. The contest has no evening yet, so proposing
    # and publishing answer 404, as does moving a meeting (the URLs' pk names none).
    "console:appeals_evening": ((LOGIN, 404, 404, 404, 404, 404, 200, 404),         (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:appeals_evening_propose": ((LOGIN, 404, 404, 404, 404, 404, 405, 404), (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "console:appeals_evening_publish": ((LOGIN, 404, 404, 404, 404, 404, 405, 404), (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "console:appeals_meeting_move": ((LOGIN, 404, 404, 404, 404, 404, 405, 404),    (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    # A leader's pages: lena's and jolene's delegation pages say the results are not published
    # yet, and so does jolene's page of the paper the URLs name, her delegation FIN's
    # contestant (a 404 for everyone else, lena included); its scanned pages wait for the
    # results. GET only.
    "leader_delegation":    ((LOGIN, 404, 404, 200, 200, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "leader_contestant_problem": ((LOGIN, 404, 404, 404, 200, 404, 404, 404),      (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "leader_scan_page":     ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "console:print_covers": ((LOGIN, 404, 404, 404, 404, 404, 200, 404),           (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    # Extending the appeals deadline is the organizer's: empty fields go back to the life page
    # with their sentences (no write); the chair may look at the life page, not extend.
    "console:deadline_extend": ((LOGIN, 405, 405, 405, 405, 405, 405, 405),        (LOGIN, 404, 404, 404, 404, 403, REDIRECT, 404)),
    # The appeals (tests/grading/appeals/ tries them with leaders and appeals): the contest
    # here has none, and its results are not published, so no paper may be appealed and no
    # appeal is there (the matrix's `pk` is a job's). The queue is the jurors' and the
    # chair's, empty; a leader's list is a leader's alone.
    "appeal_file":          ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "appeals_mine":         ((LOGIN, 404, 404, 200, 200, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "appeal_queue":         ((LOGIN, 200, 200, 404, 200, 200, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # Everyone signed in reads their own appeals evening (nothing is published here). GET only.
    "evening_mine":         ((LOGIN, 200, 200, 200, 200, 200, 200, 200),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # The sheets' service worker: the same script for everyone, signed in or not (it holds no
    # one's data; the browser checks it for updates with whatever cookies it has). GET only.
    "sheet_worker":         ((200, 200, 200, 200, 200, 200, 200, 200),             (405, 405, 405, 405, 405, 405, 405, 405)),
    # A meeting at the table, its stamp and a delegation's record: the URLs' pk and code name no
    # meeting or delegation of a published evening (tests/grading/appeals/test_evening_meetings.py
    # holds who reads one).
    "appeal_meeting":       ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "appeal_meeting_stamp": ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "evening_record":       ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "appeal_acknowledge":   ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "appeal":               ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "appeal_withdraw":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "appeal_comment":       ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "appeal_ask":           ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "appeal_mine":          ((LOGIN, 404, 404, 404, 404, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "appeal_answer":        ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    "appeal_decide":        ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, 404, 404, 404)),
    # A sign-in slip's link, for anyone: a link that is not one says so (200).
    "sign_in":              ((200,) * 8,                                           (200,) * 8),
    # The site icon, for anyone: a redirect to the static file; nothing to post.
    "favicon":              ((REDIRECT,) * 8,                                      (405,) * 8),
    # Language help (grading/assigning/): alice asks about a paper she marks (a real write);
    # the queue is the organizer's and the chair's, who give the question to charlie (a juror
    # of problem 2 only: a real write); sara's list, her question's page and her answer (a
    # real write) are hers; everyone has a list of their own, empty but for sara's.
    "help_ask":             ((LOGIN, 405, 405, 405, 405, 405, 405, 405),      (LOGIN, REDIRECT, 404, 404, 404, 404, 404, 404)),
    # The chair's page of marks given before a conflict came to light, and its decision (an
    # empty form is refused with a message on the page).
    "conflict_rulings":     ((LOGIN, 404, 404, 404, 404, 200, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "conflict_ruling":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, 404, 404)),
    "help_queue":           ((LOGIN, 404, 404, 404, 404, 200, 200, 404),      (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "help_assign":          ((LOGIN, 405, 405, 405, 405, 405, 405, 405),      (LOGIN, 404, 404, 404, 404, REDIRECT, REDIRECT, 404)),
    "help_mine":            ((LOGIN, 200, 200, 200, 200, 200, 200, 200),      (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "help_request":         ((LOGIN, 404, 404, 404, 404, 404, 404, 200),      (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "help_answer":          ((LOGIN, 405, 405, 405, 405, 405, 405, 405),      (LOGIN, 404, 404, 404, 404, 404, 404, REDIRECT)),
    # Language specialists added in bulk: the organizer's, as the leaders' lines are.
    "console:specialists_add": ((LOGIN, 404, 404, 404, 404, 404, 200, 404),      (LOGIN, 404, 404, 404, 404, 404, 422, 404)),
    "console:specialists_confirm": ((LOGIN, 404, 404, 404, 404, 404, 405, 404),      (LOGIN, 404, 404, 404, 404, 404, REDIRECT, 404)),
    "admin:index":          ((LOGIN, LOGIN, LOGIN, LOGIN, LOGIN, 200, 200, LOGIN),        (LOGIN, LOGIN, LOGIN, LOGIN, LOGIN, 200, 200, LOGIN)),
    "admin:grading_paper_changelist":((LOGIN, LOGIN, LOGIN, LOGIN, LOGIN, 200, 200, LOGIN),    (LOGIN, LOGIN, LOGIN, LOGIN, LOGIN, 200, 200, LOGIN)),
}
# fmt: on

# The (name, role) whose POST may change the database, with the data below; every other
# request in the matrix, each GET included, must leave it exactly as it was.
WRITES = {
    ("bank_add", "chair"),
    ("bank_add", "organizer"),
    ("bank_edit", "chair"),
    ("bank_edit", "organizer"),
    ("bank_remove", "chair"),
    ("bank_remove", "organizer"),
    ("sheet_bank_add", "chair"),
    ("sheet_bank_add", "juror"),
    ("sheet_bank_add", "juror_leader"),
    ("sheet_bank_use", "chair"),
    ("sheet_bank_use", "juror"),
    ("sheet_bank_use", "juror_leader"),
    ("console:person_deactivate", "organizer"),
    ("console:person_reset", "organizer"),
    ("discussion_comment", "chair"),
    ("help_answer", "specialist"),
    ("help_ask", "juror"),
    ("help_assign", "chair"),
    ("help_assign", "organizer"),
    ("job_start", "chair"),
    ("job_start", "organizer"),
    ("resolution_open", "chair"),
    ("sheet_cell_save", "juror"),
    ("sheet_note_save", "juror"),
}

# The POST body sent to every URL; a row may add fields so that the permitted write is real.
POST_DATA = {"points": "", "note": "", "text": "", "reason": "", "token": "", "version": ""}

# Admin patterns are Django's own; one row each for the index and one changelist stands for them.
ADMIN_ROWS = ("admin:index", "admin:grading_paper_changelist")


def pattern_names(patterns=None, namespace="") -> set[str]:
    """The name of every URL pattern outside the admin, with its namespace."""
    names = set()
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            if entry.namespace == "admin" or entry.app_name == "admin":
                continue
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            names |= pattern_names(entry.url_patterns, inner)
        elif isinstance(entry, URLPattern):
            names.add(f"{namespace}{entry.name}" if entry.name else f"{namespace}{entry.pattern}")
    return names


def _url_args(contest, juror) -> dict[str, object]:
    problem = contest.problems.get(number=1)
    link = problem.paper_labels.filter(paper__assignments__juror=juror).order_by("label")[0]
    return {
        "contest": contest.slug,
        "problem": 1,
        "label": link.label,
        "public_code": link.paper.public_code,
        "code": "A1",
        "fmt": "csv",
        "chart": "scatter",
        "username": juror.username,
        "uidb64": "MQ",
        "token": "not-a-token",
        "pk": _sample_job(contest).pk,
        "step": "finalize",
        "position": 1,
        "question": HelpRequest.objects.get(problem__contest=contest, helper__username="sara").pk,
        "note": _sample_note(contest).pk,
    }


def _sample_note(contest) -> BankNote:
    """A note in the bank of problem 1's criterion A1."""
    criterion = Criterion.objects.get(problem__contest=contest, problem__number=1, code="A1")
    note, _ = BankNote.objects.get_or_create(criterion=criterion, text="A sample bank note.")
    return note


def _sample_job(contest) -> Job:
    """A finished printouts job of the contest, with its file under JOBS_DIR."""
    job = Job.objects.filter(contest=contest, result_path="sample/printouts.zip").first()
    if job is None:
        job = Job.objects.create(
            kind=Job.Kind.PRINTOUTS,
            contest=contest,
            state=Job.State.DONE,
            result_path="sample/printouts.zip",
        )
    path = Path(settings.JOBS_DIR) / job.result_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"PK")
    return job


@pytest.fixture(autouse=True)
def jobs_dir(settings, tmp_path):
    settings.JOBS_DIR = tmp_path / "jobs"


@pytest.fixture
def scan_page(settings, tmp_path, contest, juror):
    """A scanned first page of the paper of problem 1 the URLs name, under a SCANS_DIR of the
    test's own."""
    settings.SCANS_DIR = tmp_path / "scans"
    label = _url_args(contest, juror)["label"]
    paper = Paper.objects.get(labels__problem__number=1, labels__label=label, contest=contest)
    add_scans(paper, contest.problems.get(number=1), 1)


def url_for(name: str, args: dict) -> str:
    if name.startswith("admin:"):
        return reverse(name)
    resolver, key = get_resolver(), name
    if ":" in name:  # an included URLconf's namespace, such as the console's
        namespace, key = name.split(":", 1)
        resolver = resolver.namespace_dict[namespace][1]
    (possibility, _defaults, *_), *_ = resolver.reverse_dict.getlist(key)
    params = possibility[0][1]
    return reverse(name, kwargs={param: args[param] for param in params})


def database_state() -> list[tuple]:
    """Every row of the project's apps and of users and groups, each with every column, and
    every row of their many-to-many tables (a user's groups, a group's permissions): equal
    before and after means no write. Read in SQL, without the ORM: the matrix reads it after
    each of its requests, and building model dictionaries took two thirds of the matrix's time
    (Django's serializer, before that, more still). PostgreSQL answers in one round trip, each
    row as its text; SQLite, in this process, a query a table."""
    tables = sorted(
        {
            model._meta.db_table
            for label in ("auth", "rubrics", "grading")
            for model in apps.get_app_config(label).get_models(include_auto_created=True)
        }
    )
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                " UNION ALL ".join(
                    f"(SELECT {index}, row::text FROM {quote(table)} row)"
                    for index, table in enumerate(tables)
                )
            )
            return sorted(cursor.fetchall())
        state = []
        for table in tables:
            cursor.execute(f"SELECT * FROM {quote(table)} ORDER BY rowid")
            state.append(tuple(cursor.fetchall()))
        return state


def _post_data(name: str, contest, juror) -> dict[str, str]:
    """POST_DATA, with what makes the juror's or the chair's write a real one where the row
    is about writing: the version of alice's mark, points within the criterion."""
    data = dict(POST_DATA)
    mark = Mark.objects.get(
        sheet__juror=juror,
        sheet__problem__number=1,
        paper__labels__problem__number=1,
        paper__labels__label=_url_args(contest, juror)["label"],
        criterion__code="A1",
    )
    if name in ("sheet_cell_save", "sheet_note_save"):
        data.update(points="1.5", note="A matrix note.", version=str(mark.version))
    elif name == "discussion_revise":
        data.update(points="4.5", version=str(mark.version))
    elif name == "discussion_decide":
        data.update(points="5", reason="A matrix decision.")
    elif name == "discussion_comment":
        data["text"] = "A matrix comment."
    elif name == "discussion_ask_revise":
        data.update(juror=juror.username, text="A matrix request.")
    elif name == "help_ask":
        data["question"] = "A matrix question."
    elif name == "help_assign":
        data["helper"] = "charlie"
    elif name in ("sheet_bank_add", "bank_add", "bank_edit"):
        data.update(text="A matrix bank note.", points="1", criterion="A1")
    elif name == "bank_move":
        data["direction"] = "down"
    elif name == "help_answer":
        data["answer"] = "A matrix answer."
    elif name == "resolution_open":
        data["confirm"] = "on"
    return data


def observe_row(people: dict, name: str, contest, juror) -> dict[str, list[tuple[object, bool]]]:
    """Every role's (status, changed) for one row's GET and POST, in ROLES' order. Each role signs
    in once, before the database's state is taken; each request is then rolled back, so that
    every one starts from that same state, and one reading of the state after it tells whether
    it wrote (two readings a request took half the matrix's time to say the same)."""
    url = url_for(name, _url_args(contest, juror))
    data = _post_data(name, contest, juror)
    cookies = {role: _signed_in_cookies(people[role]) for role in ROLES}
    before = database_state()
    seen: dict[str, list[tuple[object, bool]]] = {"GET": [], "POST": []}
    for method in seen:
        for role in ROLES:
            with transaction.atomic():
                # A fresh browser a request, holding only the role's session.
                client = Client()
                for key, value in cookies[role].items():
                    client.cookies[key] = value
                response = client.get(url) if method == "GET" else client.post(url, data)
                if response.streaming:
                    b"".join(response.streaming_content)
                changed = database_state() != before
                transaction.set_rollback(True)
            status = response.status_code
            if status == 302 and "login/" in response["Location"]:
                status = LOGIN
            seen[method].append((status, changed))
    return seen


def _signed_in_cookies(user) -> dict[str, str]:
    client = Client()
    if user is not None:
        client.force_login(user)
    return {key: morsel.value for key, morsel in client.cookies.items()}


def outcome(seen: dict) -> tuple[dict, set]:
    """The statuses per method, and the (role, method) requests that changed the database."""
    statuses = {method: tuple(status for status, _ in seen[method]) for method in seen}
    writes = {
        (role, method)
        for method in seen
        for role, (_, changed) in zip(ROLES, seen[method], strict=True)
        if changed
    }
    return statuses, writes


def expected(matrix: dict, writes: set, name: str) -> tuple[dict, set]:
    get, post = matrix[name]
    return {"GET": get, "POST": post}, {(role, "POST") for row, role in writes if row == name}


# --- the matrix's world: built once for the module ------------------------------------------


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, pdf_cache) -> dict[str, int]:
    """The people and the contest every row starts from, built once for the module in one
    transaction (tests/crawl.py's `shared_data`); each test runs in a savepoint of it, rolled
    back, so every row still starts from this same database. As tests/conftest.py's `contest`:
    alice and bob grade problem 1, charlie problem 2; chen chairs, olga organizes; lena leads
    the delegation EST; jolene, a juror too, leads FIN, and EST with lena. Neither has a paper
    here (the papers are AI systems'): `juror_leader_conflicted` makes the one the URLs name
    FIN's and gives jolene alice's papers, for the matrices' tests alone (the admin's doors see
    this world as it is), and PUBLISHED_MATRIX moves it to EST; sara, a language specialist,
    is the helper of alice's question on the paper the URLs name in problem 1 (written
    directly: the matrix's database starts without notices). Returns the contest's primary
    key."""
    with shared_data(django_db_blocker, pdf_cache):
        alice, bob, charlie = (make_user(name, roles.JUROR) for name in ("alice", "bob", "charlie"))
        make_user("chen", roles.CHAIR)
        make_user("olga", roles.ORGANIZER)
        contest = make_contest(identities=["Team Orca", "Team Heron", "Team Lynx"])
        assign(contest, [alice, bob], problems=[1])
        assign(contest, [charlie], problems=[2])
        lena = make_user("lena", first_name="Lena", last_name="Leader")
        jolene = make_user("jolene", roles.JUROR, first_name="Jolene", last_name="Juror")
        make_delegation(contest, "EST", leaders=[lena, jolene])
        make_delegation(contest, "FIN", leaders=[jolene])
        sara = make_user("sara", roles.SPECIALIST, first_name="Sara", last_name="Reyes")
        problem = contest.problems.get(number=1)
        HelpRequest.objects.create(
            paper=problem.paper_labels.get(label=_url_args_label(contest, alice)).paper,
            problem=problem,
            asked_by=alice,
            question="What does line 2 say?",
            helper=sara,
            assigned_at=timezone.now(),
        )
        yield contest.pk


# The conftest's fixtures of the same names, read from the world instead of written anew.


@pytest.fixture
def contest(world, db):
    return Contest.objects.get(pk=world)


def _person(fixture: str, username: str):
    @pytest.fixture(name=fixture)
    def person(world, db):
        return User.objects.get(username=username)

    return person


juror = _person("juror", "alice")
other_juror = _person("other_juror", "bob")
outside_juror = _person("outside_juror", "charlie")
chair = _person("chair", "chen")
organizer = _person("organizer", "olga")
leader = _person("leader", "lena")
juror_leader = _person("juror_leader", "jolene")
specialist = _person("specialist", "sara")


def _url_args_label(contest, juror) -> str:
    problem = contest.problems.get(number=1)
    return problem.paper_labels.filter(paper__assignments__juror=juror).order_by("label")[0].label


@pytest.fixture
def juror_leader_conflicted(contest, juror, juror_leader):
    """jolene grades with alice: in problem 1's group, assigned alice's papers (her sheet
    holds their blank marks); then the paper the URLs name becomes a contestant's of FIN, the
    delegation she leads alone, so that she is conflicted with it as with a conflict that
    arises during grading (tests/test_conflicts.py). Not EST's: lena's page of her own
    contestant answers before the results are published (200, saying they are not), where
    MATRIX has her 404. Nobody else's answer changes: alice, bob and charlie come from no
    country and lead nothing."""
    assign(contest, [juror_leader], problems=[1])
    paper = _url_paper(contest, juror)
    paper.source, paper.delegation = Paper.Source.HUMAN, contest.delegations.get(code="FIN")
    paper.save(update_fields=["source", "delegation"])


def _url_paper(contest, juror) -> Paper:
    """The paper the URLs name: alice's in problem 1, by its label there."""
    return Paper.objects.get(
        contest=contest, labels__problem__number=1, labels__label=_url_args_label(contest, juror)
    )


@pytest.fixture
def people(juror, outside_juror, leader, juror_leader, chair, organizer, specialist):
    return {
        "anonymous": None,
        "juror": juror,
        "other_juror": outside_juror,
        "leader": leader,
        "juror_leader": juror_leader,
        "chair": chair,
        "organizer": organizer,
        "specialist": specialist,
    }


def test_every_url_pattern_has_a_row_in_the_matrix():
    # Admin patterns are Django's; the two admin rows stand for them.
    assert sorted(pattern_names()) == sorted(set(MATRIX) - set(ADMIN_ROWS))


def test_the_matrix_covers_the_admin_by_two_real_admin_urls():
    assert [reverse(name) for name in ADMIN_ROWS] == ["/admin/", "/admin/grading/paper/"]


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_each_role_gets_the_expected_status_and_refused_requests_write_nothing(
    name, people, contest, juror, scan_page, juror_leader_conflicted
):
    seen = observe_row(people, name, contest, juror)
    assert outcome(seen) == expected(MATRIX, WRITES, name)


# The phase where access changes most: both jurors of problem 1 have submitted and the chair
# has opened the resolution phase. The rows whose answer depends on it; the others stay as in
# MATRIX.
# fmt: off
RESOLUTION_MATRIX: dict[str, tuple[tuple, tuple]] = {
    # Alice has submitted: the comparison and discussions are open to her; to jolene too, but
    # for the cells of the paper the URLs name, a 404 as in her sheet.
    "comparison":           ((LOGIN, 200, 404, 404, 200, 200, 200, 404),           (LOGIN, 200, 404, 404, 200, 200, 200, 404)),
    "discussion":           ((LOGIN, 200, 404, 404, 404, 200, 200, 404),           (LOGIN, 200, 404, 404, 404, 200, 200, 404)),
    "discussion_comment":   ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, REDIRECT, 404, 404, 404, REDIRECT, 403, 404)),
    # alice and jolene have submitted: the session page is theirs, as the chair's.
    "session":              ((LOGIN, 200, 404, 404, 200, 200, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # Only a juror revises, and only her own mark (the chair has none: 403).
    "discussion_revise":    ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, REDIRECT, 404, 404, 404, 403, 403, 404)),
    "discussion_decide":    ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 404, REDIRECT, 403, 404)),
    "discussion_ask_revise":((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 403, 404, 404, 404, REDIRECT, 403, 404)),
    "comparison_stamp":     ((LOGIN, 200, 404, 404, 200, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "discussion_stamp":     ((LOGIN, 200, 404, 404, 404, 200, 200, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    # Every juror of the contest was told the phase opened: marking read writes.
    "inbox_read":           ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, REDIRECT, REDIRECT, REDIRECT, REDIRECT, REDIRECT, REDIRECT, REDIRECT)),
    # The sheet accepts revisions in this phase (each recorded in the history).
    "sheet_cell_save":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 200, 404, 404, 404, 404, 404, 404)),
    "sheet_note_save":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 200, 404, 404, 404, 404, 404, 404)),
    # Already submitted, already open: refused with a message.
    "sheet_submit":         ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, REDIRECT, 404, 404, REDIRECT, 404, 404, 404)),
    "resolution_open":      ((LOGIN, 405, 405, 405, 405, 405, 405, 405),           (LOGIN, 404, 404, 404, 404, REDIRECT, 404, 404)),
}
# fmt: on

RESOLUTION_WRITES = {
    ("discussion_ask_revise", "chair"),
    ("inbox_read", "juror"),
    ("inbox_read", "other_juror"),
    ("inbox_read", "juror_leader"),
    ("discussion_comment", "juror"),
    ("discussion_comment", "chair"),
    ("discussion_revise", "juror"),
    ("discussion_decide", "chair"),
    ("sheet_cell_save", "juror"),
    ("sheet_note_save", "juror"),
}


@pytest.fixture
def in_resolution(contest, juror, other_juror, juror_leader, chair, juror_leader_conflicted):
    problem = contest.problems.get(number=1)
    conflicted = _url_paper(contest, juror)
    for number, paper in enumerate(contest.papers.order_by("pk")):
        grade(juror, problem, paper, "8", str(number))
        grade(other_juror, problem, paper, "9", str(number))
        # jolene's sheet is complete without FIN's contestant, which left it.
        if paper != conflicted:
            grade(juror_leader, problem, paper, "8", str(number))
    submit(juror, problem)
    submit(other_juror, problem)
    submit(juror_leader, problem)
    contest_resolution_open(contest=contest, actor=chair)
    contest.refresh_from_db()
    return contest


@pytest.mark.parametrize("name", sorted(RESOLUTION_MATRIX))
def test_in_the_resolution_phase_each_role_gets_the_expected_status(
    name, people, in_resolution, juror
):
    seen = observe_row(people, name, in_resolution, juror)
    assert outcome(seen) == expected(RESOLUTION_MATRIX, RESOLUTION_WRITES, name)


# Once the results are provisional, the paper the URLs name (alice's, with a scanned page) a
# contestant of lena's delegation, which jolene leads too: their pages open to them alone;
# the others' rows stay as in MATRIX (the appeals' pages are tried with real appeals in
# tests/grading/appeals/).
# fmt: off
PUBLISHED_MATRIX: dict[str, tuple[tuple, tuple]] = {
    "home":                 ((LOGIN, 200, 200, 200, 200, 200, 200, 200),           (LOGIN, 200, 200, 200, 200, 200, 200, 200)),
    "leader_delegation":    ((LOGIN, 404, 404, 200, 200, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "leader_contestant_problem": ((LOGIN, 404, 404, 200, 200, 404, 404, 404),      (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
    "leader_scan_page":     ((LOGIN, 404, 404, 200, 200, 404, 404, 404),           (LOGIN, 405, 405, 405, 405, 405, 405, 405)),
}
# fmt: on


@pytest.fixture
def published(contest, juror, leader):
    paper = Paper.objects.get(
        contest=contest, labels__problem__number=1, labels__label=_url_args(contest, juror)["label"]
    )
    paper.source, paper.delegation = Paper.Source.HUMAN, contest.delegations.get(code="EST")
    paper.save(update_fields=["source", "delegation"])
    now = timezone.now()
    ProvisionalResult.objects.create(paper=paper, total=50, rank=1, medal="", published_at=now)
    Contest.objects.filter(pk=contest.pk).update(state=Contest.State.PROVISIONAL)
    contest.refresh_from_db()
    return contest


@pytest.mark.parametrize("name", sorted(PUBLISHED_MATRIX))
def test_once_published_a_leader_reaches_their_own_contestant_and_nobody_else_does(
    name, people, scan_page, juror_leader_conflicted, published, juror
):
    seen = observe_row(people, name, published, juror)
    assert outcome(seen) == expected(PUBLISHED_MATRIX, set(), name)


# The admin's doors: its filters in the URL and its change pages with their inlines, for each
# role, before the contest is final and once it is. Identities (a paper's name and metadata)
# and what links a paper across problems (its id, its labels, filters by paper) are for those
# who may see identities: the organizer, and the chair on a final contest's own pages (lists
# span contests, so their filters stay the organizer's). Django itself refuses a filter across
# two relations that is not a list filter (400 for the organizer too).


class Listed(NamedTuple):
    """A changelist answered: its rows, whether an identity appears, whether a paper's id does."""

    rows: int
    named: bool
    traced: bool


class Shown(NamedTuple):
    """A change page answered: whether an identity appears, whether a paper's id does, and its
    inlines as (model, whether it accepts any write)."""

    named: bool
    traced: bool
    inlines: tuple[tuple[str, bool], ...] = ()


# Anonymous, both jurors, the leader and the juror who leads: none of them is staff.
KEPT_OUT = (LOGIN, LOGIN, LOGIN, LOGIN, LOGIN)
# The language specialist, the eighth column: not staff either.
SPECIALIST_OUT = LOGIN
IDENTITY = (*KEPT_OUT, 400, Listed(1, True, True), SPECIALIST_OUT)
# Django's own refusal of a filter across two relations, for everyone who gets in.
TWO_RELATIONS = (*KEPT_OUT, 400, 400, SPECIALIST_OUT)
PAPER_PAGE_FINAL = Shown(True, True, (("paperlabel", False),))
CONTEST_INLINES = ("medalcutoff", "problem", "contestevent")


def _inlines(*editable: bool, names=CONTEST_INLINES) -> tuple[tuple[str, bool], ...]:
    return tuple(zip(names, editable, strict=True))


# description: (path under /admin/, query, before final, after final); each for ROLES in order.
# Placeholders: {orca} Team Orca's paper, {label} and {label_text} its label in problem 1,
# {mark} a mark of it, {contest} and {problem} problem 1 and its contest.
# fmt: off
ADMIN_DOORS: dict[str, tuple[str, dict, tuple, tuple]] = {
    "paper by identity__startswith": (
        "grading/paper/", {"identity__startswith": "Team O"}, IDENTITY, IDENTITY),
    "paper by identity__icontains": (
        "grading/paper/", {"identity__icontains": "heron"}, IDENTITY, IDENTITY),
    "paper by identity__regex": (
        "grading/paper/", {"identity__regex": "^Team L"}, IDENTITY, IDENTITY),
    "paper by a metadata key": (
        "grading/paper/", {"metadata__team": "Team Orca"}, IDENTITY, IDENTITY),
    "paper by metadata__icontains": (
        "grading/paper/", {"metadata__icontains": "lynx"}, IDENTITY, IDENTITY),
    # Searching a label would tie it to a paper: the chair's search has no fields (all rows).
    "paper search by label": (
        "grading/paper/", {"q": "{label_text}"},
        (*KEPT_OUT, Listed(3, False, False), Listed(1, True, True), SPECIALIST_OUT),
        (*KEPT_OUT, Listed(3, False, False), Listed(1, True, True), SPECIALIST_OUT)),
    "paper by its label": (
        "grading/paper/", {"labels": "{label}"},
        (*KEPT_OUT, 400, Listed(1, True, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(1, True, True), SPECIALIST_OUT)),
    "paperlabel by paper__identity": (
        "grading/paperlabel/", {"paper__identity__startswith": "Team O"},
        TWO_RELATIONS, TWO_RELATIONS),
    "paperlabel by paper": (
        "grading/paperlabel/", {"paper": "{orca}"},
        (*KEPT_OUT, 400, Listed(2, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(2, False, True), SPECIALIST_OUT)),
    "mark by paper__identity": (
        "grading/mark/", {"paper__identity__startswith": "Team O"}, TWO_RELATIONS, TWO_RELATIONS),
    "mark by paper": (
        "grading/mark/", {"paper": "{orca}"},
        (*KEPT_OUT, 400, Listed(6, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(6, False, True), SPECIALIST_OUT)),
    "solution by paper__metadata": (
        "grading/solution/", {"paper__metadata__icontains": "orca"}, TWO_RELATIONS, TWO_RELATIONS),
    # A solution is named by its paper's label in its problem; its link carries its id.
    "solution by paper_id": (
        "grading/solution/", {"paper_id": "{orca}"},
        (*KEPT_OUT, 400, Listed(2, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(2, False, True), SPECIALIST_OUT)),
    "assignment by paper": (
        "grading/assignment/", {"paper__exact": "{orca}"},
        (*KEPT_OUT, 400, Listed(3, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(3, False, True), SPECIALIST_OUT)),
    "markevent by mark__paper__identity": (
        "grading/markevent/", {"mark__paper__identity__startswith": "Team"},
        TWO_RELATIONS, TWO_RELATIONS),
    "mark list": (
        "grading/mark/", {},
        (*KEPT_OUT, Listed(18, False, False), Listed(18, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, Listed(18, False, False), Listed(18, False, True), SPECIALIST_OUT)),
    "paperlabel list": (
        "grading/paperlabel/", {},
        (*KEPT_OUT, Listed(6, False, False), Listed(6, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, Listed(6, False, False), Listed(6, False, True), SPECIALIST_OUT)),
    # Import order: a paper's id, its kind, its import time, a list sorted by a column (its ties
    # fall back on ids) are refused to the chair, on every list that refers to papers.
    "paper by id": (
        "grading/paper/", {"id": "{orca}"}, IDENTITY, IDENTITY),
    "paper by id__gt": (
        "grading/paper/", {"id__gt": "0"},
        (*KEPT_OUT, 400, Listed(3, True, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(3, True, True), SPECIALIST_OUT)),
    "paper by source": (
        "grading/paper/", {"source": "ai"},
        (*KEPT_OUT, 400, Listed(3, True, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(3, True, True), SPECIALIST_OUT)),
    "paper by public_code": (
        "grading/paper/", {"public_code": "{code}"}, IDENTITY, IDENTITY),
    "paper by created_at__lt": (
        "grading/paper/", {"created_at__lt": "2999-01-01T00:00:00+00:00"},
        (*KEPT_OUT, 400, Listed(3, True, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(3, True, True), SPECIALIST_OUT)),
    "paper list sorted by a column": (
        "grading/paper/", {"o": "2"},
        (*KEPT_OUT, 400, Listed(3, True, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(3, True, True), SPECIALIST_OUT)),
    # Lookups on ids that every row passes: on PostgreSQL ids go on counting across tests.
    "paperlabel by id__gt": (
        "grading/paperlabel/", {"id__gt": "0"},
        (*KEPT_OUT, 400, Listed(6, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(6, False, True), SPECIALIST_OUT)),
    "mark by id__gt": (
        "grading/mark/", {"id__gt": "0"},
        (*KEPT_OUT, 400, Listed(18, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(18, False, True), SPECIALIST_OUT)),
    "solution by pk__gt": (
        "grading/solution/", {"pk__gt": "0"},
        (*KEPT_OUT, 400, Listed(6, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(6, False, True), SPECIALIST_OUT)),
    "assignment list sorted by a column": (
        "grading/assignment/", {"o": "-1"},
        (*KEPT_OUT, 400, Listed(9, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, 400, Listed(9, False, True), SPECIALIST_OUT)),
    "solution page": (
        "grading/solution/{solution}/change/", {},
        (*KEPT_OUT, REDIRECT, Shown(False, True), SPECIALIST_OUT),
        (*KEPT_OUT, Shown(False, True), Shown(False, True), SPECIALIST_OUT)),
    # A paper's page: its labels in every problem are an inline.
    "paper page": (
        "grading/paper/{orca}/change/", {},
        (*KEPT_OUT, REDIRECT, Shown(True, True, (("paperlabel", True),)), SPECIALIST_OUT),
        (*KEPT_OUT, PAPER_PAGE_FINAL, PAPER_PAGE_FINAL, SPECIALIST_OUT)),
    # Ids follow import order: before final, the chair gets no page by id, but Django's "does
    # not exist" (a redirect to the admin's index), whether the id exists or not.
    "mark page": (
        "grading/mark/{mark}/change/", {},
        (*KEPT_OUT, REDIRECT, Shown(False, True, (("markevent", False),)), SPECIALIST_OUT),
        (*KEPT_OUT, Shown(False, True, (("markevent", False),)),
         Shown(False, True, (("markevent", False),)), SPECIALIST_OUT)),
    # Once final, nothing the contest owns accepts a write, inlines included; its life is a
    # record that never does.
    "contest page": (
        "rubrics/contest/{contest}/change/", {},
        (*KEPT_OUT, Shown(False, False, _inlines(False, False, False)),
         Shown(False, False, _inlines(True, True, False)), SPECIALIST_OUT),
        (*KEPT_OUT, Shown(False, False, _inlines(False, False, False)),
         Shown(False, False, _inlines(False, False, False)), SPECIALIST_OUT)),
    "problem page": (
        "rubrics/problem/{problem}/change/", {},
        (*KEPT_OUT, Shown(False, False, (("criterion", False),)),
         Shown(False, False, (("criterion", True),)), SPECIALIST_OUT),
        (*KEPT_OUT, Shown(False, False, (("criterion", False),)),
         Shown(False, False, (("criterion", False),)), SPECIALIST_OUT)),
    # Papers moved during grading and questions for language help (bob's here, and alice's
    # that sara helps with in every test): records that name their
    # paper by its label in their problem to the chair, and reach no page by id before final.
    "assignmentmove list": (
        "grading/assignmentmove/", {},
        (*KEPT_OUT, Listed(1, False, False), Listed(1, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, Listed(1, False, False), Listed(1, False, True), SPECIALIST_OUT)),
    "assignmentmove by paper": (
        "grading/assignmentmove/", {"paper": "{orca}"},
        (*KEPT_OUT, 400, Listed(1, False, True), SPECIALIST_OUT), (*KEPT_OUT, 400, Listed(1, False, True), SPECIALIST_OUT)),
    "assignmentmove sorted by a column": (
        "grading/assignmentmove/", {"o": "1"},
        (*KEPT_OUT, 400, Listed(1, False, True), SPECIALIST_OUT), (*KEPT_OUT, 400, Listed(1, False, True), SPECIALIST_OUT)),
    "assignmentmove page": (
        "grading/assignmentmove/{move}/change/", {},
        (*KEPT_OUT, REDIRECT, Shown(False, True), SPECIALIST_OUT), (*KEPT_OUT, Shown(False, True), Shown(False, True), SPECIALIST_OUT)),
    "helprequest list": (
        "grading/helprequest/", {},
        (*KEPT_OUT, Listed(2, False, False), Listed(2, False, True), SPECIALIST_OUT),
        (*KEPT_OUT, Listed(2, False, False), Listed(2, False, True), SPECIALIST_OUT)),
    "helprequest by paper__identity": (
        "grading/helprequest/", {"paper__identity__startswith": "Team O"},
        TWO_RELATIONS, TWO_RELATIONS),
    "helprequest by id__gt": (
        "grading/helprequest/", {"id__gt": "0"},
        (*KEPT_OUT, 400, Listed(2, False, True), SPECIALIST_OUT), (*KEPT_OUT, 400, Listed(2, False, True), SPECIALIST_OUT)),
    "helprequest page": (
        "grading/helprequest/{help}/change/", {},
        (*KEPT_OUT, REDIRECT, Shown(False, True), SPECIALIST_OUT), (*KEPT_OUT, Shown(False, True), Shown(False, True), SPECIALIST_OUT)),
    # A person's facts belong to no contest: the chair reads them, the organizer sets them, the
    # languages beside them, final or not.
    "jurorprofile page": (
        "grading/jurorprofile/{profile}/change/", {},
        (*KEPT_OUT, Shown(False, False, (("jurorlanguage", False),)),
         Shown(False, False, (("jurorlanguage", True),)), SPECIALIST_OUT),
        (*KEPT_OUT, Shown(False, False, (("jurorlanguage", False),)),
         Shown(False, False, (("jurorlanguage", True),)), SPECIALIST_OUT)),
}
# fmt: on

IDENTITIES = ("Team Orca", "Team Heron", "Team Lynx")
PAPER_MODELS = (
    "paper|paperlabel|solution|assignment|mark|markevent|comment|resolution"
    "|assignmentmove|helprequest"
)


def _door_args(contest) -> dict[str, object]:
    orca = contest.papers.get(identity="Team Orca")
    label = orca.labels.get(problem__number=1)
    move = AssignmentMove.objects.get(paper=orca)
    question = HelpRequest.objects.get(paper=orca, question="Plural?")
    return {
        "move": move.pk,
        "help": question.pk,
        "profile": JurorProfile.objects.get(user=move.from_juror).pk,
        "orca": orca.pk,
        "label": label.pk,
        "label_text": label.label,
        "mark": orca.marks.order_by("pk")[0].pk,
        "solution": orca.solutions.order_by("pk")[0].pk,
        "code": orca.public_code,
        "contest": contest.pk,
        "problem": contest.problems.get(number=1).pk,
    }


def observe_admin(user, path: str, query: dict, args: dict) -> object:
    """What one role sees at one of the admin's doors (GET)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    query = {key: value.format(**args) for key, value in query.items()}
    response = client.get("/admin/" + path.format(**args), query)
    if response.status_code == 302 and "login/" in response["Location"]:
        return LOGIN
    if response.status_code != 200:
        return response.status_code
    text = response.content.decode()
    named = any(identity in text for identity in IDENTITIES)
    # A paper's id or its public code (five characters; a label has four) pairs its problems;
    # so does a link to a page of anything that refers to a paper by its id (import order).
    traced = (
        "paper #" in text.lower()
        or re.search(r"\bpaper [A-Z][A-Z0-9]{4}\b", text) is not None
        or re.search(rf"/admin/grading/(?:{PAPER_MODELS})/\d+/", text) is not None
    )
    if "cl" in response.context:
        return Listed(response.context["cl"].result_count, named, traced)
    inlines = tuple(
        (
            formset.opts.model._meta.model_name,
            formset.has_add_permission
            or formset.has_change_permission
            or formset.has_delete_permission,
        )
        for formset in response.context["inline_admin_formsets"]
    )
    return Shown(named, traced, inlines)


@pytest.fixture
def moved_and_helped(contest, juror, other_juror, chair):
    """Orca's problem 1 moved from alice (unavailable, with her facts) to bob by the chair,
    and a question of bob's on it for language help."""
    orca, p1 = contest.papers.get(identity="Team Orca"), contest.problems.get(number=1)
    JurorProfile.objects.create(user=juror, country="Latvia", unavailable_since=timezone.now())
    JurorLanguage.objects.create(user=juror, language="Estonian")
    AssignmentMove.objects.create(
        paper=orca, problem=p1, from_juror=juror, to_juror=other_juror, actor=chair, reason="Ill."
    )
    HelpRequest.objects.create(paper=orca, problem=p1, asked_by=other_juror, question="Plural?")


@pytest.mark.parametrize("final", [False, True], ids=["before final", "after final"])
@pytest.mark.parametrize("door", sorted(ADMIN_DOORS))
def test_each_role_gets_the_expected_answer_at_the_admins_doors(
    door, final, people, contest, moved_and_helped
):
    path, query, before, after = ADMIN_DOORS[door]
    if final:
        # The admin reads the contest's state alone; how it became final is not its concern.
        Contest.objects.filter(pk=contest.pk).update(state=Contest.State.FINAL)
    args = _door_args(contest)
    seen = tuple(observe_admin(people[role], path, query, args) for role in ROLES)
    assert seen == (after if final else before)
