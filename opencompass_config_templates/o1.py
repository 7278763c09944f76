# Grid template: long-output reasoning (o1-like) models, served locally with LMDeploy
# TurboMind. Expand with
#     python dump_opencompass_configs.py --config_template_file o1.py
# Full schema: docs/configgen.md.

# ---- models ---------------------------------------------------------------------------
# (HF hub id or local directory, tensor parallel = GPUs per model, batch size).
# Long outputs need KV-cache room: smaller batches than nono1.py.
llm_infos = [
    ('deepseek-ai/DeepSeek-R1-Distill-Qwen-7B', 1, 32),
    ('deepseek-ai/DeepSeek-R1-Distill-Llama-8B', 1, 32),
    ('deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', 4, 32),
    ('deepseek-ai/DeepSeek-R1-Distill-Llama-70B', 8, 32),
    # a 32K context (max_position_embeddings = 32768): its own lengths (names carry l28672)
    dict(path='Qwen/QwQ-32B-Preview', tp=4, batch_size=32,
         max_out_len=28672, max_seq_len=32768),
    ('Qwen/QwQ-32B', 4, 32),
]

# ---- grid axes ------------------------------------------------------------------------
# 0 = greedy (one config per model, k=[1], n=1); 0.6 is DeepSeek-R1's recommended value.
temperatures = [0.0, 0.6, 1.0]
top_ps = [0.95]         # nucleus sampling, each in (0, 1]
ks = [[4, 8, 16]]       # k-lists
replications = [3]      # r: n = r * max(k) = 48 samples per question

# ---- fixed sampling knobs (written into every file name) -------------------------------
top_k = 50               # top-k cut-off
repetition_penalty = 1.0 # 1.0 = no penalty
random_seed = 42         # recorded in the names; not sent unless send_random_seed = True,
send_random_seed = False # because one fixed seed per request makes all n samples identical
enable_prefix_caching = True  # TurboMind: every prompt is sent n times, reuse its KV cache
max_out_len = 32768      # reasoning traces are long
max_seq_len = 36864      # TurboMind session_len: prompt + max_out_len

# ---- reasoning traces ------------------------------------------------------------------
# These models think in <think> ... </think> before answering: only what follows the last
# closing tag is read, and a reply whose thinking never closed (cut by max_out_len) is
# truncated: scored wrong, never judged. See docs/reasoning-models.md.
reasoning = True
think_tags = ['<think>', '</think>']

# ---- dataset --------------------------------------------------------------------------
data_path = 'opencompass/LiveMathBench'  # gated hub dataset; or a local directory
version = '202412'
dataset_splits = ['CNMO', 'CCEE', 'AMC', 'WLPMC']  # ['hard'] for the hard split
dataset_languages = ['cn', 'en']
cot = True               # chain-of-thought prompt

# ---- judge ----------------------------------------------------------------------------
# Empty = rule-based checking; see nono1.py for how to point at a judge model.
eval_urls = []
