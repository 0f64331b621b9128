"""The paper's answer against the official ones on the discussion page: a match is the
competition's exact match; otherwise the characters that differ from the nearest accepted
answer are marked on both sides. No database."""

from grading.metrics.answer_diff import compare_item


def _marked(pieces) -> str:
    return "".join(f"[{piece.text}]" if piece.differs else piece.text for piece in pieces)


def test_an_answer_the_scorer_counts_as_exact_is_the_same_whatever_its_case_or_full_stop():
    for answer in ("Water.", " water ", '"water"', "WATER"):
        compared = compare_item(answer, ["the water", "water"])
        assert (compared.matches, compared.answer_pieces, compared.reference_pieces) == (
            True,
            (),
            (),
        ), answer


def test_the_differing_characters_are_marked_against_the_nearest_alternative():
    compared = compare_item("the dogs sleep", ["a cat sleeps", "the dog sleeps"])
    assert compared.matches is False
    assert (_marked(compared.answer_pieces), _marked(compared.reference_pieces)) == (
        "the dog[s] sleep",
        "the dog sleep[s]",
    )


def test_a_case_or_accent_slip_shows_although_the_nearest_is_found_regardless():
    compared = compare_item("kelo Mári", ["kelo mari"])
    assert compared.matches is False
    assert (_marked(compared.answer_pieces), _marked(compared.reference_pieces)) == (
        "kelo [Má]ri",
        "kelo [ma]ri",
    )


def test_an_empty_answer_or_an_item_without_reference_differs_with_nothing_marked():
    assert compare_item("", ["water"]) == compare_item("water", []) == compare_item("x", [None])
    assert compare_item("", ["water"]).matches is False
    assert compare_item("", ["water"]).answer_pieces == ()


def test_an_answer_unlike_every_alternative_is_marked_as_a_whole_not_letter_by_letter():
    compared = compare_item("my houses", ["the dog sleeps"])
    assert (_marked(compared.answer_pieces), _marked(compared.reference_pieces)) == (
        "[my houses]",
        "[the dog sleeps]",
    )
