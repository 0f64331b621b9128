"""The answer reading equals the competition's scorer on the vectors taken from the scorer."""

import pytest

from grading.papers.answers import fit_to_items, split_answer_text

SCORER_VECTORS = [
    ("null", 2, ["null", ""]),
    ("1.\nkelo\nvamu", 2, ["kelo", "vamu"]),
    ("1. kelo\n 2. vamu\n  3) tiri", 3, ["kelo", "2. vamu", "3) tiri"]),
    ("1 . kelo\n2 . vamu", 2, ["1 . kelo", "2 . vamu"]),
    ("1.kelo\n2)vamu", 2, ["kelo", "vamu"]),
    ('["kelo", null, 3]', 3, ["kelo", "", "3"]),
    ('"kelo"', 1, ['"kelo"']),
    ('{"a": 1}', 1, ['{"a": 1}']),
    ("kelo\n\n\nvamu\ntiri", 2, ["kelo", "vamu"]),
    ("1.5 kelo", 1, ["5 kelo"]),
    ("a) kelo\nb) vamu", 2, ["a) kelo", "b) vamu"]),
    ("kelo\u2028vamu", 1, ["kelo\u2028vamu"]),
]


@pytest.mark.parametrize(("text", "items", "expected"), SCORER_VECTORS)
def test_answers_are_read_as_the_competition_scorer_reads_them(text, items, expected):
    assert fit_to_items(split_answer_text(text), items)[0] == expected
