"""The rules that must always hold, each in one place: the outcome of a cell (`domain`), who may do
what (`access`), roles, typed refusals, "final means final" (`phase`), and text that leaves in a
spreadsheet (`spreadsheets`). Imports only the models."""
