"""Totals, ranking and medals: results (`selectors`), cut-offs, exports to CSV and XLSX, the
analysis and its charts, and the results pages."""
