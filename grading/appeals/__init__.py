"""Provisional results, team leaders' pages and their appeals: the olympiad's last step before
the medals."""
