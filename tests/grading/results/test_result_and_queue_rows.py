"""The results page's and the chair's queue's rows, each built by one tag
(`results_rows.results_row`, `queue_rows.queue_row`), are to the byte the rows their templates
wrote, for any paper: identities shown or not, humans ranked or not, provisional lines published,
missing or changed by appeals, problems left blank, not graded yet or without a label, scheme
versions met, and text that must be escaped. The templates as they were are kept here as the
reference."""

from decimal import Decimal
from types import SimpleNamespace

from django.template import engines
from hypothesis import given
from hypothesis import strategies as st

from grading.models import Paper
from grading.resolution.cells import Cell
from grading.resolution.chair_queue import QueueItem
from grading.resolution.contest_grading import PaperResult
from grading.results.selectors import ProvisionalLine
from grading.rules.domain import CellStatus, Outcome
from rubrics.models import Criterion
from tests.fuzz import fuzz_settings

D = Decimal

RESULTS_ROW_TEMPLATE = """{% load results_tags %}
    <tr id="result-{{ paper.public_code }}">
      <td class="code">{{ paper.public_code }}</td>{% if identities %}<td class="identity">{{ paper.identity }}</td><td class="kind">{{ paper.kind }}</td>{% endif %}
      {% for problem in results.problems %}<td class="num" data-problem="{{ problem.number }}">{% if problem.number in paper.blank_problems %}<span class="no-answer">no answer</span>{% elif problem.number in paper.problems_graded %}{{ paper.problem_points|at:problem.number|pts }}{% else %}<span title="No submitted mark yet" aria-hidden="true">–</span><span class="visually-hidden">no submitted mark yet</span>{% endif %} <small class="label">{{ paper.labels|at:problem.number }}</small>{% with met=paper.versions_met|at:problem.number %}{% if met %} <small class="versions-met">{{ met }}</small>{% endif %}{% endwith %}</td>{% endfor %}
      <td class="num total">{{ paper.total|pts }}</td>
      <td class="medal">{{ paper.medal }}</td>
      {% if results.human_count %}<td class="num">{{ paper.rank|default_if_none:"—" }}</td>
      <td class="num">{{ paper.percentile|pts }}</td>{% endif %}
      {% if provisional %}{% with line=provisional|at:paper.paper_id %}<td class="num provisional-total">{{ line.total|pts }}</td><td class="provisional-medal">{{ line.medal }}</td><td class="num provisional-rank">{{ line.rank|default_if_none:"—" }}</td>
      <td class="appeal-changes">{% for change in line.changes %}{{ change }}{% if not forloop.last %}<br>{% endif %}{% endfor %}</td>{% endwith %}{% endif %}
      <td>{% if paper.provisional %}<span class="flag provisional">provisional</span>{% endif %}{% if paper.straddle %} <span class="flag straddle">straddles a cut-off</span>{% endif %}</td>
      {# Each paper's cells come when its row is opened. #}
      <td><details hx-get="{% url 'results_paper' contest.slug paper.public_code %}" hx-trigger="toggle once" hx-target="find .criteria-slot"><summary>{{ paper.cells|length }}</summary><div class="criteria-slot"><a href="{% url 'results_paper' contest.slug paper.public_code %}">Each criterion of {{ paper.public_code }}</a></div></details></td>
    </tr>
"""  # noqa: E501

QUEUE_ROW_TEMPLATE = """{% load results_tags %}
    <tr data-label="{{ item.label }}" data-criterion="{{ item.cell.criterion.code }}">
      <td>{{ number }}</td>
      <td>{{ item.problem.code }}</td>
      <td><a class="label read-paper" href="{% url 'comparison' contest.slug item.problem.number %}?criterion={{ item.cell.criterion.code|urlencode }}&amp;read={{ item.label|urlencode }}#reader" title="Read the paper (its pages or its answers) beside the criterion's marks">{{ item.label }}</a>{% if item.paper.straddle %} <span class="flag straddle">straddles</span>{% endif %}</td>
      <td>{{ item.cell.criterion.code }} <small>/ {{ item.cell.criterion.points|pts }}</small> <span class="criterion-title">{{ item.cell.criterion.title }}</span>{% if not item.cell.is_open %} <small class="status">{{ item.cell.status.label }}</small>{% endif %}</td>
      <td>{% for name, points in item.marks %}{{ name }} {{ points|pts }}{% if not forloop.last %} · {% endif %}{% endfor %}</td>
      <td class="num">{{ item.cell.spread|pts }}</td>
      <td class="num">{{ item.paper.total|pts }}</td>
      <td>{% if item.nearest %}{{ item.nearest }} ({{ item.distance|pts }} away){% endif %}</td>
      <td class="num">{{ item.comments }}</td>
      <td><a class="open-cell" href="{% url 'discussion' contest.slug item.problem.number item.label item.cell.criterion.code %}{% if queue %}?{{ queue }}{% endif %}">{% if item.cell.is_open %}Discuss / decide{% else %}Open{% endif %}</a></td>
    </tr>
"""  # noqa: E501

