"""The comment bank's addresses, under /contests/<contest>/p<problem>/ (included from
grading/urls.py): the sheet's two (add a note, count a use) and the chair's curation page."""

from django.urls import path

from grading.marking import bank_views

urlpatterns = [
    path("sheet/bank/<str:code>/", bank_views.sheet_bank_add, name="sheet_bank_add"),
    path("sheet/bank/notes/<int:note>/use/", bank_views.sheet_bank_use, name="sheet_bank_use"),
    path("bank/", bank_views.bank_page, name="bank"),
    path("bank/add/", bank_views.bank_add, name="bank_add"),
    path("bank/<int:note>/adopt/", bank_views.bank_adopt, name="bank_adopt"),
    path("bank/<int:note>/edit/", bank_views.bank_edit, name="bank_edit"),
    path("bank/<int:note>/remove/", bank_views.bank_remove, name="bank_remove"),
    path("bank/<int:note>/move/", bank_views.bank_move, name="bank_move"),
]
