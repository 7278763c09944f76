"""The table of bad inputs run by tests/test_bad_inputs.py: every CLI, template variable,
data file and results file. Each case names what the single error line must contain: the
file / flag / field at fault and (a phrase of) what is allowed — written here from the
documented rules, not copied from the code's messages.

Placeholders in argv: ``{work}`` a valid work dir (two sampled runs), ``{model_a}`` /
``{model_b}`` its model abbrs, ``{file}`` a plain file, ``{full}`` a non-empty folder of
the user's, ``{mine}`` a folder holding the user's own ``.gpassk-oc-written.json`` and
``{marked}`` one holding the user's own ``.gpassk-oc-demo``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # 'cli' | 'template' | 'results' | 'data'
    expect: tuple[str, ...]  # substrings of the one error line
    argv: tuple[str, ...] = ()
    template: str = ""  # kind 'template': the template's text
    content: bytes = b""  # kind 'results' / 'data': the file's bytes
    extra: dict[str, Any] = field(default_factory=dict)


def cli(id: str, argv: str, *expect: str) -> Case:
    return Case(id, "cli", tuple(expect), tuple(argv.split()))


def cli_args(id: str, argv: tuple[str, ...], *expect: str) -> Case:
    """An argv that cannot be written split on spaces (an empty or spaced argument)."""
    return Case(id, "cli", tuple(expect), argv)


# --------------------------------------------------------------------------- CLIs
CLI_CASES = [
    cli("top-unknown-command", "nosuch", "invalid choice", "serve-demo"),
    cli("top-unknown-flag", "--nosuch", "unrecognized arguments", "--nosuch"),
    # dump / dump_opencompass_configs.py
    cli("dump-no-template", "dump", "-tc", "required"),
    cli("dump-missing-template", "dump -tc nosuch.py", "nosuch.py", "not found", "shipped"),
    cli("dump-template-is-dir", "dump -tc {full}", "not found"),
    cli("dump-unknown-flag", "dump -tc demo.py --bogus", "--bogus"),
    cli("dump-output-is-file", "dump -tc demo.py --output-dir {file}", "{file}", "not a folder"),
    cli("dump-script-missing-template", "SCRIPT -tc nosuch.py", "nosuch.py", "not found"),
    cli("dump-script-no-args", "SCRIPT", "-tc", "required"),
    cli("dump-script-bad-flag", "SCRIPT -tc demo.py --gird", "--gird"),
    # report
    cli("report-no-path", "report", "PATH", "required"),
    cli("report-missing-path", "report {tmp}/nowhere", "nowhere", "no such file"),
    cli("report-missing-beside-good", "report {work} {tmp}/nowhere", "nowhere", "no such file"),
    cli("report-empty-dir", "report {full}", "no usable runs", "results/"),
    cli("report-k-zero", "report {work} --k 0", "--k 0", ">= 1"),
    cli("report-k-negative", "report {work} --k -3", "--k -3", ">= 1"),
    cli("report-k-too-big", "report {work} --k 64", "--k", "64"),
    cli("report-k-text", "report {work} --k sixteen", "--k", "sixteen"),
    cli("report-level-150", "report {work} --level 150", "--level 150", "(0, 1)"),
    cli("report-level-zero", "report {work} --level 0", "--level 0", "(1, 100)"),
    cli("report-level-100", "report {work} --level 100", "--level 100", "(0, 1)"),
    cli("report-level-text", "report {work} --level high", "--level", "high"),
    cli("report-resamples-neg", "report {work} --resamples -1", "--resamples -1", "100,000"),
    cli(
        "report-resamples-huge",
        "report {work} --resamples 10000000000000",
        "--resamples 10000000000000",
        "100,000",
        "memory",
    ),
    cli("report-seed-neg", "report {work} --seed -1", "--seed -1", "non-negative"),
    cli(
        "report-verdict-error-unknown-source",
        "report {work} --verdict-error fp=0.1,fn=0.1,by=rules",
        "by='rules'",
        "rule_undecided",
    ),
    cli("report-workers-zero", "report {work} --workers 0", "--workers", "1 (no worker"),
    cli("report-workers-huge", "report {work} --workers 1000", "--workers", "64"),
    cli("report-workers-text", "report {work} --workers many", "--workers", "many"),
    cli("report-format", "report {work} --format xml", "--format", "markdown"),
    cli("report-plots-file", "report {work} --plots {file}", "--plots {file}", "folder"),
    cli("report-plots-under-file", "report {work} --plots {file}/x", "{file}", "not a folder"),
    cli("report-out-dir", "report {work} --out {full}", "--out {full}", "file name"),
    cli(
        "report-published-file-missing",
        "report {work} --published-file {tmp}/nope.json",
        "nope.json",
        "cannot be read",
    ),
    cli(
        "report-published-file-not-json", "report {work} --published-file {file}", "{file}", "JSON"
    ),
    cli("report-out-foreign", "report {work} --out {file}", "{file}", "--force"),
    cli(
        "report-verdict-error-sum", "report {work} --verdict-error fp=0.6,fn=0.4", "fp + fn", ">= 1"
    ),
    cli(
        "report-verdict-error-range",
        "report {work} --verdict-error fp=0,fn=1.5",
        "fn=1.5",
        "[0, 1)",
    ),
    cli(
        "report-verdict-error-form",
        "report {work} --verdict-error fp=0.1",
        "--verdict-error",
        "fn=",
    ),
    cli(
        "report-audit-missing",
        "report {work} --audit {tmp}/nowhere.csv",
        "nowhere.csv",
        "cannot be read",
    ),
    cli("report-audit-not-sheet", "report {work} --audit {file}", "{file}", "sample_id"),
    # audit
    cli("audit-size-zero", "audit {work} --size 0 -o {tmp}/a.csv", "--size 0", "at least 1"),
    cli("audit-no-out", "audit {work} --size 5", "-o", "required"),
    cli("audit-out-foreign", "audit {work} --size 5 -o {file}", "{file}", "--force"),
    cli("audit-empty-dir", "audit {full} --size 5 -o {tmp}/a.csv", "no judged verdicts"),
    # compare
    cli("compare-one-path", "compare {work}", "B", "required"),
    cli(
        "compare-model-nosuch",
        "compare {work} {work} --model-a nosuch --model-b {model_b}",
        "--model-a 'nosuch'",
        "candidates",
        "{model_a}",
    ),
    cli("compare-ambiguous", "compare {work} {work}", "2 runs", "candidates", "{model_b}"),
    cli(
        "compare-dataset-nosuch",
        "compare {work} {work} --dataset nosuch --model-a {model_a}",
        "--dataset 'nosuch'",
        "candidates",
    ),
    cli(
        "compare-metric-unknown",
        "compare {work} {work} --model-a {model_a} --model-b {model_b} --metrics bogus",
        "--metrics",
        "bogus",
    ),
    cli(
        "compare-metric-k-too-big",
        "compare {work} {work} --model-a {model_a} --model-b {model_b} --metrics pass@1000",
        "--metrics pass@1000",
        "exceeds",
    ),
    cli("compare-missing-a", "compare {tmp}/nowhere {work}", "A", "no usable run"),
    cli(
        "compare-resamples-huge",
        "compare {work} {work} --model-a {model_a} --model-b {model_b} --resamples 999999999",
        "--resamples 999999999",
        "100,000",
    ),
    cli(
        "compare-level-bad",
        "compare {work} {work} --model-a {model_a} --model-b {model_b} --level 100",
        "--level 100",
    ),
    cli("compare-format-html", "compare {work} {work} --format html", "--format", "json"),
    cli(
        "compare-out-foreign",
        "compare {work} {work} --model-a {model_a} --model-b {model_b} --out {file}",
        "{file}",
        "not written by gpassk-oc",
    ),
    # demo
    cli("demo-port-70000", "demo --quick --port 70000", "--port", "70000", "1-65535"),
    cli("demo-port-negative", "demo --quick --port -1", "--port", "-1", "1-65535"),
    cli("demo-port-text", "demo --quick --port http", "--port", "not an integer"),
    cli("demo-seed-negative", "demo --quick --seed -1", "--seed", "0..4294967295"),
    cli("demo-seed-huge", "demo --quick --seed 99999999999", "--seed", "0..4294967295"),
    cli("demo-output-file", "demo --quick --output {file}", "--output {file}", "folder"),
    cli("demo-output-foreign", "demo --quick --output {full}", "--output {full}", "not empty"),
    cli("demo-unknown-flag", "demo --fast", "--fast"),
    # serve-demo
    cli("serve-port-70000", "serve-demo --port 70000", "--port", "1-65535"),
    cli("serve-port-negative", "serve-demo --port -1", "--port", "1-65535"),
    cli("serve-seed-text", "serve-demo --seed x", "--seed", "not an integer"),
    cli("serve-pad-negative", "serve-demo --pad-replies -5", "--pad-replies", "0 to 1,000,000"),
    cli("serve-data-under-file", "serve-demo --port 0 --data-dir {file}/d", "--data-dir"),
]

# issue 25: empty paths, paths OpenCompass cannot run in, --out suffixes, files of the
# package's own names that the user wrote
EMPTY = "empty path"
EDGE_CLI_CASES = [
    cli_args("dump-template-empty", ("dump", "-tc", ""), "-tc", EMPTY),
    cli_args("dump-output-empty", ("dump", "-tc", "demo.py", "-o", ""), "--output-dir", EMPTY),
    cli_args("dump-script-output-empty", ("SCRIPT", "-tc", "demo.py", "-o", " "), EMPTY),
    cli_args("report-path-empty", ("report", ""), "PATH", EMPTY),
    cli_args("report-out-empty", ("report", "{work}", "--out", ""), "--out", EMPTY),
    cli_args("report-plots-empty", ("report", "{work}", "--plots", ""), "--plots", EMPTY),
    cli_args("compare-a-empty", ("compare", "", "{work}"), "A", EMPTY),
    cli_args("compare-b-empty", ("compare", "{work}", ""), "B", EMPTY),
    cli_args("compare-out-empty", ("compare", "{work}", "{work}", "--out", ""), "--out", EMPTY),
    cli_args("plan-pilot-empty", ("plan", ""), "PILOT", EMPTY),
    cli_args("plan-pilot-b-empty", ("plan", "{work}", "--pilot-b", ""), "--pilot-b", EMPTY),
    cli_args("demo-output-empty", ("demo", "--quick", "--output", ""), "--output", EMPTY),
    cli_args("serve-data-empty", ("serve-demo", "--data-dir", ""), "--data-dir", EMPTY),
    cli_args(
        "demo-output-space",
        ("demo", "--quick", "--output", "{tmp}/demo out"),
        "--output {tmp}/demo out",
        "a space",
        "OpenCompass",
    ),
    cli_args("demo-output-quote", ("demo", "--output", "{tmp}/it's"), "--output", '"\'"'),
    cli(
        "report-out-json-format-csv",
        "report {work} --format csv --out {tmp}/r.json",
        ".json",
        "csv",
    ),
    cli("report-out-csv-format-md", "report {work} --format markdown --out {tmp}/r.csv", "--out"),
    cli("compare-out-csv", "compare {work} {work} --out {tmp}/c.csv", "--out", "csv", "json"),
    cli(
        "compare-out-md-format-json", "compare {work} {work} --format json --out {tmp}/c.md", ".md"
    ),
    cli(
        "report-out-manifest-name",
        "report {work} --out {tmp}/.gpassk-oc-written.json",
        ".gpassk-oc-written.json",
        "another name",
    ),
    cli(
        "report-user-manifest",
        "report {work} --out {mine}/r.md",
        "{mine}/.gpassk-oc-written.json",
        "not written by gpassk-oc",
    ),
    cli(
        "report-plots-user-manifest",
        "report {work} --plots {mine}",
        "{mine}/.gpassk-oc-written.json",
        "not written by gpassk-oc",
    ),
    cli("demo-user-marker", "demo --quick --output {marked}", "--output {marked}", "not empty"),
]

# --------------------------------------------------------------------------- templates
BASE = {
    "llm_infos": "[('org/model-a', 1, 8)]",
    "temperatures": "[0.3]",
    "top_ps": "[0.95]",
    "ks": "[[4, 8]]",
    "replications": "[1]",
    "data_path": "'/data/livemathbench'",
}


def tpl(id: str, expect: tuple[str, ...], **changes: str | None) -> Case:
    """BASE with *changes* (None deletes a variable), as the text of a template file."""
    values = {**BASE, **changes}
    text = "".join(f"{k} = {v}\n" for k, v in values.items() if v is not None)
    return Case(id, "template", ("tpl.py",) + expect, template=text)


TEMPLATE_CASES = [
    tpl(
        "t-unknown-variable",
        ("temprature", "unknown variable", "did you mean 'temperature'"),
        temprature="[1]",
    ),
    tpl("t-no-temperatures", ("temperatures", "missing"), temperatures=None),
    tpl("t-temperatures-scalar", ("temperatures", "list"), temperatures="0.3"),
    tpl("t-temperatures-empty", ("temperatures", "empty"), temperatures="[]"),
    tpl("t-temperature-3", ("temperatures", "[0, 2]"), temperatures="[3.0]"),
    tpl("t-temperature-neg", ("temperatures", "[0, 2]"), temperatures="[-0.1]"),
    tpl("t-temperature-nan", ("temperatures", "nan"), temperatures="[float('nan')]"),
    tpl("t-temperature-dup", ("temperatures", "twice"), temperatures="[0.3, 0.3]"),
    tpl("t-temperature-text", ("temperatures", "'hot'"), temperatures="['hot']"),
    tpl("t-both-aliases", ("temperature", "not both"), temperature="0.5"),
    tpl("t-top-p-zero", ("top_ps", "(0, 1]"), top_ps="[0]"),
    tpl("t-top-p-big", ("top_ps", "(0, 1]"), top_ps="[1.5]"),
    tpl("t-ks-flat", ("ks", "did you mean [[4, 8]]"), ks="[4, 8]"),
    tpl("t-ks-decreasing", ("ks", "increasing"), ks="[[8, 4]]"),
    tpl("t-ks-zero", ("ks", "0"), ks="[[0, 4]]"),
    tpl("t-ks-empty", ("ks", "empty"), ks="[]"),
    tpl("t-ks-float", ("ks", "4.5"), ks="[[4.5]]"),
    tpl("t-thresholds-above-1", ("thresholds", "[0, 1]"), thresholds="[0.5, 1.5]"),
    tpl("t-replications-zero", ("replication", ">= 1"), replications="[0]"),
    tpl("t-replications-huge", ("replications", "10,000", "cap"), replications="[10**12]"),
    tpl("t-replications-float", ("replication", "1.5"), replications="[1.5]"),
    tpl("t-n-not-multiple", ("n", "multiple of max(k) = 8"), replications=None, n="12"),
    tpl("t-n-below-k", ("n", "max(k) = 8 exceeds n = 4"), replications=None, n="4"),
    tpl("t-n-huge", ("n", "10,000", "cap"), replications=None, n="10**6"),
    tpl("t-n-and-replications", ("n", "not both"), n="16"),
    tpl("t-no-replications", ("replications", "missing"), replications=None),
    tpl("t-top-k", ("top_k", ">= -1"), top_k="-2"),
    tpl("t-repetition-penalty", ("repetition_penalty", "0"), repetition_penalty="0"),
    tpl("t-random-seed-text", ("random_seed", "integer"), random_seed="'x'"),
    tpl("t-send-seed-text", ("send_random_seed", "'yes'"), send_random_seed="'yes'"),
    tpl("t-max-out-len", ("max_out_len", ">= 1"), max_out_len="0"),
    tpl("t-max-seq-len", ("max_seq_len", "max_out_len"), max_seq_len="100"),
    tpl("t-prefix-caching", ("enable_prefix_caching", "1"), enable_prefix_caching="1"),
    tpl("t-data-path-number", ("data_path", "5"), data_path="5"),
    tpl("t-version", ("version", "2099", "202412"), version="'2099'"),
    tpl("t-split-unknown", ("dataset_splits", "XYZ", "AMC"), dataset_splits="['XYZ']"),
    tpl("t-language-unknown", ("dataset_languages", "fr", "en"), dataset_languages="['fr']"),
    tpl("t-splits-empty", ("dataset_splits", "empty"), dataset_splits="[]"),
    tpl("t-cot-text", ("cot", "'no'"), cot="'no'"),
    tpl("t-eval-urls-ftp", ("eval_urls", "http(s)"), eval_urls="['ftp://x']"),
    tpl("t-eval-urls-no-model", ("eval_urls", "eval_model_name"), eval_urls="['http://j/v1']"),
    tpl("t-eval-prompt", ("eval_prompt", "mine", "opencompass"), eval_prompt="'mine'"),
    tpl("t-workers-zero", ("max_num_workers", ">= 1"), max_num_workers="0"),
    tpl("t-llm-infos-text", ("llm_infos", "list"), llm_infos="'org/model'"),
    tpl("t-llm-infos-empty", ("llm_infos", "empty"), llm_infos="[]"),
    tpl("t-llm-tp-zero", ("llm_infos[0]", ">= 1"), llm_infos="[('org/m', 0, 8)]"),
    tpl("t-llm-short", ("llm_infos[0]", "path, tensor parallel"), llm_infos="[('org/m', 1)]"),
    tpl("t-llm-unknown-key", ("llm_infos[0]", "tpp", "known"), llm_infos="[dict(path='m', tpp=1)]"),
    tpl("t-llm-no-path", ("llm_infos[0]", "path"), llm_infos="[dict(tp=1)]"),
    tpl("t-llm-abbr-slash", ("llm_infos[0]", "'/'"), llm_infos="[('org/m', 1, 8, 'a/b')]"),
    tpl(
        "t-llm-duplicate",
        ("llm_infos[1]", "also used by llm_infos[0]"),
        llm_infos="[('a/m', 1, 8), ('b/m', 1, 8)]",
    ),
    tpl(
        "t-llm-same-file-ignoring-case",
        ("llm_infos[1] (line 1)", "also used by llm_infos[0] (a/Qwen, line 1)"),
        llm_infos="[('a/Qwen', 1, 8), ('b/qwen', 1, 8)]",
    ),
    tpl(
        "t-llm-local-dir-without-config",
        ("llm_infos[0] (line 1)", "/usr", "without config.json"),
        llm_infos="[('/usr', 1, 8)]",
    ),
    tpl(
        "t-llm-own-seq-len",
        ("llm_infos[0] (line 1)", "max_seq_len 100", "max_out_len = 8192"),
        llm_infos="[dict(path='org/m', max_seq_len=100)]",
    ),
    tpl(
        "t-llm-reasoning-text",
        ("llm_infos[0].reasoning", "'yes'"),
        llm_infos="[dict(path='org/m', reasoning='yes')]",
    ),
    tpl("t-no-models", ("no models", "llm_infos"), llm_infos=None),
    tpl(
        "t-api-no-base",
        ("api_models[0]", "openai_api_base"),
        llm_infos=None,
        api_models="[dict(path='m')]",
    ),
    tpl(
        "t-api-base-not-url",
        ("api_models[0].openai_api_base", "http(s)"),
        llm_infos=None,
        api_models="[dict(path='m', openai_api_base='localhost:8000')]",
    ),
    tpl(
        "t-api-secret",
        ("api_models[0]", "'key'", "OPENAI_API_KEY"),
        llm_infos=None,
        api_models="[dict(path='m', openai_api_base='http://h/v1', key='sk-x')]",
    ),
    tpl(
        "t-api-unknown-key",
        ("api_models[0]", "unknown key", "bach_size"),
        llm_infos=None,
        api_models="[dict(path='m', openai_api_base='http://h/v1', bach_size=2)]",
    ),
    tpl(
        "t-api-batch-zero",
        ("api_models[0].batch_size", ">= 1"),
        llm_infos=None,
        api_models="[dict(path='m', openai_api_base='http://h/v1', batch_size=0)]",
    ),
    tpl("t-api-not-dict", ("api_models[0]", "dict"), llm_infos=None, api_models="['m']"),
    # issue 25: every numeric variable has an upper bound, named when exceeded
    tpl("t-max-out-len-huge", ("max_out_len", "1,000,000,000", "1,048,576"), max_out_len="10**9"),
    tpl("t-max-seq-len-huge", ("max_seq_len", "16,777,216"), max_seq_len="10**9"),
    tpl("t-top-k-huge", ("top_k", "1,000,000"), top_k="10**7"),
    tpl("t-rep-penalty-huge", ("repetition_penalty", "(0, 10]"), repetition_penalty="1000"),
    tpl("t-random-seed-huge", ("random_seed", "4,294,967,295"), random_seed="2**40"),
    tpl("t-random-seed-negative", ("random_seed", ">= 0"), random_seed="-1"),
    tpl("t-workers-huge", ("max_num_workers", "1,024"), max_num_workers="10**6"),
    tpl("t-llm-tp-huge", ("llm_infos[0]", "tensor parallel", "64"), llm_infos="[('o/m', 1000, 8)]"),
    tpl(
        "t-llm-batch-huge", ("llm_infos[0]", "batch size", "4,096"), llm_infos="[('o/m', 1, 10**6)]"
    ),
    tpl(
        "t-api-timeout-huge",
        ("api_models[0].timeout", "86,400"),
        llm_infos=None,
        api_models="[dict(path='m', openai_api_base='http://h/v1', timeout=10**9)]",
    ),
    tpl(
        "t-api-qps-huge",
        ("api_models[0].query_per_second", "10,000"),
        llm_infos=None,
        api_models="[dict(path='m', openai_api_base='http://h/v1', query_per_second=10**6)]",
    ),
    tpl(
        "t-api-retry-huge",
        ("api_models[0].retry", "100"),
        llm_infos=None,
        api_models="[dict(path='m', openai_api_base='http://h/v1', retry=10**4)]",
    ),
    tpl(
        "t-api-batch-huge",
        ("api_models[0].batch_size", "4,096"),
        llm_infos=None,
        api_models="[dict(path='m', openai_api_base='http://h/v1', batch_size=10**5)]",
    ),
    tpl("t-sys-exit", ("line 7", "sys.exit(3)"), _x="__import__('sys').exit(3)"),
    tpl("t-exit-bare", ("line 7", "sys.exit()"), _x="__import__('sys').exit()"),
    tpl("t-syntax-error", ("line 2", "never closed"), temperatures="[0.3"),
    tpl("t-runtime-error", ("line", "ZeroDivisionError"), temperatures="[1/0]"),
]


# results and data files: tests/bad_input_files.py
COMMAND_CASES = CLI_CASES + EDGE_CLI_CASES + TEMPLATE_CASES
