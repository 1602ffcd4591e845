# SLURM, before anything is submitted: a status command that can read job states on this
# cluster, and a watch that names a failed job within seconds (analysis/plan/cluster.py). Also
# included by workflows of the tests. Functions only; nothing happens for local runs.

import sys

from snakemake.exceptions import WorkflowError

from analysis.plan import cluster as plan_cluster


def prepare_cluster():
    """On SLURM, before anything is submitted: a status command that can read job states here
    (or one line saying what to set, and a stop), and the watch that names a failed job within
    seconds. Nothing happens for local runs."""
    plugin = workflow.executor_plugin
    if plugin is None or plugin.name != "slurm":
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