PROBLEMS = [SimpleNamespace(number=n, code=f"P{n}") for n in (1, 2, 3)]
CONTEST = SimpleNamespace(slug="iol-2026")

# Text that escaping must handle, and points as the database gives them.
texts = st.sampled_from(["", "gold", "Ann & <Bo>", 'say "hi"', "it's", "Ülle", "a<br>b"])
labels = st.sampled_from(["K7Q", "A9X", "Z2Z"])
points = st.integers(min_value=0, max_value=2000).map(lambda cents: D(cents).scaleb(-2))
statuses = st.sampled_from(list(CellStatus))


def _cell(status) -> Cell:
    criterion = Criterion(code="T1")
    return Cell(paper_id=1, criterion=criterion, outcome=Outcome(status, D("1"), None, None, 0))


@st.composite
def paper_results(draw):
    numbers = [problem.number for problem in PROBLEMS]
    subset = st.sets(st.sampled_from(numbers))
    return PaperResult(
        paper_id=draw(st.integers(min_value=1, max_value=3)),
        public_code=draw(labels),
        labels=draw(st.dictionaries(st.sampled_from(numbers), labels)),
        identity=draw(st.none() | texts),
        metadata=None,
        cells={n: _cell(draw(statuses)) for n in range(draw(st.integers(0, 3)))},
        problem_points=draw(st.dictionaries(st.sampled_from(numbers), points)),
        total=draw(points),
        medal=draw(texts),
        low=D("0"),
        high=D("0"),
        straddle=draw(st.booleans()),
        problems_graded=draw(subset),
        blank_problems=draw(subset),
        rank=draw(st.none() | st.integers(min_value=1, max_value=300)),
        percentile=draw(st.none() | points),
        source=draw(st.sampled_from(list(Paper.Source))),
        versions_met=draw(st.dictionaries(st.sampled_from(numbers), texts)),
    )


provisional_lines = st.dictionaries(
    st.integers(min_value=1, max_value=3),
    st.builds(
        ProvisionalLine,
        total=points,
        rank=st.none() | st.integers(min_value=1, max_value=300),
        medal=texts,
        changes=st.lists(texts, max_size=3).map(tuple),
    ),
)


@fuzz_settings(200)
@given(paper_results(), st.booleans(), st.sampled_from([0, 7]), provisional_lines)
def test_a_results_row_is_the_row_its_template_wrote(paper, identities, humans, provisional):
    context = {
        "paper": paper,
        "results": SimpleNamespace(problems=PROBLEMS, human_count=humans),
        "identities": identities,
        "provisional": provisional,
        "contest": CONTEST,
    }
    engine = engines["django"]
    expected = engine.from_string(RESULTS_ROW_TEMPLATE).render(context)
    row = engine.from_string("{% load results_rows %}\n    {% results_row paper %}\n")
    assert row.render(context) == expected


@st.composite
def queue_items(draw):
    problem = draw(st.sampled_from(PROBLEMS))
    criterion = Criterion(code=draw(st.sampled_from(["T1", "A 2"])), points=draw(points))
    criterion.title = draw(texts)
    low, high = sorted([draw(points), draw(points)])
    cell = Cell(
        paper_id=1,
        criterion=criterion,
        outcome=Outcome(draw(statuses), D("1"), low, high, 2),
    )
    return QueueItem(
        cell=cell,
        paper=SimpleNamespace(straddle=draw(st.booleans()), total=draw(points)),
        problem=problem,
        label=draw(labels),
        marks=draw(st.lists(st.tuples(texts, points), max_size=3)),
        nearest=draw(texts),
        distance=draw(st.none() | points),
        comments=draw(st.integers(min_value=0, max_value=9)),
    )


@fuzz_settings(200)
@given(
    queue_items(),
    st.integers(min_value=1, max_value=700),
    st.sampled_from(["", "status=any", "problem=1&status=open&label=K<"]),
)
def test_a_queue_row_is_the_row_its_template_wrote(item, number, queue):
    context = {"item": item, "number": number, "queue": queue, "contest": CONTEST}
    engine = engines["django"]
    expected = engine.from_string(QUEUE_ROW_TEMPLATE).render(context)
    row = engine.from_string("{% load queue_rows %}\n    {% queue_row item number %}\n")
    assert row.render(context) == expected
