# Grid template: offline demo on a CPU laptop. Two SIMULATED models served by a local
# OpenAI-compatible endpoint on 127.0.0.1, bundled sample data, no GPU, no network.
#     gpassk-oc demo                    # starts the endpoint, runs everything, reports
#     gpassk-oc dump -tc demo.py        # only the 2 models x 2 temperatures = 4 configs
# `gpassk-oc demo` does not edit this file: it expands it with overrides given as data
# (the endpoint's actual port, the absolute data path; with --quick also one temperature
# and fewer samples), named in each generated header. Full schema: docs/configgen.md.
#
# To evaluate a real model instead, copy this file, then e.g.
#     lmdeploy serve api_server Qwen/Qwen2.5-7B-Instruct --server-port 23333
# and set path='Qwen/Qwen2.5-7B-Instruct', openai_api_base='http://127.0.0.1:23333/v1',
# data_path to a LiveMathBench copy (or use llm_infos for TurboMind, see nono1.py).

_base_url = 'http://127.0.0.1:18000/v1'  # the demo's default port; `--port` overrides it

# ---- models ---------------------------------------------------------------------------
# path is the model name the endpoint serves. No tokenizer_path: gpassk_oc's
# OpenAICompatible then approximates token counts instead of downloading a tokenizer.
# query_per_second is high because the simulated endpoint answers instantly; lower it
# for a real server.
api_models = [
    dict(path='gpassk-demo-steady', openai_api_base=_base_url, batch_size=16,
         query_per_second=1000, retry=2, timeout=60),
    dict(path='gpassk-demo-shaky', openai_api_base=_base_url, batch_size=16,
         query_per_second=1000, retry=2, timeout=60),
]

# ---- grid axes ------------------------------------------------------------------------
temperatures = [0.5, 1.0]  # two sampling temperatures (no greedy config in the demo)
top_ps = [0.95]         # nucleus sampling
ks = [[4, 8]]           # k-list
replications = [2]      # r: n = r * max(k) = 16 samples per question

# ---- fixed knobs (written into every file name) ----------------------------------------
top_k = 50               # recorded in the names; not sent (extra_sampling is off)
repetition_penalty = 1.0 # recorded in the names; not sent
random_seed = 42         # recorded in the names; not sent (a fixed seed repeats samples)
max_out_len = 1024       # simulated answers are short
max_seq_len = 4096       # prompt + max_out_len

# ---- dataset --------------------------------------------------------------------------
data_path = 'gpassk_demo_output/data'  # bundled sample data, written here by the demo
version = '202412'
dataset_splits = ['AMC', 'CCEE']
dataset_languages = ['en', 'cn']
cot = True               # chain-of-thought prompt

# ---- judge and runner -----------------------------------------------------------------
eval_urls = []           # rule-based checking, no judge endpoint
max_num_workers = 2      # LocalRunner workers for inference and evaluation
