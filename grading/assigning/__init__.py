"""Who grades what: the assignment of papers to jurors under a real jury's constraints
(languages, conflicts, capacity), its changes during grading, and language help."""
