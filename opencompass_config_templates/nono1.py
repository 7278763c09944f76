# Grid template: general and math models (non-o1-like), served locally with LMDeploy
# TurboMind. Expand with
#     python dump_opencompass_configs.py --config_template_file nono1.py
# which writes one OpenCompass config per model x temperature x top_p x k-list x
# replication into ./opencompass_configs/. Full schema: docs/configgen.md.

# ---- models ---------------------------------------------------------------------------
# (HF hub id or local directory, tensor parallel = GPUs per model, batch size), or a dict
# that may also set the model's own max_out_len, max_seq_len, reasoning, think_tags.
# The basename of the path starts every file name, so basenames must be distinct.
# `dump` checks max_out_len / max_seq_len against each named model's limits (a note, a
# refusal with --strict); a local directory's config.json is read for its context length.
llm_infos = [
    # general models
    ('meta-llama/Llama-3.1-8B-Instruct', 1, 64),
    ('Qwen/Qwen2.5-7B-Instruct', 1, 64),
    ('internlm/internlm3-8b-instruct', 1, 64),
    ('Qwen/Qwen2.5-32B-Instruct', 2, 64),
    ('meta-llama/Llama-3.1-70B-Instruct', 4, 64),
    ('meta-llama/Llama-3.3-70B-Instruct', 4, 64),
    ('Qwen/Qwen2.5-72B-Instruct', 4, 64),
    ('mistralai/Mistral-Large-Instruct-2411', 8, 32),
    # math models: a 4K context (max_position_embeddings = 4096 in their config.json), so
    # each gets its own max_out_len / max_seq_len (the file names carry l3072)
    dict(path='deepseek-ai/deepseek-math-7b-rl', tp=1, batch_size=64,
         max_out_len=3072, max_seq_len=4096),
    dict(path='Qwen/Qwen2.5-Math-7B-Instruct', tp=1, batch_size=64,
         max_out_len=3072, max_seq_len=4096),
    dict(path='Qwen/Qwen2.5-Math-72B-Instruct', tp=4, batch_size=64,
         max_out_len=3072, max_seq_len=4096),
]

# ---- grid axes (every combination becomes one config) ----------------------------------
# 0 means greedy decoding: one extra config per model with k=[1], n=1 (the paper's
# "Greedy" column); the other values sample (TurboMind do_sample=True).
temperatures = [0.0, 0.3, 0.5, 0.7, 1.0]
top_ps = [0.8]          # nucleus sampling, each in (0, 1]
ks = [[4, 8, 16]]       # k-lists: G-Pass@k is reported for every k of a list
replications = [3]      # r: n = r * max(k) samples per question (here 48)

# ---- fixed sampling knobs (written into every file name) -------------------------------
top_k = 50               # top-k cut-off
repetition_penalty = 1.0 # 1.0 = no penalty
random_seed = 42         # recorded in the names; not sent unless send_random_seed = True,
send_random_seed = False # because one fixed seed per request makes all n samples identical
enable_prefix_caching = True  # TurboMind: every prompt is sent n times, reuse its KV cache
max_out_len = 8192       # maximum generated tokens
max_seq_len = 12288      # context length (TurboMind session_len): prompt + max_out_len

# ---- dataset --------------------------------------------------------------------------
data_path = 'opencompass/LiveMathBench'  # gated hub dataset; or a local directory
version = '202412'
dataset_splits = ['CNMO', 'CCEE', 'AMC', 'WLPMC']  # ['hard'] for the hard split
dataset_languages = ['cn', 'en']
cot = True               # chain-of-thought prompt

# ---- judge ----------------------------------------------------------------------------
# Empty eval_urls = rule-based answer checking. To use a judge, deploy it, e.g.
#   lmdeploy serve api_server Qwen/Qwen2.5-72B-Instruct --server-port 8000 --tp 4
# then set both, e.g. eval_urls = ['http://127.0.0.1:8000/v1'] and
# eval_model_name = 'Qwen/Qwen2.5-72B-Instruct' (or the smaller LiveMath-Judge).
eval_urls = []
