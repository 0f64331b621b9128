# The README's two commands: `make run` serves the demo, `make test` checks everything.
# Both start with `make install`, which re-installs only when pyproject.toml changed.
PORT ?= 8000
VENV := .venv
PYTHON := $(VENV)/bin/python
STAMP := $(VENV)/.install-stamp

.PHONY: install system-deps run serve test bench demo clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@PY=$$(sh scripts/find-python.sh) || exit 1; \
	  if [ ! -x $(PYTHON) ]; then echo "Creating $(VENV) with $$PY"; "$$PY" -m venv $(VENV) || exit 1; fi
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# Debian packages: Chromium for browser tests, poppler for checking PDFs, PostgreSQL for the
# second test run. Installed when missing and root. (Charis SIL ships in static/fonts/.)
system-deps:
	@sh scripts/system-deps.sh

# DEBUG on for the local demo (it is off by default; `make serve` keeps it off).
demo: install
	DEBUG=true $(PYTHON) manage.py migrate --no-input
	DEBUG=true $(PYTHON) manage.py load_demo

# The development server and the task worker beside it (scripts/run.sh stops both together).
run: demo
	@PORT=$(PORT) sh scripts/run.sh

# Production: DEBUG off, gunicorn, the task worker, WhiteNoise (README, "Running it for real").
serve: install
	@PORT=$(PORT) bash scripts/serve.sh

test: install system-deps
	@sh scripts/test.sh

bench: install system-deps
	@sh scripts/bench.sh

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-* var staticfiles .pytest_cache .ruff_cache
