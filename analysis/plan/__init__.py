"""Planning a run of the suite: what the configuration asks for, before anything runs.

Shared by the workflow (the Snakefile imports it) and by the analysis, so that both agree on
which runs a configuration makes and where their results live:

- `settings`: the configuration, checked against `config/schema.yaml` with one clear line per
  bad key, defaults filled in, command-line strings read as the schema's types;
- `runs`: the run directories of every experiment (one name scheme, built and parsed here);
- `estimate`: time and peak memory of each job on this machine, from measured per-unit costs
  scaled by a quick speed probe.
"""
