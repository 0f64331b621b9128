"""A page of handwriting-like strokes on grey paper, as a contestant's scanned answer sheet
looks to the import and the printouts: the benchmarks that need scanned pages draw them here.
Not a benchmark itself (`scripts/bench.sh` runs only the others)."""


def handwritten_page(rng, *, lines: int = 40, top: int = 140, spacing: int = 40):
    """A 1240 × 1754 grey image (A4 at 150 dpi) with `lines` lines of strokes drawn by `rng`."""
    from PIL import Image, ImageDraw

    image = Image.new("L", (1240, 1754), 246)
    draw = ImageDraw.Draw(image)
    for line in range(lines):
        y, x = top + line * spacing, 90
        while x < 1120:
            width = rng.randint(20, 90)
            draw.line(
                [(x, y + rng.randint(-6, 6)), (x + width, y + rng.randint(-6, 6))],
                fill=rng.randint(20, 80),
                width=3,
            )
            x += width + rng.randint(12, 30)
    return image
