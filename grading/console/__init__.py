"""The organizer's console: contests and their life (`contest_life`), people and sign-in links
(`people`), assignment, the import pages and their jobs, restore, progress."""
