"""Issue 36, names: every shipped template plus variants dumped into one folder gives
distinct, stable names; default names are today's (written here from the convention, not
computed by the code under test); a file of another grid point under a new name is
refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from configgen_support import ROOT, SHIPPED, TEMPLATES, dump_here

from gpassk_oc import configgen
from gpassk_oc.configgen.collisions import point_key, read_config_data

#: nono1.py line -> replacement, one variant each (the issue's list)
VARIANTS = {
    "hard.py": {"dataset_splits": "['hard']"},
    "amc_ccee.py": {"dataset_splits": "['AMC', 'CCEE']"},
    "en.py": {"dataset_languages": "['en']"},
    "nocot.py": {"cot": "False"},
    "hard_en_nocot.py": {
        "dataset_splits": "['hard']",
        "dataset_languages": "['en']",
        "cot": "False",
    },
    "two_klists.py": {"ks": "[[4, 8, 16], [4, 8]]"},
    "reps.py": {"replications": "[1, 3]"},
    "greedy.py": {"temperatures": "[0.0]"},
}

GENERAL = [
    "Llama-3.1-8B-Instruct",
    "Qwen2.5-7B-Instruct",
    "internlm3-8b-instruct",
    "Qwen2.5-32B-Instruct",
    "Llama-3.1-70B-Instruct",
    "Llama-3.3-70B-Instruct",
    "Qwen2.5-72B-Instruct",
    "Mistral-Large-Instruct-2411",
]
MATH = ["deepseek-math-7b-rl", "Qwen2.5-Math-7B-Instruct", "Qwen2.5-Math-72B-Instruct"]


def variant(text: str, changes: dict[str, str]) -> str:
    for name, value in changes.items():
        text, count = re.subn(rf"(?m)^{name} = .*$", f"{name} = {value}", text)
        assert count == 1, name
    return text


def nono1_names(dataset: str = "LiveMathBench-v202412", temps=("0.3", "0.5", "0.7", "1.0")):
    """nono1.py's names by the documented convention: '.' -> '-', general models at
    l8192, the 4K-context math models at l3072; temperature 0 is greedy (k1, r1)."""
    names = set()
    for model in GENERAL + MATH:
        length = 3072 if model in MATH else 8192
        head = f"{model}_t{{t}}_p0-8_k50_rp1-0_rs42_l{length}@{dataset}"
        names.add(head.format(t="0-0") + "-k1-r1.py")
        names |= {head.format(t=t.replace(".", "-")) + "-k4_8_16-r3.py" for t in temps}
    return names


def test_templates_and_variants_in_one_folder_distinct_stable_and_default_names(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    nono1 = (TEMPLATES / "nono1.py").read_text(encoding="utf-8")
    for name, changes in VARIANTS.items():
        (tmp_path / name).write_text(variant(nono1, changes), encoding="utf-8")
    out = tmp_path / "mix"
    listed: dict[str, list[str]] = {}
    for template in [*SHIPPED, *VARIANTS]:
        code, stdout, err = dump_here(["-tc", template, "-o", str(out)], capsys)
        assert code == 0, err
        listed[template] = [Path(line).name for line in stdout.splitlines()[:-1]]
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    for template in [*SHIPPED, *VARIANTS]:  # a second dump: same names, same bytes
        code, stdout, err = dump_here(["-tc", template, "-o", str(out)], capsys)
        assert code == 0 and [Path(x).name for x in stdout.splitlines()[:-1]] == listed[template]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first
    # one name per grid point and one grid point per name
    keys = {name: repr(point_key(read_config_data(out / name))) for name in first}
    assert len(set(keys.values())) == len(keys)
    # today's default names, and the variants' tags after the version
    assert set(listed["nono1.py"]) == nono1_names()
    assert set(listed["hard.py"]) == nono1_names("LiveMathBench-v202412-hard")
    assert set(listed["amc_ccee.py"]) == nono1_names("LiveMathBench-v202412-CCEE-AMC")
    assert set(listed["en.py"]) == nono1_names("LiveMathBench-v202412-en")
    assert set(listed["nocot.py"]) == nono1_names("LiveMathBench-v202412-nocot")
    assert set(listed["hard_en_nocot.py"]) == nono1_names("LiveMathBench-v202412-hard-en-nocot")
    assert set(listed["greedy.py"]) == {n for n in nono1_names() if "-k1-r1" in n}
    two = {n.replace("-k4_8_16-", "-k4_8-") for n in nono1_names() if "-r3" in n}
    assert set(listed["two_klists.py"]) == nono1_names() | two
    one = {n.replace("-r3.py", "-r1.py") for n in nono1_names() if "-r3" in n}
    assert set(listed["reps.py"]) == nono1_names() | one
    demo = {
        f"gpassk-demo-{m}_t{t}_p0-95_k50_rp1-0_rs42_l1024@LiveMathBench-v202412-CCEE-AMC-k4_8-r2.py"
        for m in ("steady", "shaky")
        for t in ("0-5", "1-0")
    }
    assert set(listed["demo.py"]) == demo
    for name in first:  # OpenCompass splits abbrs on '_': only the k list may hold one
        dataset = name[:-3].split("@")[1]
        assert "_" not in re.sub(r"-k\d+(_\d+)*-", "-k-", dataset), name


def test_another_grid_point_under_a_name_in_the_folder_is_refused(tmp_path, capsys):
    """Settings a name does not carry (here the τ list) still make another grid point:
    a dump over such a file is one error line naming both templates; nothing written."""
    body = (
        "llm_infos = [('org/m', 1, 8)]\ntemperatures = [0.5]\nks = [[4, 8]]\n"
        "replications = [1]\ndata_path = '/data/lmb'\n"
    )
    (tmp_path / "a.py").write_text(body, encoding="utf-8")
    (tmp_path / "b.py").write_text(body + "thresholds = [0.5, 1.0]\n", encoding="utf-8")
    out = tmp_path / "out"
    assert dump_here(["-tc", str(tmp_path / "a.py"), "-o", str(out)], capsys)[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, stdout, err = dump_here(["-tc", str(tmp_path / "b.py"), "-o", str(out)], capsys)
    lines = [line for line in err.splitlines() if not line.startswith(("note:", "b.py:"))]
    assert (code, stdout, len(lines)) == (2, "", 1), err
    name = "m_t0-5_p1-0_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8-r1.py"
    assert lines[0].startswith(f"error: {out / name}: holds another grid point"), lines
    assert "(of template a.py)" in lines[0] and "b.py llm_infos[0] (line 1)" in lines[0]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_subset_of_the_splits_and_all_splits_in_one_folder(tmp_path, capsys, monkeypatch):
    """A copy of nono1.py asking only AMC and CCEE is another benchmark: its names and the
    OpenCompass dataset abbrs inside (the results paths and cache keys) are not nono1.py's,
    so both dump into one folder and every file of both is there afterwards."""
    monkeypatch.chdir(tmp_path)
    nono1 = (TEMPLATES / "nono1.py").read_text(encoding="utf-8")
    (tmp_path / "sub.py").write_text(variant(nono1, {"dataset_splits": "['AMC', 'CCEE']"}))
    listed = {}
    for template in ("nono1.py", "sub.py"):
        code, stdout, err = dump_here(["-tc", template, "-o", "mix"], capsys)
        assert code == 0, err
        listed[template] = {Path(line).name for line in stdout.splitlines()[:-1]}
    assert listed["nono1.py"] == nono1_names()
    assert listed["sub.py"] == nono1_names("LiveMathBench-v202412-CCEE-AMC")
    assert {p.name for p in (tmp_path / "mix").iterdir()} == listed["nono1.py"] | listed["sub.py"]
    full = "Llama-3.1-8B-Instruct_t0-3_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3"
    full += ".py"
    sub = full.replace("-v202412-", "-v202412-CCEE-AMC-")
    abbrs = {
        name: read_config_data(tmp_path / "mix" / name)["datasets"][0]["abbr"]
        for name in (full, sub)
    }
    assert abbrs == {
        full: "LiveMathBench-v202412-k4_8_16-r3",
        sub: "LiveMathBench-v202412-CCEE-AMC-k4_8_16-r3",
    }


def test_two_entries_writing_one_file_name_the_template_lines(tmp_path, capsys):
    """'Qwen' and 'qwen' are one file on macOS and Windows file systems."""
    template = tmp_path / "t.py"
    template.write_text(
        "llm_infos = [\n    ('a/Qwen', 1, 8),\n    ('b/qwen', 1, 8),\n]\n"
        "temperatures = [0.5]\nks = [[4]]\nreplications = [1]\n",
        encoding="utf-8",
    )
    code, stdout, err = dump_here(["-tc", str(template), "-o", str(tmp_path / "o")], capsys)
    assert (code, stdout) == (2, "") and len(err.splitlines()) == 1, err
    assert "llm_infos[1] (line 3): name 'qwen' is also used by llm_infos[0] (a/Qwen, line 2)" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "selection,tag",
    [
        ("dataset_splits = ['CNMO', 'hard']", "-CNMO-hard"),
        ("dataset_splits = ['AMC', 'CCEE']", "-CCEE-AMC"),  # a subset: in the version's order
        ("dataset_splits = ['CCEE', 'AMC']", "-CCEE-AMC"),
        ("dataset_splits = ['WLPMC', 'AMC', 'CCEE', 'CNMO']", ""),  # the default set
        ("dataset_splits = ['CNMO']", "-CNMO"),
        ("dataset_languages = ['en', 'cn']", ""),
        ("dataset_languages = ['cn']\ncot = False", "-cn-nocot"),
        ("version = '202505'\ndataset_splits = ['all']\ndataset_languages = ['en']", ""),
        ("version = '202505'\ndataset_splits = ['hard']\ndataset_languages = ['en']", "-hard"),
    ],
)
def test_dataset_tags(tmp_path, selection, tag):
    template = tmp_path / "t.py"
    template.write_text(
        "llm_infos = [('org/m', 1, 8)]\ntemperatures = [0.5]\nks = [[4]]\n"
        f"replications = [2]\ndata_path = '/d'\n{selection}\n",
        encoding="utf-8",
    )
    version = "202505" if "202505" in selection else "202412"
    (config,) = configgen.build(template).configs
    assert config.name == f"m_t0-5_p1-0_k50_rp1-0_rs42_l8192@LiveMathBench-v{version}{tag}-k4-r2.py"


def test_docs_quote_the_lines_dump_prints(tmp_path, capsys, monkeypatch):
    """docs/configgen.md's collision and limit examples are what dump prints for the
    templates the page describes."""
    page = (ROOT / "docs" / "configgen.md").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    nono1 = (TEMPLATES / "nono1.py").read_text(encoding="utf-8")
    (tmp_path / "tau.py").write_text(nono1 + "thresholds = [0.5, 1.0]\n")
    assert dump_here(["-tc", "nono1.py", "-o", "mix"], capsys)[0] == 0
    code, _, err = dump_here(["-tc", "tau.py", "-o", "mix"], capsys)
    (line,) = [x for x in err.splitlines() if x.startswith("error: ")]
    assert code == 2 and line in page
    (tmp_path / "gpt.py").write_text(
        "api_models = [dict(path='gpt-4o-2024-11-20', "
        "openai_api_base='https://api.openai.com/v1/')]\n"
        "temperatures = [1.0]\nks = [[4, 8, 16]]\nreplications = [3]\nmax_out_len = 32768\n"
    )
    code, _, err = dump_here(["-tc", "gpt.py", "--strict"], capsys)
    assert code == 2 and f"$ gpassk-oc dump -tc gpt.py --strict\n{err.strip()}\n" in page


def test_dataset_abbr_reads_back_its_tags():
    from gpassk_oc.core.data.naming import dataset_abbr, parse_dataset_abbr

    abbr = dataset_abbr("202412", [4, 8], 2, judge="org/J-1", splits=["hard"], cot=False)
    assert abbr == "LiveMathBench-v202412-hard-nocot-k4_8-r2-judge-J-1"
    got = parse_dataset_abbr(abbr)
    assert got is not None
    assert (got.version, got.splits, got.languages, got.cot, got.ks, got.judge) == (
        "202412",
        ("hard",),
        None,
        False,
        (4, 8),
        "J-1",
    )
    legacy = parse_dataset_abbr("LiveMathBench-v202412-k4_8_16-r3")  # names of today
    assert legacy is not None and (legacy.splits, legacy.languages, legacy.cot) == (
        None,
        None,
        True,
    )
    en = parse_dataset_abbr("LiveMathBench-v202412-en-k4-r1")
    assert en is not None and (en.splits, en.languages) == (None, ("en",))
    sub = parse_dataset_abbr("LiveMathBench-v202412-CCEE-AMC-en-k4-r1")
    assert sub is not None and (sub.splits, sub.languages) == (("CCEE", "AMC"), ("en",))
