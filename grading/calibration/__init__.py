"""Grading the same way: a problem's calibration round before live grading, the seeds that
bring calibration papers back into live sheets, and each juror's own calibration."""
