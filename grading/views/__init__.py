"""Pages and downloads, one module per part of the site: home and paper pages, the juror's
sheet, printouts, comparison and results, the automatic ranking, the analysis."""
