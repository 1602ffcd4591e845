# The performance benchmark of db-sm-rsm, outside `all` (about 40 minutes on 2 cores):
#   snakemake --cores 2 dbsm_perf
# Paper mode against fast mode at n = 1000 and the configured m, one thread, with fast mode's
# computed lower bound and its speed-up on two threads, from a fresh single-core calibration.

DB_PERF = f"{RESULTS}/perf/db-sm-rsm"


rule dbsm_calibration:
    """Unit costs of db-sm-rsm's operations on this machine (cargo bench, one thread)."""
    input:
        "target/release/db-sm-rsm",
    output:
        f"{DB_PERF}/calibration.json",
    log:
        f"{DB_PERF}/calibration.log",
    threads: whole_machine
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        SOFTWARE
    shell:
        "RAYON_NUM_THREADS=1 DBSM_CALIBRATION=$PWD/{output}"
        " cargo bench -p db-sm-rsm --bench ops > {log} 2>&1"


rule dbsm_perf:
    """Paper vs fast mode, fast over its lower bound, and the 2-thread speed-up."""
    input:
        binary="target/release/db-sm-rsm",
        calibration=rules.dbsm_calibration.output,
    output:
        txt=f"{DB_PERF}/compare-n1000-m{config['mixers']}.txt",
        json=f"{DB_PERF}/compare-n1000-m{config['mixers']}.json",
    log:
        f"{DB_PERF}/compare-n1000-m{config['mixers']}.log",
    params:
        raw=f"{DB_PERF}/raw-n1000-m{config['mixers']}",
        mixers=config["mixers"],
    threads: whole_machine
    resources:
        mem_mb=4000,
        runtime=180,
    conda:
        SOFTWARE
    shell:
        "python3 scripts/dbsm_compare_modes.py --binary {input.binary} --n 1000"
        " --m {params.mixers} --threads 1 --scaling 2 --calibration {input.calibration}"
        " --json {output.json} --raw-dir {params.raw} > {output.txt} 2> >(tee {log} >&2)"
