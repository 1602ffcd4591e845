# Shared helpers of the workflow: configuration checks, the runner prefix, parameter lists.
# Included first by the Snakefile; every experiment module uses these names.

import glob
import os
import shutil

import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

SCHEMA = "config/schema.yaml"

# Image name per experiment; the docker runner builds each once (rule docker_image).
DOCKER_IMAGES = ["zksnark-sm-rsm", "db-sm-rsm", "cpsnark-sm", "analysis"]


def image_tag(name):
    return f"tmbench/{name}:local"


def _key_path(error):
    """config key of a validation error, e.g. hash[0] or threads[1]."""
    key = ""
    for part in error.absolute_path:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key


def _explain(error, schema):
    """One line per bad value: the key, what was given, and what is allowed."""
    key = _key_path(error)
    if error.validator == "additionalProperties":
        unknown = sorted(set(error.instance) - set(schema["properties"]))
        return (f"unknown config key(s) {', '.join(unknown)}; known keys: "
                f"{', '.join(sorted(schema['properties']))}")
    top = key.split("[")[0].split(".")[0]
    prop = schema["properties"].get(top, {})
    where = f"config key '{key or top}'"
    if error.validator == "enum":
        return (f"{where}: {error.instance!r} is not allowed; allowed values: "
                f"{', '.join(map(str, error.validator_value))}")
    allowed = []
    sub = prop.get("items", prop)
    for word, text in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<=")):
        if word in sub:
            allowed.append(f"{text} {sub[word]}")
    if "enum" in sub:
        allowed.append("one of " + ", ".join(map(str, sub["enum"])))
    hint = f" (allowed: {' and '.join(allowed)})" if allowed else ""
    desc = f" [{prop['description']}]" if "description" in prop else ""
    return f"{where}: {error.message}{hint}{desc}"


def _numbers_from_command_line(config, schema):
    """`--config threads=[1,2]` arrives as ['1', '2']: read numeric strings as numbers where the
    schema wants numbers, so that command-line overrides work like the YAML file."""

    def coerce(value, want):
        if isinstance(value, str) and want in ("integer", "number"):
            try:
                return int(value) if want == "integer" else float(value)
            except ValueError:
                return value
        return value

    for key, prop in schema["properties"].items():
        if key not in config:
            continue
        if prop.get("type") == "array" and isinstance(config[key], list):
            want = prop.get("items", {}).get("type")
            config[key] = [coerce(v, want) for v in config[key]]
        else:
            config[key] = coerce(config[key], prop.get("type"))


def check_config(config):
    """Validate against config/schema.yaml (filling in defaults); stop with a clear message."""
    with open(os.path.join(workflow.basedir, SCHEMA)) as f:
        schema = yaml.safe_load(f)
    _numbers_from_command_line(config, schema)
    try:
        validate(config, SCHEMA)
    except WorkflowError:
        # Snakemake's message is jsonschema's raw dump; say instead which key is wrong and what
        # it may be, for every bad key at once.
        import jsonschema

        errors = jsonschema.Draft202012Validator(schema).iter_errors(config)
        lines = sorted({_explain(e, schema) for e in errors})
        raise WorkflowError("invalid configuration:\n  " + "\n  ".join(lines)) from None


def require_tools(tools, why):
    """Stop early when a program the selected experiments need is not installed."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise WorkflowError(
            f"required program(s) not found on PATH: {', '.join(missing)} (needed for {why}); "
            "run scripts/install first"
        )


def sources(*patterns, exclude=("node_modules", "target", "build", "tests", "test")):
    """Files matching the glob patterns, without build products or test files."""
    found = set()
    for pattern in patterns:
        for path in glob.glob(pattern, recursive=True):
            parts = set(path.split(os.sep))
            if os.path.isfile(path) and not parts & set(exclude):
                found.add(path)
    return sorted(found)


def crate_sources(crate):
    """What a crate's build depends on: its own files and the workspace manifest and lock. The
    crates have no path dependencies on each other; one that gains some must list them here."""
    return ["Cargo.toml", "Cargo.lock"] + sources(f"{crate}/**/*.rs", f"{crate}/Cargo.toml")


RUST_CRATES = ["db-sm-rsm", "cpsnark-sm", "zksnark-sm-rsm/prover"]
# Every workspace member: an image builds the whole workspace's manifest set.
RUST_SOURCES = sorted({f for crate in RUST_CRATES for f in crate_sources(crate)})


def seed_arg(rep):
    """--seed S for run k (S + k - 1, so repetitions differ yet are reproducible), or nothing."""
    if config["seed"] is None:
        return ""
    return f" --seed {config['seed'] + rep - 1}"


def rep_suffix(rep):
    """Run 1 of a parameter set lives in <params>/, run k >= 2 in <params>-r<k>/."""
    return "" if rep == 1 else f"-r{rep}"


def reps():
    return range(1, config["repetitions"] + 1)


def rep_of(run_id):
    """The repetition number encoded in a run directory name."""
    head, sep, tail = run_id.rpartition("-r")
    return int(tail) if sep and tail.isdigit() else 1


def set_sizes():
    return sorted({config["n"], *config["sweep_n"]})


def runner_prefix(image, mounts=()):
    """Prefix of every experiment command: nothing natively; under docker, run in the image with
    the results directory mounted where the same relative (or absolute) path reaches it, plus
    any further (host, container) mounts, read-only."""
    if config["runner"] == "native":
        return ""
    res = config["results"]
    host, inside = (res, res) if os.path.isabs(res) else (f"$PWD/{res}", f"/work/{res}")
    extra = "".join(f' -v "{h}":{c}:ro' for h, c in mounts)
    return f'docker run --rm -v "{host}":{inside}{extra} {image_tag(image)} '


def tool_inputs(native, image):
    """Inputs a run rule needs before it can start: built programs natively, the image under
    docker (so that docker builds each image once, and nothing is compiled on the host)."""
    if config["runner"] == "docker":
        return [f"build/docker/{image}.stamp"]
    return native
