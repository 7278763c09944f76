"""The template schema (gpassk_oc.configgen.schema): every bad value fails at dump time
with ONE line naming the template file and the field, notes that are not errors, explicit
model abbrs, and the docs' variable table (docs/configgen.md) generated from the schema.

Every expected message below is written out by hand.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpassk_oc import configgen
from gpassk_oc.configgen import TemplateError, build, generate
from gpassk_oc.configgen.schema import markdown_table

ROOT = Path(__file__).resolve().parents[1]

BASE = """
llm_infos = [('deepseek-ai/deepseek-math-7b-rl', 8, 64)]
temperatures = [0.3]
top_ps = [0.8]
ks = [[4, 8, 16]]
replications = [3]
data_path = '/data/LiveMathBench'
"""
TAIL = "_t0-3_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3.py"


def write(tmp_path: Path, body: str, name: str = "bad.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def other_notes(plan) -> list[str]:
    """The notes but the limit notes: BASE's deepseek-math-7b-rl (4K context) at l8192
    always gets one (tests/test_configgen_limits.py checks those)."""
    return [note for note in plan.notes if note not in plan.limit_notes]


ERRORS = {
    "unknown variable": (
        "temperatuers = [0.3]\n",
        "unknown variable 'temperatuers'; did you mean 'temperatures'?",
    ),
    "empty list": ("temperatures = []\n", "temperatures: is empty"),
    "empty models": ("llm_infos = []\n", "llm_infos: is empty"),
    "same basename": (
        "llm_infos = [('/exp1/hf', 1, 8), ('/exp2/hf', 1, 8)]\n",
        # both entries sit on the line after BASE: the message names it for each
        f"llm_infos[1] (line {BASE.count(chr(10)) + 1}): name 'hf' is also used by "
        f"llm_infos[0] (/exp1/hf, line {BASE.count(chr(10)) + 1}); their configs "
        "would get the same names: give one an explicit abbr (a 4th element of an "
        "llm_infos tuple, or abbr= in a dict)",
    ),
    "duplicate temperature": (
        "temperatures = [0.3, 0.30]\n",
        "temperatures: lists temperature 0.3 twice",
    ),
    "k > n": (
        "n = 8\ndel replications\n",
        "n: max(k) = 16 exceeds n = 8 samples per question (n = replication x max(k))",
    ),
    "n not multiple": ("n = 40\ndel replications\n", "n: n = 40 is not a multiple of max(k) = 16"),
    "temperature 70": ("temperatures = [70]\n", "temperatures: temperature 70 is not in [0, 2]"),
    "negative temperature": (
        "temperatures = [-0.1]\n",
        "temperatures: temperature -0.1 is not in [0, 2]",
    ),
    "temperature alias": (
        "del temperatures\ntemperature = 2.5\n",
        "temperature: temperature 2.5 is not in [0, 2]",
    ),
    "top_p zero": ("top_ps = [0.0]\n", "top_ps: top_p 0.0 is not in (0, 1]"),
    "top_p above one": ("top_ps = [1.5]\n", "top_ps: top_p 1.5 is not in (0, 1]"),
    "flat k-list": (
        "ks = [4, 8, 16]\n",
        "ks: [4, 8, 16] is one k-list, but ks is a list of k-lists; did you mean [[4, 8, 16]]?",
    ),
    "k not increasing": ("ks = [[8, 4]]\n", "ks: k-list [8, 4] must be strictly increasing"),
    "k-list of strings": (
        "ks = [['4']]\n",
        "ks: need an integer >= 1 or a non-empty list of them, got ['4']",
    ),
    "unknown split": (
        "dataset_splits = ['AMC', 'amcc']\n",
        "dataset_splits: unknown split 'amcc' for LiveMathBench v202412 "
        "(known: CNMO, CCEE, AMC, WLPMC, hard); did you mean 'AMC'?",
    ),
    "split of another version": (
        "version = '202505'\n",
        "dataset_splits: unknown split 'CNMO' for LiveMathBench v202505 (known: all, hard)",
    ),
    "unknown language": (
        "dataset_languages = ['de']\n",
        "dataset_languages: unknown language 'de' for LiveMathBench v202412 (known: cn, en)",
    ),
    "unknown version": (
        "version = '202501'\n",
        "version: unknown LiveMathBench version '202501' (known: '202412', '202505')",
    ),
    "urls without judge": (
        "eval_urls = ['http://127.0.0.1:8000/v1']\n",
        "eval_urls: judge URLs set but eval_model_name is not",
    ),
    "unknown judge prompt": (
        "eval_prompt = 'paper'\n",
        "eval_prompt: must be one of 'auto', 'opencompass', 'gpassk', 'en', 'cn', got 'paper'",
    ),
    "bad url": (
        "eval_urls = ['127.0.0.1:8000']\neval_model_name = 'j'\n",
        "eval_urls: must be a list of http(s) URLs, got ['127.0.0.1:8000']",
    ),
    "bad tp": (
        "llm_infos = [('a/m', 0, 8)]\n",
        "llm_infos[0] tensor parallel: must be an integer >= 1, got 0",
    ),
    "llm_infos shape": (
        "llm_infos = [('a/m', 1)]\n",
        "llm_infos[0]: must be (path, tensor parallel, batch size[, abbr]) "
        "or dict(path=..., tp=..., batch_size=..., abbr=...), got ('a/m', 1)",
    ),
    "both n and replications": ("n = 48\n", "n: set either n or replications, not both"),
    "alias and plural": ("top_p = 0.8\n", "top_ps: set either top_p or top_ps, not both"),
    "unnameable value": (
        "temperatures = [1e-05]\n",
        "temperatures: temperature 1e-05 cannot be written in a config name",
    ),
    "at sign in model name": (
        "llm_infos = [('org/a@b', 1, 8)]\n",
        "llm_infos[0]: name 'a@b' contains '@'",
    ),
    "unknown api model key": (
        "api_models = [dict(path='m', openai_api_base='http://x/v1', tokenizer='t')]\n",
        "api_models[0]: unknown key 'tokenizer'; did you mean 'tokenizer_path'?",
    ),
    "api key literal": (
        "api_models = [dict(path='m', openai_api_base='http://x/v1', key='sk-abc')]\n",
        "api_models[0]: sets 'key': generated files never carry keys; "
        "export OPENAI_API_KEY instead",
    ),
    "missing grid axis": ("del ks\n", "missing variable 'ks' (or k)"),
    "max_seq_len": ("max_seq_len = 100\n", "max_seq_len: 100 is not above max_out_len = 8192"),
    "repetition penalty": ("repetition_penalty = 0\n", "repetition_penalty: 0 is not in (0, 10]"),
    "bool knob": ("cot = 'yes'\n", "cot: must be True or False, got 'yes'"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_each_validation_error_is_one_exact_line_with_file_and_field(tmp_path, capsys, case):
    extra, message = ERRORS[case]
    path = write(tmp_path, BASE + extra)
    with pytest.raises(TemplateError) as info:
        generate(path)
    assert str(info.value) == message
    out = tmp_path / "out"
    assert configgen.main(["-tc", str(path), "--output-dir", str(out)]) == 2
    assert capsys.readouterr().err == f"error: bad.py: {message}\n"
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.py"]


def test_validation_error_through_the_real_script(tmp_path):
    path = write(tmp_path, BASE + "temperatures = [70]\n")
    result = subprocess.run(
        [sys.executable, str(ROOT / "dump_opencompass_configs.py"), "-tc", str(path)],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr == "error: bad.py: temperatures: temperature 70 is not in [0, 2]\n"
    assert result.stdout == ""


def test_syntax_error_shows_the_line(tmp_path):
    path = write(tmp_path, "temperatures = [0.3]\nks = [[4, 8]\nreplications = [1]\n")
    with pytest.raises(TemplateError, match=r"^line 2: "):
        generate(path)


def test_runtime_error_shows_python_error_and_line(tmp_path):
    body = BASE + "x = undefined_name + 1\n"
    line = body.splitlines().index("x = undefined_name + 1") + 1
    with pytest.raises(TemplateError) as info:
        generate(write(tmp_path, body))
    assert str(info.value) == f"line {line}: NameError: name 'undefined_name' is not defined"


def test_unreadable_template(tmp_path):
    path = tmp_path / "bin.py"
    path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(TemplateError, match="^cannot read template"):
        generate(path)


# ------------------------------------------------------------------------- notes
#: a template that sets a seed of its own but does not send it says so once (issue 25)
SEED_NOTE = (
    "random_seed: 7 is in the config names (rs7) but sent to no model (send_random_seed = "
    "False: one fixed seed would make the n samples identical)"
)


def test_judge_name_without_urls_is_rule_based_with_a_note(tmp_path, capsys):
    path = write(
        tmp_path, BASE + "eval_urls = []\neval_model_name = 'Qwen/Qwen2.5-72B-Instruct'\n", "tpl.py"
    )
    plan = build(path)
    # BASE's deepseek-math-7b-rl (4K context) at l8192 also gets its limit note
    assert other_notes(plan) == [
        "eval_model_name: 'Qwen/Qwen2.5-72B-Instruct' set but eval_urls is "
        "empty: rule-based checking (as in GPassK); set eval_urls to use "
        "the judge",
    ]
    (config,) = plan.configs
    assert config.name == "deepseek-math-7b-rl" + TAIL  # no -judge- part
    evaluator = dict(config.data["datasets"][0]["eval_cfg"]["evaluator"])
    assert evaluator.pop("run_record")["model_abbr"] == config.data["models"][0]["abbr"]
    assert evaluator == {"type": "gpassk_oc.evaluators.GPassKEvaluator", "k": [4, 8, 16]}
    assert configgen.main(["-tc", str(path), "-o", str(tmp_path / "o")]) == 0
    assert capsys.readouterr().err.splitlines() == [f"note: tpl.py: {n}" for n in plan.notes]


def test_gated_hub_id_as_data_path_gets_a_note_on_the_local_copy(tmp_path):
    plan = build(write(tmp_path, BASE + "data_path = 'opencompass/LiveMathBench'\n"))
    assert other_notes(plan) == [
        "data_path: 'opencompass/LiveMathBench' is the gated hub dataset: runs need granted "
        "access and a Hugging Face token, and offline runs a local copy; lay it out as "
        "DIR/202412/{split}_{lang}.jsonl and set data_path = '/abs/DIR' (docs/data.md: \"A local "
        'LiveMathBench copy")',
    ]


def test_seed_note_only_for_a_seed_the_user_chose_and_does_not_send(tmp_path, capsys):
    """The default seed (42, absent or written out as the shipped templates do) is only
    the names' slot: no note. A seed of one's own that is not sent: one note, printed."""
    assert other_notes(build(write(tmp_path, BASE, "local.py"))) == []
    assert other_notes(build(write(tmp_path, BASE + "random_seed = 42\n", "shipped.py"))) == []
    own = write(tmp_path, BASE + "random_seed = 7\n", "own.py")
    assert other_notes(build(own)) == [SEED_NOTE]
    assert configgen.main(["-tc", str(own), "-o", str(tmp_path / "o")]) == 0
    assert f"note: own.py: {SEED_NOTE}" in capsys.readouterr().err.splitlines()
    sent = build(write(tmp_path, BASE + "random_seed = 7\nsend_random_seed = True\n", "s.py"))
    assert other_notes(sent) == []


def test_api_model_names_knobs_its_config_does_not_send(tmp_path):
    """A name says k50_rp1-0; an API config sends top_k / repetition_penalty only with
    extra_sampling=True (in extra_body), top_p only with send_top_p: the dump says which."""
    api = (
        "api_models = [dict(path='a', openai_api_base='http://h/v1'), "
        "dict(path='b', openai_api_base='http://h/v1', send_top_p=False), "
        "dict(path='c', openai_api_base='http://h/v1', extra_sampling=True)]\n"
        "send_random_seed = True\n"
    )
    plan = build(write(tmp_path, BASE.replace("llm_infos", "_unused") + api, "api.py"))
    assert [n.split(":")[0] for n in plan.notes] == ["api_models[0] (a)", "api_models[1] (b)"]
    assert "top_k = 50, repetition_penalty = 1.0" in plan.notes[0]
    assert "extra_sampling = True" in plan.notes[0] and "top_p" not in plan.notes[0]
    assert "top_p" in plan.notes[1] and "send_top_p = False" in plan.notes[1]
    sent = {c.data["models"][0]["path"]: c.data["models"][0] for c in plan.configs}
    assert sent["c"]["extra_body"] == {"top_k": 50, "repetition_penalty": 1.0}


# ------------------------------------------------------------------------- model abbrs


def test_llm_infos_fourth_element_and_dict_give_explicit_abbrs(tmp_path):
    path = write(
        tmp_path,
        BASE.replace(
            "llm_infos = [('deepseek-ai/deepseek-math-7b-rl', 8, 64)]",
            "llm_infos = [('/exp1/hf', 1, 8, 'exp1-hf'), "
            "dict(path='/exp2/hf', tp=2, batch_size=4, abbr='exp2-hf'), ('/exp3/hf', 1, 8)]",
        ),
    )
    configs = generate(path)
    assert [c.name for c in configs] == ["exp1-hf" + TAIL, "exp2-hf" + TAIL, "hf" + TAIL]
    models = [c.data["models"][0] for c in configs]
    assert [m["path"] for m in models] == ["/exp1/hf", "/exp2/hf", "/exp3/hf"]
    assert [(m["engine_config"]["tp"], m["batch_size"]) for m in models] == [(1, 8), (2, 4), (1, 8)]


def test_api_model_abbr_resolves_a_name_clash(tmp_path):
    path = write(
        tmp_path,
        BASE.replace(
            "llm_infos = [('deepseek-ai/deepseek-math-7b-rl', 8, 64)]",
            "llm_infos = [('org/m', 1, 8)]\n"
            "api_models = [dict(path='m', abbr='m-api', openai_api_base='http://h/v1')]",
        ),
    )
    assert [c.name for c in generate(path)] == ["m" + TAIL, "m-api" + TAIL]


# ------------------------------------------------------------------------- docs


def test_docs_variable_table_is_generated_from_the_schema():
    """docs/configgen.md's tables are the schema's own rendering (regenerate with
    `python -c "from gpassk_oc.configgen.schema import markdown_table; print(markdown_table())"`)."""
    page = (ROOT / "docs" / "configgen.md").read_text(encoding="utf-8")
    assert markdown_table() in page


def test_every_variable_is_documented_and_defaults_validate():
    from gpassk_oc.configgen.schema import REQUIRED, VARIABLES

    for var in VARIABLES:
        assert var.doc and var.type
        if var.default not in (None, REQUIRED):
            assert var.check(var.name, var.default) == var.default, var.name


def test_a_bad_flag_of_the_dump_script_is_one_line():
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "dump_opencompass_configs.py"),
            "--config_template_file",
            "nono1.py",
            "--gird",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("error: dump_opencompass_configs.py: unrecognized arguments: --gird\n")
