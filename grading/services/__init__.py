"""Writes, one module per thing written: marks (`mark_set`), sheets, labels, assignments, the
jury selection, resolution, and the kept cell ranges. Each function is atomic and raises
ValidationError with a sentence the user can act on."""
