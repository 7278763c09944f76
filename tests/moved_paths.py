"""The one check of an old module path (tests/test_api.py: 0.1.0 paths;
tests/test_api_moved_0_2.py: 0.2.0 paths): the old path (an alias of
gpassk_oc/_aliases.py, or a shim file still there) gives the very objects of the module
its warning names, warns once per name read at the caller's line, and knows no other
names."""

from __future__ import annotations

import importlib
import re

import pytest

#: names that moved on from metric_names to the metric registry (their shims name it)
MOVED_ON = dict.fromkeys(
    "KINDS MetricSpec headline_metrics parse_metric parse_result_key report_metrics".split(),
    "gpassk_oc.core.metrics.registry",
)


def public_names(module) -> list[str]:
    """The module's ``__all__``, else the public names it defines itself."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n for n, v in vars(module).items() if getattr(v, "__module__", None) == module.__name__
        ]
    return [n for n in names if not n.startswith("_")]


def assert_forwards(
    old: str, new: str, documented: list[str], since: str, removal: str | None = "1.0.0"
) -> list[str]:
    """Every documented and public name of *new* read through *old*; returns the names."""
    shim, target = importlib.import_module(old), importlib.import_module(new)
    names = sorted({*documented, *public_names(target)})
    assert names, new
    for name in names:
        with pytest.warns(DeprecationWarning, match=re.escape(f"{old} is deprecated")) as seen:
            value = getattr(shim, name)
        assert len(seen) == 1, [str(w.message) for w in seen]  # one warning per name read
        message = str(seen[0].message)
        home = message.rsplit(" from ", 1)[1]
        # a name may have moved on again (the metric spec and its parsers: the registry)
        assert home == new or MOVED_ON.get(name) == home, (name, home)
        assert value is getattr(importlib.import_module(home), name), name
        assert f"since gpassk_oc {since}" in message
        if removal is not None:  # the alias table names the release that removes the path
            assert f"removed in {removal}:" in message
        assert seen[0].filename == __file__  # the warning points at the caller's line
    with pytest.warns(DeprecationWarning, match=re.escape(new)):
        exec(f"from {old} import {next(n for n in names if n not in MOVED_ON)}", {})
    with pytest.raises(AttributeError):
        shim.no_such_name  # noqa: B018
    return names
