"""The run spec: k list, exact τ list and n, parsed once and carried from a template
through the generated config and the evaluator to the results file and the report.

Oracles: τ thresholds by integer arithmetic (m = ceil(τ·k) as -(-p·k // q) for τ = p/q), and
at n = k every question's G-Pass@k_τ is 1 when c >= m, else 0 (all k samples are drawn).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from configgen_support import write
from evaluator_support import predictions_for, replicated, run

from gpassk_oc.configgen.pipeline import build
from gpassk_oc.configgen.schema import TemplateError
from gpassk_oc.core.metrics.metric_keys import ALL_TAUS, HEADLINE_TAUS
from gpassk_oc.core.runs.results_file import Results, read_results
from gpassk_oc.core.runs.run_spec import RunSpec, RunSpecError
from gpassk_oc.evaluators import GPassKEvaluator
from gpassk_oc.report.data.report_model import build_report

TEMPLATE = """
llm_infos = [('org/m', 1, 8)]
temperatures = [0.7]
ks = [[4, 16]]
replications = [1]
thresholds = [0.3, '1/3']
data_path = '/data/LiveMathBench'
"""
COUNTS = [16, 5, 4, 6, 0, 9, 5, 3, 16]  # correct of 16 per question (9 questions)


def need(tau: Fraction, k: int) -> int:
    """m = max(ceil(τ·k), 1), by integer arithmetic."""
    return max(-(-tau.numerator * k // tau.denominator), 1)


def test_parsed_once_exact_and_derived():
    spec = RunSpec.parse([4, 8, 16], [0.3, "1/3", 0.3], n=48)
    assert spec.ks == (4, 8, 16) and spec.n == 48 and spec.replication == 3
    assert spec.thresholds == (Fraction(3, 10), Fraction(1, 3))  # exact, repeats dropped
    assert (need(Fraction(3, 10), 16), need(Fraction(1, 3), 16)) == (5, 6)
    assert RunSpec.of_replication((4, 8), 3).n == 24  # n = r · max(k)
    assert RunSpec.parse([4, 8]).at_n(1).ks == (1,)  # one sample: greedy, k = 1
    assert RunSpec.parse([4], n=10).replication is None  # n not a multiple of max(k)
    # the file edge: floats where they read back exactly, the fraction text otherwise
    assert spec.to_json()["thresholds"] == [0.3, "1/3"]
    again = RunSpec.from_json(json.loads(json.dumps(spec.to_json())), "run.")
    assert again == spec


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: RunSpec.parse([4, 16], n=8), "n"),
        (lambda: RunSpec.parse([0]), "k"),
        (lambda: RunSpec.parse(True), "k"),
        (lambda: RunSpec.parse([8, 4], increasing=True), "k"),
        (lambda: RunSpec.parse([4], [1.5]), "thresholds"),
        (lambda: RunSpec.parse([4], []), "thresholds"),
        (lambda: RunSpec.parse([4], ["half"]), "thresholds"),
        (lambda: RunSpec.parse([4], n=0), "n"),
    ],
)
def test_bad_values_are_one_line_naming_the_field(call, field):
    with pytest.raises(RunSpecError) as info:
        call()
    assert info.value.field == field and str(info.value).startswith(f"{field}: ")
    assert "\n" not in str(info.value)


def test_default_taus_show_the_papers_columns_set_ones_show_themselves():
    assert RunSpec.parse([4]).headline_taus() == HEADLINE_TAUS
    assert RunSpec.parse([4], [1, "1/3"]).headline_taus() == (Fraction(1, 3), Fraction(1))


def test_template_thresholds_reach_results_file_and_report(livemath_dir, tmp_path):
    plan = build(write(tmp_path, TEMPLATE))
    (config,) = plan.configs
    (dataset,) = config.data["datasets"]
    kwargs = dict(dataset["eval_cfg"]["evaluator"])
    assert kwargs.pop("type") == "gpassk_oc.evaluators.GPassKEvaluator"
    assert (kwargs["k"], kwargs["thresholds"], dataset["n"]) == ([4, 16], [0.3, "1/3"], 16)
    assert "replication" not in kwargs["run_record"]  # the run spec derives it
    assert "thresholds=[0.3, '1/3']" in config.text

    test_set = replicated(livemath_dir, 16, dataset["k"])
    preds = predictions_for(test_set, COUNTS, 16)
    result = run(GPassKEvaluator(**kwargs), test_set, preds, dataset["k"], dataset["n"])
    for tau, key in ((Fraction(3, 10), "0.3"), (Fraction(1, 3), "0.3333333333333333")):
        m = need(tau, 16)
        expected = Fraction(sum(c >= m for c in COUNTS), len(COUNTS))
        assert result[f"G-Pass@16_{key}"] == pytest.approx(float(expected * 100), abs=1e-12)
    assert "G-Pass@16_0.5" not in result  # the default τs were not asked for
    assert result["run"]["thresholds"] == [0.3, "1/3"] and result["run"]["ks"] == [4, 16]
    assert not {"ks", "thresholds", "n", "replication"} & set(result["record"])

    path = tmp_path / "work" / "20260101_000000" / "results" / "m" / "ds.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(result), encoding="utf-8")
    spec = read_results(path).info.spec
    assert spec == RunSpec((4, 16), (Fraction(3, 10), Fraction(1, 3)), 16)
    assert spec.replication == 1

    report = build_report([tmp_path / "work"], n_boot=0)
    assert report.k == 4  # the largest recorded k below n
    assert report.taus == (Fraction(3, 10), Fraction(1, 3))  # what the run recorded
    report = build_report([tmp_path / "work"], 16, n_boot=0)
    assert report.headline_metrics() == [
        "G-Pass@16_0.3",
        "G-Pass@16_0.3333333333333333",
        "mG-Pass@16",
    ]
    (cell,) = [c for key, c in report.cells.items() if key[2] == "overall"]
    m = need(Fraction(1, 3), 16)
    expected = Fraction(sum(c >= m for c in COUNTS), len(COUNTS))
    assert cell.metrics["G-Pass@16_0.3333333333333333"].value == pytest.approx(float(expected))


def test_template_without_thresholds_writes_the_config_as_before(tmp_path):
    plan = build(write(tmp_path, TEMPLATE.replace("thresholds = [0.3, '1/3']\n", "")))
    (config,) = plan.configs
    assert "thresholds" not in config.data["datasets"][0]["eval_cfg"]["evaluator"]
    assert plan.settings.thresholds == ALL_TAUS


def test_template_bad_thresholds_name_the_variable(tmp_path):
    with pytest.raises(TemplateError) as info:
        build(write(tmp_path, TEMPLATE.replace("[0.3, '1/3']", "[0.3, 2]")))
    assert str(info.value).startswith("thresholds: ")


def test_schema_3_file_still_reads_its_spec_from_run():
    record = {"model_abbr": "m", "dataset_abbr": "d", "ks": [2], "n": 2, "replication": 1}
    data = {
        "schema": "gpassk_oc.results/3",
        "run": {"n": 2, "num_questions": 1, "ks": [2], "thresholds": [0.5, 1.0]},
        "details": [{"correct": [True, False]}],
        "record": {**record, "thresholds": [0.5, 1.0]},
    }
    res = Results.from_json(data)
    assert res.info.spec == RunSpec((2,), (Fraction(1, 2), Fraction(1)), 2)
    assert "ks" not in res.to_json()["record"]  # written upgraded: the spec once, in run


def test_a_0_2_0_run_record_with_replication_still_loads():
    """0.2.0's generator wrote ``replication`` into ``run_record``: accepted, not kept (the
    run spec derives it); the k list, τ list and n stay the evaluator's own."""
    record = {"model_abbr": "m", "temperature": 0.7, "replication": 2}
    evaluator = GPassKEvaluator(k=[4, 8], run_record=record)
    assert evaluator.run_record == {"model_abbr": "m", "temperature": 0.7}
    with pytest.raises(ValueError, match="run_record.ks: not a field the config sets"):
        GPassKEvaluator(k=[4, 8], run_record={**record, "ks": [4, 8]})
