"""Ready LiveMathBench dataset configs for OpenCompass (mmengine config files).

Use them inside ``read_base()``::

    from mmengine.config import read_base
    with read_base():
        from gpassk_oc.configs.livemathbench_gen import livemathbench_datasets

| module | dataset abbr | k | n |
|---|---|---|---|
| ``livemathbench_gen`` | ``LiveMathBench-v202412-k4_8_16-r3`` | 4, 8, 16 | 48 |
| ``livemathbench_greedy_gen`` | ``LiveMathBench-v202412-k1-r1`` | 1 | 1 |
| ``livemathbench_hard_gen`` | ``LiveMathBench-Hard-v202505-k4_8_16-r3`` | 4, 8, 16 | 48 |

The files are parsed by mmengine as config files (their imports become lazy
references); each is one call of :func:`gpassk_oc.configs.builder.livemathbench_dataset`,
which names the abbr by :func:`gpassk_oc.core.data.naming.dataset_abbr`. Set ``path`` to your data (default
``opencompass/LiveMathBench``: a local ``data/LiveMathBench`` under the cwd or
``COMPASS_DATA_CACHE`` if present, else the hub dataset).
"""
