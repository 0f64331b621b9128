"""The automatic metrics beside the jury's scores: exact match, chrF and their geometric mean
(`autoscore`), answer diffs, the jury selection they are compared with, and their page and
command."""
