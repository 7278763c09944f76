# LiveMathBench v202505 hard (en), G-Pass@{4,8,16}, n = 48.
# An mmengine config file: import it inside read_base(). mmengine makes its imports lazy,
# so the builder is reached through __import__ (gpassk_oc/configs/builder.py says why).
livemathbench_dataset = __import__(
    "gpassk_oc.configs.builder", fromlist=["livemathbench_dataset"]
).livemathbench_dataset(
    name="LiveMathBench-Hard",
    version="202505",
    splits=["hard"],
    languages=["en"],
    k=[4, 8, 16],
    replication=3,
    max_out_len=32768,
)

livemathbench_datasets = [livemathbench_dataset]
