"""The workflow's configuration: checked against `config/schema.yaml`, defaults filled in (with
`smoke: true`, each experiment's smoke-run values first, from its folder).

Snakemake hands over `--config KEY=VALUE` values as strings (`threads=[1,2]` arrives as
`['1', '2']`, `seed=null` as `'null'`); `read_command_line` turns them into the schema's types
first, so that the command line means what the same text means in a YAML file. Every bad key is
reported at once, one line each: the key, what was given and what is allowed.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, MutableMapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from analysis import experiments

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "config" / "schema.yaml"

# Names a reader of the paper may try; the schema's names are longer because Snakemake's
# `--config` accepts no one-letter keys.
PAPER_NAMES = {
    "n": "entries",
    "m": "mixers",
    "sweep_n": "sweep_entries",
    "sweep_m": "sweep_mixers",
}


class SettingsError(ValueError):
    """A configuration the workflow cannot run; the message has one line per problem."""


def load_schema(path: Path = SCHEMA_PATH) -> dict[str, Any]:
    """The shared keys of `config/schema.yaml` with every experiment's own keys (from its
    descriptor) merged in, and the experiments' names as the allowed values of `experiments`."""
    with path.open(encoding="utf-8") as f:
        schema: dict[str, Any] = yaml.safe_load(f)
    props = schema["properties"]
    for exp in experiments.all_experiments():
        for key, prop in exp.config.items():
            if key in props:
                raise ValueError(f"config key {key!r} of {exp.name} is defined twice")
            props[key] = prop
    names = list(experiments.names())
    props["experiments"]["items"]["enum"] = names
    props["experiments"]["default"] = names
    return schema


@cache
def _defaults() -> dict[str, Any]:
    return {k: p.get("default") for k, p in load_schema()["properties"].items()}


def defaults() -> dict[str, Any]:
    """Every configuration key's default, from the schema (an experiment's from its descriptor)."""
    return dict(_defaults())


def _types(prop: Mapping[str, Any]) -> list[str]:
    t = prop.get("type", [])
    return [t] if isinstance(t, str) else list(t)


