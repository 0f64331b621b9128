"""The demo contest: five small problems in invented languages, six AI systems' outputs in the
three shapes the importers read, users, grading groups and part of the grading. Loaded with
`python manage.py load_demo` (and by `make run`)."""
