"""One contest to one file and back: `export` writes it, `restore` reads it into a database."""
