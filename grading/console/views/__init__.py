"""The organizer's console: pages (not the admin) to set a contest up and manage its people.
Organizers only; every other role gets a 404 (`guards.organizer_required`), as for the other
pages that are the organizer's alone. Modules by role: `contest.py` (contests, their maximum and
medal cut-offs), `people.py` (jurors in bulk, editing, deactivating, unlocking, passwords),
`slips.py` (printed sign-in slips) and `signin.py` (the one-time link's page, for the juror)."""
