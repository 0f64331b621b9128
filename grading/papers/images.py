"""What a stored page image is: upright, its top band (where the contestant writes their code,
on the pages that carry it: the contest's scan mask) painted over, and a PNG with nothing but
pixels, under a random name in SCANS_DIR."""

import secrets
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from PIL import Image, ImageDraw

# Light grey rather than white, so that a reader sees that something was covered.
MASK_GREY = 224


def scans_dir() -> Path:
    return Path(settings.SCANS_DIR)


def masked(image: Image.Image, *, percent: Decimal) -> Image.Image:
    """The page with its top `percent` of the height painted over (none at 0)."""
    band = round(image.height * percent / 100)
    if band:
        ImageDraw.Draw(image).rectangle((0, 0, image.width, band - 1), fill=MASK_GREY)
    return image


# Letters only: a contestant's code always holds a digit (codes.code_problem), so no stored
# file's name can contain one, not even by chance, as a hexadecimal name could ("…c101….png").
_NAME_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_NAME_LENGTH = 26  # about 122 bits


def random_name() -> str:
    return "".join(secrets.choice(_NAME_LETTERS) for _ in range(_NAME_LENGTH)) + ".png"


def save_png(image: Image.Image, path: Path) -> None:
    """Only the pixels: a fresh image carries no info (dpi, text, ICC profile) of the scan's."""
    bare = Image.frombytes("L", image.size, image.convert("L").tobytes())
    bare.save(path, format="PNG")
