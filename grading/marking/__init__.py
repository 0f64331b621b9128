"""A juror's marks: sheets and their cells (`sheets`), the one rule of a mark change
(`marks.mark_set`), a revised submitted mark's effect on its cell (`reconcile`), the offline XLSX
(`xlsx*`) and the sheet pages."""
