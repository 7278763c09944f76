"""The generator's typed settings: one frozen field per template variable, in step with the
variable table (VARIABLES + REASONING_VARIABLES), which stays the source of names and docs."""

from __future__ import annotations

import dataclasses

import pytest

from gpassk_oc.configgen.reasoning_settings import REASONING_VARIABLES
from gpassk_oc.configgen.schema import VARIABLES, validate
from gpassk_oc.configgen.settings import Settings, template_fields

MODEL_LISTS = ("llm_infos", "api_models")  # parsed into Settings.models
#: documented as the template writes it; the check returns it as the field holds it
AS_CHECKED = {
    "ks": ("list[list[int]]", "list[tuple[int, ...]]"),
    "thresholds": ("list[float]", "tuple[Fraction, ...]"),  # exact τs (the run spec's)
    "reasoning": ("bool or 'auto'", "bool"),  # the field: bool | str ('auto')
}


def _table() -> dict[str, str]:
    """variable name -> documented type, from the two tables."""
    out = {v.name: v.type for v in VARIABLES if v.name not in MODEL_LISTS}
    out.update({name: spec[0] for name, spec in REASONING_VARIABLES.items()})
    return out


def test_fields_are_exactly_the_documented_variables_with_their_types() -> None:
    table = _table()
    assert sorted(template_fields()) == sorted(table)
    hints = {f.name: str(f.type) for f in dataclasses.fields(Settings)}
    for name, documented in table.items():
        # the field may add "| None" (an optional variable), never change the base type
        held = hints[name].split(" | ")[0]
        assert (documented, held) == AS_CHECKED.get(name, (documented, documented)), name


def test_validate_builds_a_frozen_object_with_filled_defaults() -> None:
    s = validate(
        {"llm_infos": [("org/m", 1, 8)], "temperatures": [0.3], "ks": [[4, 8]], "replication": 2}
    )
    assert isinstance(s, Settings)
    assert (s.temperatures, s.ks, s.replications, s.n) == ([0.3], [(4, 8)], [2], None)
    assert s.max_seq_len == 8192 + 4096 and s.top_ps == [1.0] and s.reasoning == "auto"
    assert [m.path for m in s.models] == ["org/m"]
    # one run spec per k-list x replication, n = 2 x 8, the default τs
    assert [(r.ks, r.n, r.replication) for r in s.specs] == [((4, 8), 16, 2)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.top_k = 1  # type: ignore[misc]


def test_build_refuses_values_that_are_not_the_fields() -> None:
    values = {name: None for name in template_fields()}
    Settings.build([], values, [], [])  # exactly the fields: fine
    with pytest.raises(ValueError, match="'extra'"):
        Settings.build([], {**values, "extra": 1}, [], [])
