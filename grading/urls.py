from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from grading.console.views import life, signin
from grading.jobs import health
from grading.jobs import views as jobs
from grading.marking import views as sheet
from grading.metrics import views as autoscore
from grading.papers import page_views as scans
from grading.papers import views as home
from grading.printing import views as pdf
from grading.resolution import (
    discussion_views as discussion,
)
from grading.resolution import (
    inbox_views as inbox,
)
from grading.resolution import (
    live_views as live,
)
from grading.results import analysis_views as analysis
from grading.results import cutoff_views
from grading.results import jury_evaluation_views as jury_evaluations
from grading.results import views as results
from grading.web import offline_reading

# A post over one of Django's bounds is said in a sentence naming the setting (views/errors.py).
handler400 = "grading.web.errors.bad_request"

urlpatterns = [
    path("", home.home, name="home"),
    path("favicon.ico", home.favicon, name="favicon"),
    # The sheets' service worker, from the root so that its scope is the whole site.
    path("sheet-worker.js", offline_reading.sheet_worker, name="sheet_worker"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    # Signing out clears the browser's copy of the sheets and their waiting changes.
    path("accounts/logout/", offline_reading.sign_out, name="logout"),
    # The one-time link of a sign-in slip: the juror sets a password and is signed in.
    path("accounts/sign-in/<uidb64>/<token>/", signin.sign_in, name="sign_in"),
    # The organizer's console (grading/console/views/).
    path("console/", include("grading.console.views.urls")),
    # Team leaders' appeals and the jury's handling of them (grading/appeals/).
    path("", include("grading.appeals.urls")),
    # Language help: a juror's question, the help queue, the helper's pages (grading/assigning/).
    path("", include("grading.assigning.urls")),
    # Calibration rounds: the chair's page and a juror's calibration sheet (grading/calibration/).
    path("", include("grading.calibration.urls")),
    # Seeded checks and each juror's own calibration (grading/calibration/seed_urls.py).
    path("", include("grading.calibration.seed_urls")),
    # A problem's "Amend the scheme" page and its versions (grading/schemes/).
    path("", include("grading.schemes.urls")),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/",
        home.paper_detail,
        name="paper_detail",
    ),
    # A human paper's scanned page, for those who may read the paper (grading/papers/page_views.py).
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/pages/<int:position>.png",
        scans.scan_page_image,
        name="scan_page_image",
    ),
    # Anonymized printouts (grading/printing/pdf.py); `?criteria=1` adds a marking page per paper.
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>.pdf",
        pdf.paper_pdf,
        name="paper_pdf",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/papers.pdf",
        pdf.problem_pdf_bundle,
        name="problem_pdf_bundle",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/papers.zip",
        pdf.problem_pdf_zip,
        name="problem_pdf_zip",
    ),
    path(
        "contests/<slug:contest>/autoscore/",
        autoscore.autoscore_ranking,
        name="autoscore_ranking",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/comparison/",
        results.comparison_view,
        name="comparison",
    ),
    path("", include("grading.resolution.session_urls")),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/criteria/<str:code>/",
        discussion.discussion_view,
        name="discussion",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/criteria/<str:code>/comment/",
        discussion.discussion_comment,
        name="discussion_comment",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/criteria/<str:code>/revise/",
        discussion.discussion_revise,
        name="discussion_revise",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/criteria/<str:code>/decide/",
        discussion.discussion_decide,
        name="discussion_decide",
    ),
    path("contests/<slug:contest>/queue/", discussion.chair_queue_view, name="chair_queue"),
    # The next or previous cell of the queue from a discussion (its keys and links).
    path(
        "contests/<slug:contest>/queue/step/",
        discussion.chair_queue_step,
        name="chair_queue_step",
    ),
    path("contests/<slug:contest>/results/", results.results_view, name="results"),
    # Medal cut-offs proposed from the human contestants' totals, and their confirmation.
    path("contests/<slug:contest>/cutoffs/", cutoff_views.cutoffs_proposal, name="cutoffs"),
    path(
        "contests/<slug:contest>/cutoffs/confirm/",
        cutoff_views.cutoffs_confirm,
        name="cutoffs_confirm",
    ),
    # One paper's cells, which the results page loads when its row is opened.
    path(
        "contests/<slug:contest>/results/<str:public_code>/",
        results.results_paper_view,
        name="results_paper",
    ),
    # Jury versus automatic metrics (grading/results/analysis.py); charts are SVG files.
    path("contests/<slug:contest>/analysis/", analysis.analysis_page, name="analysis"),
    # Its tables as files: one CSV (?table=), a zip of CSVs, or XLSX (analysis_exports.py).
    path(
        "contests/<slug:contest>/analysis.<str:fmt>",
        analysis.analysis_export_view,
        name="analysis_export",
    ),
    path(
        "contests/<slug:contest>/analysis/<str:chart>.svg",
        analysis.analysis_chart,
        name="analysis_chart",
    ),
    path("contests/<slug:contest>/finalize/", life.finalize_view, name="finalize"),
    path("contests/<slug:contest>/reopen/", life.reopen_view, name="reopen"),
    path("contests/<slug:contest>/reveal/", results.reveal_view, name="reveal"),
    path(
        "contests/<slug:contest>/resolution/",
        life.resolution_open_view,
        name="resolution_open",
    ),
    path(
        "contests/<slug:contest>/results.<str:fmt>",
        results.export_view,
        name="results_export",
    ),
    # Each juror's marks, as submitted and after revision, beside the agreed values.
    path(
        "contests/<slug:contest>/jury-evaluations.<str:fmt>",
        jury_evaluations.jury_evaluations_export_view,
        name="jury_evaluations_export",
    ),
    # A juror's own grading sheet (grading/sheet.py).
    path("contests/<slug:contest>/p<int:problem>/sheet/", sheet.sheet_page, name="sheet"),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/cells/<str:label>/<str:code>/",
        sheet.sheet_cell_save,
        name="sheet_cell_save",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/cells/<str:label>/<str:code>/note/",
        sheet.sheet_note_save,
        name="sheet_note_save",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/cells/<str:label>/<str:code>/history/",
        sheet.sheet_cell_history,
        name="sheet_cell_history",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/solution/<str:label>/",
        sheet.sheet_solution,
        name="sheet_solution",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/submit/",
        sheet.sheet_submit_view,
        name="sheet_submit",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet.xlsx",
        sheet.sheet_xlsx_download,
        name="sheet_xlsx",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/upload/",
        sheet.sheet_xlsx_upload,
        name="sheet_xlsx_upload",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/upload/preview/",
        sheet.sheet_xlsx_preview,
        name="sheet_xlsx_preview",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/sheet/upload/confirm/",
        sheet.sheet_xlsx_confirm,
        name="sheet_xlsx_confirm",
    ),
    # The comment bank: the sheet's notes to insert and add, the chair's curation page.
    path("contests/<slug:contest>/p<int:problem>/", include("grading.marking.bank_urls")),
    # Background jobs (grading/jobs/running.py): the whole contest's printouts.
    path("contests/<slug:contest>/printouts/", jobs.jobs_page, name="jobs"),
    path("contests/<slug:contest>/printouts/start/", jobs.job_start_view, name="job_start"),
    path("contests/<slug:contest>/jobs/<int:pk>/", jobs.job_page, name="job"),
    path("contests/<slug:contest>/jobs/<int:pk>/progress/", jobs.job_progress, name="job_progress"),
    path("contests/<slug:contest>/jobs/<int:pk>/retry/", jobs.job_retry_view, name="job_retry"),
    path("contests/<slug:contest>/jobs/<int:pk>/file/", jobs.job_download, name="job_download"),
    path("healthz", health.healthz, name="healthz"),
    # Each person's inbox, and the change tokens live.js polls (grading/resolution/live_views.py).
    path("inbox/", inbox.inbox_page, name="inbox"),
    path("inbox/read/", inbox.inbox_read, name="inbox_read"),
    path("inbox/stamp/", live.inbox_change_token, name="inbox_stamp"),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/criteria/<str:code>/stamp/",
        live.discussion_change_token,
        name="discussion_stamp",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/criteria/<str:code>/ask-revise/",
        inbox.revision_request_view,
        name="discussion_ask_revise",
    ),
    path(
        "contests/<slug:contest>/p<int:problem>/comparison/stamp/",
        live.comparison_change_token,
        name="comparison_stamp",
    ),
    path("contests/<slug:contest>/queue/stamp/", live.queue_change_token, name="queue_stamp"),
    # A team leader's delegation and contestants (grading/appeals/leader_views.py).
    path("contests/<slug:contest>/delegation/", include("grading.appeals.leader_urls")),
    path("admin/", admin.site.urls),
]
