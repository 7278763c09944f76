# Grid template: closed models behind OpenAI-compatible APIs. Expand with
#     python dump_opencompass_configs.py --config_template_file close.py
# Each generated file holds one model; keys are never written: export the provider's key
# as OPENAI_API_KEY before running that file (OpenCompass reads it for key='ENV').
# Full schema: docs/configgen.md.

# ---- models ---------------------------------------------------------------------------
# path: the model name the endpoint serves; openai_api_base: a URL or a list of URLs.
# Optional per model: abbr (name base, default basename of path), tokenizer_path (local
# tokenizer directory), batch_size, query_per_second, retry, timeout,
# send_top_p (False for endpoints that reject top_p, such as OpenAI's o-series) and
# extra_sampling (True to send top_k / repetition_penalty in extra_body; only self-hosted
# vLLM / LMDeploy / SGLang servers understand them), reasoning (True for a model that thinks
# before answering: a reply whose thinking never closed is scored wrong; see
# docs/reasoning-models.md), max_out_len / max_seq_len (this model's own; `dump` checks
# them against the named models' limits: a note, a refusal with --strict).
api_models = [
    dict(path='o3-mini-2025-01-31', openai_api_base='https://api.openai.com/v1/',
         send_top_p=False, batch_size=8, query_per_second=2, retry=20),
    dict(path='o1-mini-2024-09-12', openai_api_base='https://api.openai.com/v1/',
         send_top_p=False, batch_size=8, query_per_second=2, retry=20),
    dict(path='gpt-4o-2024-11-20', openai_api_base='https://api.openai.com/v1/',
         batch_size=8, query_per_second=2, retry=20,
         max_out_len=16384),  # its output limit (OpenAI's model page)
    dict(path='deepseek-reasoner', abbr='DeepSeek-R1',
         openai_api_base='https://api.deepseek.com/v1', batch_size=8, query_per_second=2,
         retry=20, reasoning=True),  # thinking comes back as reasoning_content
    dict(path='deepseek-chat', abbr='DeepSeek-V3',
         openai_api_base='https://api.deepseek.com/v1', batch_size=8, query_per_second=2,
         retry=20, max_out_len=8192),  # its output limit (DeepSeek's API docs)
]

# ---- grid axes ------------------------------------------------------------------------
# o-series models accept only their default temperature (OpenCompass does not send one for
# them) and deepseek-reasoner ignores it, so one temperature is the honest grid here.
temperatures = [1.0]
top_ps = [1.0]          # 1.0 = no nucleus cut-off
ks = [[4, 8, 16]]       # k-lists
replications = [3]      # r: n = r * max(k) = 48 samples per question

# ---- fixed knobs (written into every file name) ----------------------------------------
top_k = -1               # -1 = no top-k cut-off; sent only with extra_sampling=True
repetition_penalty = 1.0 # 1.0 = no penalty; sent only with extra_sampling=True
random_seed = 42         # recorded in the names; not sent (a fixed seed repeats samples)
max_out_len = 32768      # reasoning models need long outputs
max_seq_len = 36864      # prompt + max_out_len

# ---- dataset --------------------------------------------------------------------------
data_path = 'opencompass/LiveMathBench'  # gated hub dataset; or a local directory
version = '202412'
dataset_splits = ['CNMO', 'CCEE', 'AMC', 'WLPMC']
dataset_languages = ['cn', 'en']
cot = True               # chain-of-thought prompt

# ---- judge ----------------------------------------------------------------------------
# Empty = rule-based checking; see nono1.py for how to point at a judge model.
eval_urls = []
