"""The fonts browsers get are the printouts' fonts, only compressed: each WOFF2 in
static/fonts/charis/ holds the same glyphs and character map as the TTF beside it, so a TTF
replaced without making its WOFF2 again (static/fonts/charis/README.md) fails here."""

import re
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from grading.printing.pdf import FONT_DIR

SITE_CSS = Path(__file__).resolve().parents[2] / "static" / "grading" / "site.css"
TTFS = sorted(FONT_DIR.glob("*.ttf"))


def test_every_charis_style_ships_as_ttf_and_woff2():
    assert [path.name for path in TTFS] == [
        "CharisSIL-Bold.ttf",
        "CharisSIL-BoldItalic.ttf",
        "CharisSIL-Italic.ttf",
        "CharisSIL-Regular.ttf",
    ]
    assert sorted(path.with_suffix(".ttf") for path in FONT_DIR.glob("*.woff2")) == TTFS


@pytest.mark.parametrize("ttf", TTFS, ids=lambda path: path.stem)
def test_each_woff2_holds_the_glyphs_and_characters_of_its_ttf(ttf):
    original, compressed = TTFont(ttf), TTFont(ttf.with_suffix(".woff2"))
    assert compressed.flavor == "woff2"
    assert compressed.getGlyphOrder() == original.getGlyphOrder()
    assert compressed.getBestCmap() == original.getBestCmap()
    assert compressed["name"].getDebugName(4) == original["name"].getDebugName(4)
    assert ttf.with_suffix(".woff2").stat().st_size < ttf.stat().st_size / 2


def test_the_site_css_serves_only_woff2_to_browsers():
    sources = re.findall(
        r'url\("\.\./fonts/charis/([^"]+)"\) format\("([^"]+)"\)', SITE_CSS.read_text()
    )
    assert sources == [
        ("CharisSIL-Regular.woff2", "woff2"),
        ("CharisSIL-Italic.woff2", "woff2"),
        ("CharisSIL-Bold.woff2", "woff2"),
        ("CharisSIL-BoldItalic.woff2", "woff2"),
    ]
