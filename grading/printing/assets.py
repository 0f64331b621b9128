"""What a printout may load: the bundled fonts and scanned pages as data: URLs (shared by the
HTML, `pdf`, and the renderer that enforces it, `engine`)."""

from pathlib import Path

# The project root's static/fonts (this module is grading/printing/assets.py).
FONT_DIR = Path(__file__).resolve().parents[2] / "static" / "fonts" / "charis"
# How a scanned page is put in a printout's HTML.
SCAN_DATA_URL = "data:image/png;base64,"
