# SLURM, before anything is submitted: a status command that can read job states on this
# cluster, and a watch that names a failed job within seconds (analysis/plan/cluster.py). Also
# included by workflows of the tests. Functions only; nothing happens for local runs.

import sys

from snakemake.exceptions import WorkflowError

from analysis.plan import cluster as plan_cluster


def placed_runs():
    """The planned runs whose processes SLURM places on nodes of their own (their descriptor's
    `cluster` asks for more than one node)."""
    planned = globals().get("PLANNED", {})
    placed = []
    for name, runs in planned.items():
        cluster = descriptors.get(name).cluster
        placed += [run.dir for run in runs if int(cluster(run).get("nodes", 1)) > 1]
    return placed


def refuse_placed_runs():
    """Off SLURM, a run placed on nodes cannot start its parties: one line before any job."""
    placed = placed_runs()
    if placed:
        more = f" and {len(placed) - 1} more" if len(placed) > 1 else ""
        stop(
            f"{placed[0]}{more}: its processes are placed on nodes of a SLURM job of their own; "
            "run it with --profile profiles/slurm, or keep its placement local"
        )


def prepare_cluster():
    """On SLURM, before anything is submitted: a status command that can read job states here
    (or one line saying what to set, and a stop), and the watch that names a failed job within
    seconds. Nothing happens for local runs."""
    plugin = workflow.executor_plugin
    if plugin is None or plugin.name != "slurm":
        refuse_placed_runs()
        return
    settings = workflow.executor_settings
    configured = getattr(settings, "status_command", None) or "sacct"
    first = int(getattr(settings, "init_seconds_before_status_checks", None) or 40)
    choice = plan_cluster.choose_status_command(configured, first)
    if choice.command is None:
        raise WorkflowError(choice.message)
    if choice.command != configured:
        settings.status_command = choice.command
    print(f"[cluster] {choice.message}", file=sys.stderr, flush=True)
    run_name = workflow.scheduler._executor.run_uuid
    plan_cluster.FailureWatch(run_name, sacct_ok=choice.command == "sacct").start()
