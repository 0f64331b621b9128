"""PDFs: a paper's printout and the contest's batch (`pdf`, `batch`), scanned pages in print,
answer-sheet covers, printout jobs and the PDF pages."""
