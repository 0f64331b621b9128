"""Jurors' facts for the assignment (country, capacity, reading languages) as bulk lines
`username, country, capacity, languages`: every problem a sentence naming its line and column,
nothing written on any, one transaction on success; the same checks on the person page and in
the people CSV's optional columns (tests/grading/console/test_juror_facts_pages.py), and the
command `set_juror_facts`."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from grading.console.juror_facts import (
    Facts,
    facts_lines_text,
    facts_of,
    juror_facts_parse,
    juror_facts_set,
    parse_languages,
)
from grading.models import JurorLanguage, JurorProfile, language_name
from grading.rules import roles
from grading.rules.refusals import NotAllowed
from tests.factories import make_user

READS, WITH_HELP = JurorLanguage.Level.READS, JurorLanguage.Level.WITH_HELP


@pytest.fixture
def jurors(db):
    return [make_user(name, roles.JUROR) for name in ("amina", "lan", "dmitri")]


def _stored():
    return {
        profile.user.username: (profile.country, profile.capacity)
        for profile in JurorProfile.objects.select_related("user")
    }, sorted(JurorLanguage.objects.values_list("user__username", "language", "level"))


def test_lines_set_each_jurors_country_capacity_and_languages(jurors, organizer):
    text = (
        "username, country, capacity, languages\n"
        "amina, Nigeria, 12, Yoruba; English; French (with help)\n"
        "LAN, Vietnam, , Vietnamese;  english (With Help) ;\n"
        "dmitri, Estonia\n"
    )
    batch = juror_facts_set(text=text, actor=organizer)
    assert batch.line() == "Facts of 3 jurors set (3 of them change)."
    assert _stored() == (
        {"amina": ("Nigeria", 12), "lan": ("Vietnam", None), "dmitri": ("Estonia", None)},
        [
            ("amina", "English", READS),
            ("amina", "French", WITH_HELP),
            ("amina", "Yoruba", READS),
            # Issue 31, finding 17: typed "english", it was kept and shown in lower case.
            ("lan", "English", WITH_HELP),
            ("lan", "Vietnamese", READS),
        ],
    )


def test_a_language_typed_in_lower_case_is_kept_capitalised_and_any_other_spelling_as_typed():
    assert [
        language_name(typed) for typed in ("estonian", " north  sami ", "isiZulu", "TAGALOG")
    ] == [
        "Estonian",
        "North Sami",
        "isiZulu",
        "TAGALOG",
    ]


def test_a_line_replaces_the_jurors_facts_and_keeps_their_availability(jurors, organizer):
    juror_facts_set(text="amina, Nigeria, 12, Yoruba; English", actor=organizer)
    JurorProfile.objects.filter(user__username="amina").update(
        unavailable_since="2026-07-20T10:00Z"
    )
    batch = juror_facts_set(text="amina, Ghana, , Twi (with help)", actor=organizer)
    assert (batch.line(), _stored()) == (
        "Facts of 1 juror set (1 of them changes).",
        ({"amina": ("Ghana", None)}, [("amina", "Twi", WITH_HELP)]),
    )
    assert JurorProfile.objects.get(user__username="amina").unavailable_since is not None


def test_the_same_facts_again_change_nothing_whatever_the_languages_order(jurors, organizer):
    juror_facts_set(text="amina, Nigeria, 12, Yoruba; English", actor=organizer)
    assert (
        juror_facts_parse(text="amina, Nigeria, 12, English; Yoruba", actor=organizer).line()
        == "Facts of 1 juror set (0 of them change)."
    )


def test_every_problem_is_a_sentence_naming_its_line_and_column_and_nothing_is_written(
    jurors, organizer
):
    make_user("root", is_superuser=True)
    text = (
        "amina, Nigeria, twelve, Yoruba; English (fluent)\n"
        "nobody, Latvia, 3, Latvian\n"
        "\n"
        "lan, " + "x" * 61 + ", 0, Vietnamese; vietnamese\n"
        "AMINA, Ghana, 5000, (with help)\n"
        "dmitri\n"
        ", Estonia, 2, Estonian\n"
        "root, Finland, 2, Finnish\n"
        "dmitri, Estonia, 2, Estonian, Russian\n"
    )
    with pytest.raises(ValidationError) as refused:
        juror_facts_set(text=text, actor=organizer)
    assert refused.value.messages == [
        "Line 1, column 3 (capacity): “twelve” is not a number of papers; give a whole number "
        "such as 12, or leave it empty for no limit.",
        "Line 1, column 4 (languages): “English (fluent)” carries “(fluent)”; a language is "
        "read alone, or with help, written “English (with help)”.",
        "Line 2, column 1 (username): there is no account “nobody”; add the juror on the "
        "people page first, or correct the username.",
        f"Line 4, column 2 (country): “{'x' * 61}” is longer than 60 characters.",
        "Line 4, column 3 (capacity): a juror takes at least 1 paper of a problem; leave it "
        "empty for no limit, or take the juror out of the problem's grading group.",
        "Line 4, column 4 (languages): “vietnamese” is given twice (as “Vietnamese” before); "
        "give each language once, with its level.",
        "Line 5, column 1 (username): “AMINA” is also on line 1; give each juror one line.",
        "Line 5, column 3 (capacity): 5000 papers are more than any problem has; check the number.",
        "Line 5, column 4 (languages): “(with help)” names no language before “(with help)”.",
        "Line 6 has 1 column; each line needs 4: username, country, capacity, languages "
        "(separate the languages with semicolons).",
        "Line 7, column 1 (username): the username is missing.",
        "Line 8, column 1 (username): “root” is a superuser's account; only a superuser edits it.",
        "Line 9 has 5 columns; each line needs 4: username, country, capacity, languages "
        "(separate the languages with semicolons).",
    ]
    assert _stored() == ({}, [])


def test_no_line_at_all_says_what_a_line_holds(organizer):
    assert juror_facts_parse(text="username, country, capacity, languages\n# none\n").errors == [
        "There is no juror's facts line: give one line per juror, “username, country, "
        "capacity, languages”."
    ]


def test_only_an_organizer_sets_facts(jurors):
    with pytest.raises(NotAllowed):
        juror_facts_set(text="amina, Nigeria, 12, Yoruba", actor=jurors[1])
    assert _stored() == ({}, [])


def test_facts_read_back_as_the_lines_that_set_them(jurors, organizer):
    juror_facts_set(
        text='amina, "Korea, Republic of", 12, Korean; English (with help)\nlan, , , ',
        actor=organizer,
    )
    assert facts_of(jurors[0]) == Facts(
        "Korea, Republic of", 12, (("English", WITH_HELP), ("Korean", READS))
    )
    assert facts_lines_text(jurors[:2]) == (
        'amina, "Korea, Republic of", 12, English (with help); Korean\nlan, , , '
    )


def test_languages_are_parsed_in_the_order_typed():
    assert parse_languages("Finnish (with help); Estonian", where="x") == (
        (("Finnish", WITH_HELP), ("Estonian", READS)),
        [],
    )


def test_languages_separated_by_commas_are_said_to_need_semicolons():
    assert parse_languages("Estonian, Finnish", where="Languages") == (
        (),
        [
            "Languages: “Estonian, Finnish” is not a language's name; separate languages with "
            "semicolons, as in “Estonian; Finnish (with help)”."
        ],
    )


def test_a_language_too_long_is_refused():
    assert parse_languages("x" * 61, where="Languages")[1] == [
        f"Languages: “{'x' * 61}” is longer than 60 characters."
    ]


def test_the_command_sets_the_facts_and_says_how_many(jurors, tmp_path):
    path = tmp_path / "facts.csv"
    path.write_text("amina, Nigeria, 12, Yoruba; English\nlan, Vietnam, , Vietnamese\n")
    out = io.StringIO()
    call_command("set_juror_facts", "--file", str(path), "--dry-run", stdout=out)
    assert (out.getvalue(), _stored()) == (
        "Facts of 2 jurors would be set (2 of them change).\n",
        ({}, []),
    )
    out = io.StringIO()
    call_command("set_juror_facts", "--file", str(path), "-v", "2", stdout=out)
    assert out.getvalue().splitlines() == [
        "amina: Nigeria; 12; Yoruba; English",
        "lan: Vietnam; no limit; Vietnamese",
        "Facts of 2 jurors set (2 of them change).",
    ]
    assert _stored()[0] == {"amina": ("Nigeria", 12), "lan": ("Vietnam", None)}


def test_the_command_lists_every_problem_and_writes_nothing(jurors, tmp_path):
    path = tmp_path / "facts.csv"
    path.write_text("amina, Nigeria, 12, Yoruba\nnobody, Latvia, 3, Latvian\n")
    with pytest.raises(CommandError) as refused:
        call_command("set_juror_facts", "--file", str(path))
    assert str(refused.value) == (
        "Nothing was set; fix these first:\n"
        "  - Line 2, column 1 (username): there is no account “nobody”; add the juror on the "
        "people page first, or correct the username."
    )
    assert _stored() == ({}, [])
    with pytest.raises(CommandError, match="There is no file"):
        call_command("set_juror_facts", "--file", str(tmp_path / "missing.csv"))
