"""How the suite splits over pytest-xdist workers (``-n 2 --dist loadgroup``, the README's
test command); registered by conftest's ``pytest_plugins``.

xdist sends each test to whichever worker is free, and every worker builds its own
module- and session-scoped fixtures. So a test module is kept whole on one worker (an
``xdist_group`` named after it) when its fixtures are worth sharing: it is an e2e module
(one real ``opencompass`` run serves several tests) or it uses a module- or
session-scoped fixture of this suite. The other tests spread one by one. Modules that
need one fixed resource share a group and so run one after the other: the port 18000
that 0.1.0's demo config names (test_e2e_v0_1_0) and that the docs' serve-demo recipe
uses (test_docs_blocks).

``--dist loadgroup`` hands out the groups with the most tests first, then the single
tests, so the long e2e groups start at once and the short tests fill in around them.
Without xdist (one process) the marks change nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
#: modules that need one fixed resource: the resource is their group
SHARED_RESOURCE = {
    "test_e2e_v0_1_0.py": "port-18000",
    "test_docs_blocks.py": "port-18000",
}


def _shares_fixtures(item: pytest.Item) -> bool:
    if item.get_closest_marker("e2e") is not None:
        return True
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info else ():
        for fixturedef in defs:
            func = getattr(fixturedef, "func", None)
            where = getattr(getattr(func, "__code__", None), "co_filename", "")
            if fixturedef.scope != "function" and Path(where).parent == TESTS:
                return True
    return False


def xdist_group_of(item: pytest.Item) -> str | None:
    """The group that keeps *item* with the tests it shares a fixture or resource with."""
    name = item.path.name
    if name in SHARED_RESOURCE:
        return SHARED_RESOURCE[name]
    return name if _shares_fixtures(item) else None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = xdist_group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
