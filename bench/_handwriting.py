"""A page of handwriting-like strokes on grey paper, as a contestant's scanned answer sheet
looks to the import and the printouts: the benchmarks that need scanned pages draw them here.
Not a benchmark itself (`scripts/bench.sh` runs only the others)."""

# A4 at 150 dpi; `scale` draws the same page at another resolution (2/3: 100 dpi).
WIDTH, HEIGHT = 1240, 1754


def handwritten_page(
    rng, *, lines: int = 40, top: int = 140, spacing: int = 40, scale: float = 1.0
):
    """A grey A4 image (1240 × 1754 at `scale` 1) with `lines` lines of strokes drawn by `rng`:
    each call with its own `rng` state gives a page of its own."""
    from PIL import Image, ImageDraw

    def px(value: float) -> int:
        return round(value * scale)

    image = Image.new("L", (px(WIDTH), px(HEIGHT)), 246)
    draw = ImageDraw.Draw(image)
    for line in range(lines):
        y, x = top + line * spacing, 90
        while x < 1120:
            width = rng.randint(20, 90)
            draw.line(
                [(px(x), px(y + rng.randint(-6, 6))), (px(x + width), px(y + rng.randint(-6, 6)))],
                fill=rng.randint(20, 80),
                width=max(1, px(3)),
            )
            x += width + rng.randint(12, 30)
    return image