def _coerce(value: Any, prop: Mapping[str, Any]) -> Any:
    """One command-line string as the schema's type, if it reads as one; else unchanged."""
    types = _types(prop)
    if isinstance(value, int | float) and not isinstance(value, bool) and types == ["string"]:
        return str(value)  # `security: [128]` in YAML is the string "128" of the schema
    if not isinstance(value, str):
        return value
    if value.strip().lower() in ("null", "none", "~") and "null" in types:
        return None
    if "integer" in types or "number" in types:
        try:
            return int(value)
        except ValueError:
            pass
        if "number" in types:
            try:
                return float(value)
            except ValueError:
                pass
    if "boolean" in types and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def read_command_line(config: MutableMapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Read `--config` strings as the schema's types, in place."""
    for key, prop in schema["properties"].items():
        if key not in config:
            continue
        value = config[key]
        if "array" in _types(prop) and isinstance(value, str):
            # `threads=1` means `threads=[1]`; `hash=poseidon,sha256` a list of two.
            value = [v for v in value.strip("[]").split(",") if v.strip()]
        if isinstance(value, list):
            item = prop.get("items", {})
            config[key] = [_coerce(v.strip() if isinstance(v, str) else v, item) for v in value]
        else:
            config[key] = _coerce(value, prop)


def _key_path(error: jsonschema.ValidationError) -> str:
    key = ""
    for part in error.absolute_path:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key


def _explain(error: jsonschema.ValidationError, schema: Mapping[str, Any]) -> list[str]:
    """One line per problem: the key, what was given, what is allowed."""
    props = schema["properties"]
    if error.validator == "additionalProperties":
        lines = []
        for k in sorted(set(error.instance) - set(props)):
            if k in PAPER_NAMES:
                lines.append(f"unknown config key '{k}': the paper's {k} is the key '{PAPER_NAMES[k]}'")
            else:
                lines.append(f"unknown config key '{k}'; known keys: {', '.join(sorted(props))}")
        return lines
    key = _key_path(error)
    top = key.split("[")[0].split(".")[0]
    prop = props.get(top, {})
    where = f"config key '{key or top}'"
    if error.validator == "enum":
        allowed = ", ".join(map(str, error.validator_value))
        return [f"{where}: {error.instance!r} is not allowed; allowed values: {allowed}"]
    bounds = []
    sub = prop.get("items", prop) if "[" in key else prop
    for word, text in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<=")):
        if word in sub:
            bounds.append(f"{text} {sub[word]}")
    hint = f" (allowed: {' and '.join(bounds)})" if bounds else ""
    desc = f" [{prop['description']}]" if "description" in prop else ""
    return [f"{where}: {error.message}{hint}{desc}"]


def fill_defaults(config: MutableMapping[str, Any], schema: Mapping[str, Any]) -> None:
    for key, prop in schema["properties"].items():
        if key not in config and "default" in prop:
            default = prop["default"]
            config[key] = list(default) if isinstance(default, list) else default


ALL = "all"  # `experiments: all`: every experiment that has a folder


def every_experiment(config: MutableMapping[str, Any]) -> None:
    """`experiments: all` (or `[all]`, or `--config experiments=all`) as the list of every
    experiment's name, in place: a new experiment's folder is then run by default."""
    value = config.get("experiments")
    if value == ALL or value == [ALL]:
        config["experiments"] = list(experiments.names())


def smoke_values(config: MutableMapping[str, Any]) -> None:
    """With `smoke: true`, each experiment's own keys that the configuration leaves out take the
    values its folder gives for a smoke run (its descriptor's `smoke`), in place; a key given in
    the file or on the command line keeps its value."""
    if config.get("smoke") is not True:
        return
    for exp in experiments.all_experiments():
        for key, value in exp.smoke.items():
            config.setdefault(key, copy.deepcopy(value))


def check(config: MutableMapping[str, Any], schema: Mapping[str, Any] | None = None) -> list[str]:
    """Validate and complete `config` in place; return warnings (errors raise SettingsError)."""
    schema = schema if schema is not None else load_schema()
    read_command_line(config, schema)
    every_experiment(config)
    smoke_values(config)
    fill_defaults(config, schema)
    validator = jsonschema.Draft202012Validator(schema)
    lines = sorted({line for e in validator.iter_errors(dict(config)) for line in _explain(e, schema)})
    # Problems several experiments share (the same source archive, say) are said once.
    lines += [] if lines else list(dict.fromkeys(cross_key_problems(config)))
    if lines:
        raise SettingsError("invalid configuration:\n  " + "\n  ".join(lines))
    warnings = []
    cores = os.cpu_count() or 1
    high = [t for t in config.get("threads", []) if t > cores]
    if high:
        warnings.append(
            f"config key 'threads': {high} exceed this machine's {cores} cores; such runs measure "
            "time-sharing, not parallelism"
        )
    return warnings


def cross_key_problems(config: Mapping[str, Any]) -> list[str]:
    """Values that are allowed one by one but not together (each experiment's descriptor says
    what it cannot run)."""
    return experiments.problems(config)


def load_file(path: str | Path) -> dict[str, Any]:
    """A YAML config file; a missing or malformed one is one line naming the file (and line)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SettingsError(f"config file not found: {p}") from None
    except OSError as e:
        raise SettingsError(f"config file {p}: cannot be read ({e.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{p}:{mark.line + 1}" if mark is not None else str(p)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise SettingsError(f"config file {where}: not valid YAML ({problem})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"config file {p}: expected keys and values (a mapping) at the top level")
    return data


def environment_problem() -> str | None:
    """What in the environment would make the workflow run the wrong programs (None if fine)."""
    target = os.environ.get("CARGO_TARGET_DIR")
    if target:
        return (
            f"CARGO_TARGET_DIR is set ({target}); the workflow runs the programs from "
            "./target/release, so unset it"
        )
    return None


def _cell(value: Any) -> str:
    """A default as the table shows it: as YAML writes it, in code type."""
    text = yaml.safe_dump(value, default_flow_style=True, width=1000).strip()
    text = text.removesuffix("\n...").removesuffix("...").strip()
    return f"`{text}`"


def keys_table(experiment: str | None = None, shared: bool = False) -> str:
    """The configuration's keys as a Markdown table (key, default, meaning), from the schema:
    the shared keys (`shared`), one experiment's own keys, or every key; the last two also with
    each experiment key's value in a smoke run (`smoke: true`). The README's table of the shared
    keys is this text (a test checks it)."""
    props = load_schema()["properties"]
    if shared:
        with SCHEMA_PATH.open(encoding="utf-8") as f:
            keys = list(yaml.safe_load(f)["properties"])
    elif experiment is not None:
        keys = list(experiments.get(experiment).config)
    else:
        keys = list(props)
    smoke = {} if shared else {k: v for e in experiments.all_experiments() for k, v in e.smoke.items()}
    lines = ["| key | default | meaning |", "| --- | --- | --- |"]
    if not shared:
        lines = ["| key | default | smoke run | meaning |", "| --- | --- | --- | --- |"]
    for key in keys:
        prop = props[key]
        default = "all" if key == "experiments" else _cell(prop.get("default"))
        meaning = " ".join(str(prop.get("description", "")).split()).replace("|", "\\|")
        if shared:
            lines.append(f"| `{key}` | {default} | {meaning} |")
        else:
            small = _cell(smoke[key]) if key in smoke else ""
            lines.append(f"| `{key}` | {default} | {small} | {meaning} |")
    return "\n".join(lines) + "\n"
