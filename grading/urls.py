from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from grading.views import analysis, autoscore, discussion, home, pdf, results, sheet

urlpatterns = [
    path("", home.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "contests/<slug:contest>/p<int:problem>/papers/<str:label>/",
        home.paper_detail,
        name="paper_detail",
    ),
    # Anonymized printouts (grading/pdf.py); `?criteria=1` adds a marking page per paper.
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
    path("contests/<slug:contest>/results/", results.results_view, name="results"),
    # Jury versus automatic metrics (grading/analysis.py); charts are SVG files.
    path("contests/<slug:contest>/analysis/", analysis.analysis_page, name="analysis"),
    path(
        "contests/<slug:contest>/analysis/<str:chart>.svg",
        analysis.analysis_chart,
        name="analysis_chart",
    ),
    path("contests/<slug:contest>/finalize/", results.finalize_view, name="finalize"),
    path("contests/<slug:contest>/reopen/", results.reopen_view, name="reopen"),
    path("contests/<slug:contest>/reveal/", results.reveal_view, name="reveal"),
    path(
        "contests/<slug:contest>/resolution/",
        results.resolution_open_view,
        name="resolution_open",
    ),
    path(
        "contests/<slug:contest>/results.<str:fmt>",
        results.export_view,
        name="results_export",
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
    path("admin/", admin.site.urls),
]
