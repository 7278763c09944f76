# Grid template: offline demo on a CPU laptop. Two simulated models served by a local
# OpenAI-compatible endpoint on 127.0.0.1, bundled sample data, no GPU, no network.
#     python dump_opencompass_configs.py --config_template_file demo.py
# gives 2 models x 2 temperatures = 4 small configs. Full schema: docs/configgen.md.

# ---- models ---------------------------------------------------------------------------
# path must match a model name the local endpoint serves. tokenizer_path is a local
# tokenizer directory, because OpenCompass's OpenAISDK loads a tokenizer eagerly and
# would otherwise try to download one.
api_models = [
    dict(path='gpassk-demo-steady', openai_api_base='http://127.0.0.1:18000/v1',
         tokenizer_path='gpassk_demo_output/tokenizer', batch_size=4,
         query_per_second=50, retry=2),
    dict(path='gpassk-demo-shaky', openai_api_base='http://127.0.0.1:18000/v1',
         tokenizer_path='gpassk_demo_output/tokenizer', batch_size=4,
         query_per_second=50, retry=2),
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
data_path = 'gpassk_demo_output/data'  # bundled sample data, copied here by the demo
version = '202412'
dataset_splits = ['AMC']
dataset_languages = ['en']
cot = True               # chain-of-thought prompt

# ---- judge and runner -----------------------------------------------------------------
eval_urls = []           # rule-based checking, no judge endpoint
max_num_workers = 2      # LocalRunner workers for inference and evaluation
