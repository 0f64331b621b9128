"""Schemes with versions: amending a problem's grading scheme once marks exist, and the marks
an amendment reopens for their jurors."""
