"""The bad results files and data files of the table run by tests/test_bad_inputs.py (the
CLI and template cases are in tests/bad_inputs.py, which says how a case reads)."""

from __future__ import annotations

import json
from typing import Any

from bad_inputs import Case


# --------------------------------------------------------------------------- results files
def _details(**change: Any) -> list[dict]:
    row = {
        "index": 0,
        "split": "AMC",
        "language": "en",
        "question": "q",
        "gold": "1",
        "extracted": ["1", "2"],
        "correct": [True, False],
        "c": 1,
        "n": 2,
    }
    return [{**row, **change}]


def _v2(details: Any = None, **run: Any) -> dict:
    info = {"n": 2, "num_questions": 1, "ks": [1, 2], **run}
    return {
        "schema": "gpassk_oc.results/2",
        "run": info,
        "details": _details() if details is None else details,
    }


def _oc_file(correct: list) -> dict:
    """OpenCompass 0.5.4's own LiveMathBench results file (labels as given)."""
    detail = {"example_abbr": "LiveMathBench_0", "pred": ["1", "2"], "ref": ["1", "1"]}
    return {
        "accuracy (2 runs average)": 50.0,
        "G-Pass@2_0.5": 50.0,
        "mG-Pass@2": 0.0,
        "details": [{**detail, "correct": correct}],
    }


def res(id: str, data: Any, *expect: str) -> Case:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return Case(id, "results", expect, content=raw)


RESULTS_CASES = [
    res("r-not-json", b"{not json", "unreadable results file"),
    res("r-not-utf8", b'{"details": "\xff\xfe"}', "unreadable results file", "utf-8"),
    res("r-list", [1, 2], "not a JSON object"),
    res("r-schema-foreign", {**_v2(), "schema": "other/1"}, "schema", "not a gpassk_oc"),
    res("r-schema-newer", {**_v2(), "schema": "gpassk_oc.results/99"}, "schema", "newer"),
    res("r-no-details", {"schema": "gpassk_oc.results/2", "run": {}}, "details", "dump-eval"),
    res("r-details-empty", _v2(details=[]), "details"),
    res("r-detail-not-object", _v2(details=[3]), "details[0]", "not an object"),
    res("r-correct-yes", _v2(details=_details(correct="yes")), "details[0].correct", "true/false"),
    res("r-correct-ints", _v2(details=_details(correct=[1, 0])), "details[0].correct", "true"),
    res("r-correct-missing", _v2(details=_details(correct=None, c=None)), "details[0].correct"),
    res("r-c-above-n", _v2(details=_details(correct=None, c=3, n=2)), "details[0].correct", "c <="),
    res("r-c-bool", _v2(details=_details(correct=None, c=True, n=2)), "details[0].correct"),
    res("r-extracted-short", _v2(details=_details(extracted=["1"])), "details[0].extracted", "2"),
    res("r-source-short", _v2(details=_details(source=["rule"])), "details[0].source", "2"),
    res("r-found-type", _v2(details=_details(found="boxed")), "details[0].found"),
    res("r-run-missing", {"schema": "gpassk_oc.results/2", "details": _details()}, "run"),
    res("r-run-n-negative", _v2(n=-5), "run.n", ">= 1", "-5"),
    res("r-run-n-text", _v2(n="48"), "run.n", "integer"),
    res("r-run-n-bool", _v2(n=True), "run.n", "integer"),
    res("r-run-questions-zero", _v2(num_questions=0), "run.num_questions", ">= 1"),
    res("r-run-ks-zero", _v2(ks=[0]), "run.ks", ">= 1"),
    res("r-run-thresholds-above-1", _v2(thresholds=[0.5, 1.5]), "run.thresholds", "[0, 1]"),
    res("r-accounting-list", {**_v2(), "accounting": []}, "accounting", "object"),
    res(
        "r-v1-n-negative",
        {"n": -5, "num_questions": 1, "ks": [2], "details": _details()},
        "n",
        ">= 1",
        "-5",
    ),
    # not this package's file (no marker): said what it is, pointed to rescore
    res("r-opencompass-own", _oc_file([1, 0]), "OpenCompass's own LiveMathBench", "rescore"),
    res("r-opencompass-bools", _oc_file([True, False]), "OpenCompass's own", "rescore"),
    res("r-unmarked", {"details": _details()}, "unmarked", "no 'schema' marker", "rescore"),
    res("r-v1-shape-without-n", {"ks": [2], "details": _details()}, "not a gpassk_oc", "rescore"),
    res(
        "r-borrowed-schema",
        {**_v2(writer="othertool 1.0")},
        "run.writer",
        "othertool",
        "rescore",
    ),
]


# --------------------------------------------------------------------------- data files
def data(id: str, raw: bytes, *expect: str, **extra: Any) -> Case:
    return Case(id, "data", expect, content=raw, extra=extra)


GOOD_ROW = b'{"question": "1+1?", "answer": "2"}\n'
DATA_CASES = [
    data("d-not-utf8", GOOD_ROW * 2 + b'{"question": "caf\xe9", "answer": "1"}\n', ":3", "UTF-8"),
    data("d-empty-file", b"", "AMC_en.jsonl", "no questions"),
    data("d-blank-lines-only", b"\n\n  \n", "AMC_en.jsonl", "no questions"),
    data("d-malformed-json", GOOD_ROW + b"{oops\n", ":2", "malformed JSON"),
    data("d-row-is-list", b"[1, 2]\n", ":1", "JSON object"),
    data("d-missing-question", b'{"answer": "2"}\n', ":1", "'question'"),
    data("d-missing-answer", b'{"question": "q"}\n', ":1", "'answer'"),
    data("d-answer-empty", b'{"question": "q", "answer": " "}\n', ":1", "'answer'", "empty"),
    data("d-answer-dict", b'{"question": "q", "answer": {}}\n', ":1", "string or number"),
    data("d-qtype-number", b'{"question": "q", "answer": "1", "question_type": 5}\n', "string"),
    data("d-no-version-dir", GOOD_ROW, "202412", "holds", version_dir="202505"),
    data("d-missing-split-file", GOOD_ROW, "AMC_en.jsonl", "holds", file_name="AMC_cn.jsonl"),
    data("d-root-missing", GOOD_ROW, "does not exist", root="nowhere"),
    data("d-unknown-version", GOOD_ROW, "version", "2099", version="2099"),
    data("d-unknown-split", GOOD_ROW, "split", "XYZ", splits=["XYZ"]),
    data("d-unknown-language", GOOD_ROW, "language", "fr", languages=["fr"]),
]


FILE_CASES = RESULTS_CASES + DATA_CASES
