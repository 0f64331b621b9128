"""Which tests go to which pytest-xdist worker: a module that builds something once for its
tests (a fixture of module, class or package scope: the demo loaded, a contest crawled,
`make serve` started) goes to one worker whole, so that it is built once per run; every other
test goes wherever a worker is free.

xdist's own `--dist loadgroup` meant to do this from `xdist_group` marks, but it writes the group
into `item._nodeid`, which pytest 9.2 no longer reads (a node's id is `item._id`): the marks were
silently ignored, and a module's fixture was built again by each worker that took one of its
tests (`make serve` twice, 40 s each). The scheduler runs in the controller, which collects
nothing, so the rule is read from each module's source: a fixture decorator with such a scope.
A fixture imported from another module is not seen; define it in the module (or a conftest
beside it) to keep it once per run."""

import ast
import functools
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

SHARED_SCOPES = frozenset({"module", "class", "package"})


class ModulesThatBuildOnceStayTogether(LoadScopeScheduling):
    """LoadScopeScheduling with one test a unit of work, except that the tests of a module that
    builds once are one unit. Units go out largest first (`--loadscope-reorder`, the default),
    so the long modules start early and the single tests fill in behind them."""

    def __init__(self, config, log=None):
        super().__init__(config, log)
        self.rootpath = config.rootpath

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return path if builds_once(self.rootpath / path) else nodeid


@functools.cache
def builds_once(module: Path) -> bool:
    """Whether the module defines a fixture of module, class or package scope."""
    try:
        tree = ast.parse(module.read_text())
    except (OSError, SyntaxError, UnicodeDecodeError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _names_fixture(node.func):
            for keyword in node.keywords:
                if (
                    keyword.arg == "scope"
                    and isinstance(keyword.value, ast.Constant)
                    and keyword.value.value in SHARED_SCOPES
                ):
                    return True
    return False


def _names_fixture(function: ast.expr) -> bool:
    # `pytest.fixture(...)` or `fixture(...)` imported from pytest.
    return (isinstance(function, ast.Attribute) and function.attr == "fixture") or (
        isinstance(function, ast.Name) and function.id == "fixture"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` (scripts/test.sh) runs with the scheduler above."""
    if config.getvalue("dist") == "loadgroup":
        return ModulesThatBuildOnceStayTogether(config, log)
    return None
