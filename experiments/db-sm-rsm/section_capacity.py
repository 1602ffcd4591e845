"""db-sm-rsm's capacity: estimated time and memory at election sizes (10^5 to 10^7 ballots) from the
cost model, and the model beside our measured runs (analysis.experiments.db_sm_rsm.capacity, which also prints
them on the terminal: `python -m analysis capacity --results RESULTS_DIR`)."""

from __future__ import annotations

from analysis.experiments.db_sm_rsm.capacity import (
    capacity_formats,
    capacity_frame,
    checked_formats,
    checked_frame,
    checked_runs,
    errors_text,
    model_run,
    model_words,
    reference_model,
)
from analysis.experiments.db_sm_rsm.capacity_nodes import overlap, placed_runs
from analysis.render.context import Context
from analysis.render.pdf import Doc

INTRO = (
    "The paper measured n = 10,000; an election a traceable mixnet is for counts 10^5 to 10^7 ballots. "
    "From the per-unit costs the workflow estimates its jobs with (experiments/db-sm-rsm/costs.yaml), "
    "each row "
    "gives one mixnet of m mix-servers in one process (fast mode, 128-bit security, BN254): its CPU time, "
    "its wall time on C cores running C threads, and its peak memory. The same table is printed by "
    "python -m analysis capacity."
)
CHECK_NOTE = (
    "Each of our one-process runs: its own CPU and wall time and peak memory (the report's resources) "
    "beside the model's estimate at its n, m and thread count, at the speed the workflow's probe measured "
    "when the run was planned (else the reference machine's). The memory model describes runs whose "
    "fixed-base tables have their full size (n >= 1000); smaller runs are shown, not counted in its error."
)


def capacity_section(doc: Doc, ctx: Context) -> None:
    """The capacity table, and the model beside our measured runs."""
    model = reference_model()
    doc.h2("Capacity: elections of 10^5 to 10^7 ballots")
    doc.para(INTRO)
    # Runs placed on nodes (one mix-server per node) add m + 1 nodes of C cores as a dimension.
    across = overlap(model, placed_runs(ctx.results_dir), model_run)
    frame = capacity_frame(model, overlap=across)
    ctx.table(doc, "dbsm_capacity", "Estimated CPU time, wall time on C cores and peak memory of one run",
              frame, capacity_formats(frame), index_name="election")  # fmt: skip
    doc.para(model_words(model), small=True)
    if across is not None:
        doc.para(across.words(), small=True)
    checked = checked_runs(ctx.df, model, ctx.results_dir)
    if not checked:
        return
    cf = checked_frame(checked)
    ctx.table(doc, "dbsm_capacity_check", "The model beside our measured runs", cf, checked_formats(cf),
              index_name="run")  # fmt: skip
    doc.para(CHECK_NOTE + " " + errors_text(checked), small=True)
