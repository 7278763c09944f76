"""The typed vocabulary keeps the exact strings results files have always carried."""

import json

import pytest

from gpassk_oc.core.vocabulary import (
    COUNT_KEYS,
    CheckMode,
    Decision,
    Found,
    Source,
    found_key,
    plain,
)

# spelled out independently: what schema 1-3 results files and configs contain
WRITTEN = {
    CheckMode: ["rules", "judge", "cascade"],
    Decision: ["correct", "wrong", "undecided", "no_answer", "judge"],
    Source: ["rule", "rule_undecided", "no_answer", "cache", "judge", "unjudged"],
    Found: ["boxed", "statement", "fallback", "none", "truncated"],
}


@pytest.mark.parametrize("enum", list(WRITTEN))
def test_values_are_the_written_strings(enum):
    assert list(enum.values()) == WRITTEN[enum]
    for member, text in zip(enum, WRITTEN[enum]):
        assert member == text and str(member) == text and f"{member}" == text
        assert f"{member:>10}" == f"{text:>10}" and repr(member) == repr(text)
        assert json.dumps({"k": member}) == json.dumps({"k": text})
        assert enum.parse(text, "x") is member
        assert {text: 1}[member] == 1 and member in {text} and text in {member}


def test_parse_fails_in_one_line_naming_the_field():
    with pytest.raises(ValueError) as err:
        CheckMode.parse("vibes", "judge.check")
    assert str(err.value) == "judge.check: 'vibes' is not one of 'rules', 'judge', 'cascade'"
    with pytest.raises(KeyError):
        CheckMode.parse("rules", "x", KeyError) and CheckMode.parse(3, "x", KeyError)
    assert CheckMode.recorded(None, "x") is None and CheckMode.recorded(1, "x") is None


def test_count_keys_name_every_found_kind_once():
    found = ["found_boxed", "found_statement", "found_fallback", "found_none", "found_truncated"]
    assert [found_key(f) for f in WRITTEN[Found]] == found
    assert len(set(COUNT_KEYS)) == len(COUNT_KEYS) and set(found) <= set(COUNT_KEYS)
    with pytest.raises(ValueError):
        found_key("guessed")


def test_plain_rows_are_exactly_str():
    rows = plain([[Source.RULE, "judge"], [Found.NONE]])
    assert rows == [["rule", "judge"], ["none"]]
    assert all(type(v) is str for row in rows for v in row) and plain(None) is None
