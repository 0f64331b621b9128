"""Reads that aggregate, one module per page family, each a fixed number of queries whatever
the number of papers: home and paper pages, the juror's sheet, printouts, comparison and
results, the analysis."""
