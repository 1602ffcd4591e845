"""Figure 10 of the paper from the tidy table: per-prover/verifier totals, breakdowns, HBC figures.

The breakdown rows follow the paper README's mapping of report entries to Figure 10 rows. A
per-prover (M_k) value is the largest over the mixers, so a slow mixer is never hidden; the
verifier (Q) value is the verifier's total.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.derive.spread import Spread
from analysis.experiments.db_sm_rsm.parser import EXPERIMENT as DB

FSM = "main > forward set membership"
RSM = "main > reverse set membership"
MIX = "main > mixing"
BLS = FSM + " > get_blsigs"
BLS_RE = BLS + " > re-encrypt and reverse-permute BB signatures"
BLSR = RSM + " > get_blsigs_rev"
BLSR_RE = BLSR + " > re-encrypt and permute BBS+ signatures"
BLS_DECRYPT = "decrypt blinded signatures"
BLSR_DECRYPT = "decryption of blinded BBS+ signatures"

Entry = tuple[str, str]  # (section path, label template with {p} for the party)


@dataclass(frozen=True)
class Row:
    label: str
    party: str  # "M" (each mixer) or "Q" (the verifier)
    entries: tuple[Entry, ...]


TOTAL = "{p} total"


def _mixing_rows(bls: str, bls_re: str, sig: str, decrypt: str) -> tuple[Row, ...]:
    """What each mixer does to the encrypted signatures (`sig`: BB or BBS+) under the timer `bls`:
    re-encrypt and shuffle them (`bls_re`), blind them, and decrypt them (the timer `decrypt`)."""
    return (
        Row("(M_k) Re-encryption of encrypted signatures", "M",
            ((bls_re, f"{{p}}: reencrypting encrypted {sig} signatures"),)),
        Row("(M_k) Proof-of-shuffle of encrypted signatures", "M",
            ((bls_re, f"{{p}}: creating proof of shuffle of encrypted {sig} signatures"),
             (bls_re, f"{{p}}: verifying others' proofs of shuffle of encrypted {sig} signatures"))),
        Row("(M_k) Homomorphic blinding of encrypted signatures", "M",
            ((f"{bls} > generate encrypted blinded {sig} signatures", TOTAL),)),
        Row("(M_k) Threshold decryption of encrypted signatures", "M", ((f"{bls} > {decrypt}", TOTAL),)),
    )  # fmt: skip


DBSM_BREAKDOWN: tuple[Row, ...] = (
    Row("(Q) Generating n BB signatures/encryptions", "Q", ((FSM + " > get_verfsigs", TOTAL),)),
    Row("(M_k) Verifying n BB signatures/encryptions", "M", ((FSM + " > check_verfsigs", TOTAL),)),
    *_mixing_rows(BLS, BLS_RE, "BB", BLS_DECRYPT),
    Row("(M_k) Generating n DPK proofs for p_BB", "M", ((FSM + " > dpk_bbsig_nizkproofs", TOTAL),)),
    Row("(Q) Verifying n DPK proofs for p_BB", "Q", ((FSM + " > dpk_bbsig_nizkverifs", TOTAL),)),
)  # fmt: skip

DBRSM_BREAKDOWN: tuple[Row, ...] = (
    Row("(Q) Verifying n PoKs of commitments", "Q", ((RSM + " > pkcommverifs", TOTAL),)),
    Row("(Q) Generating n BBS+ quasi-signatures", "Q", ((RSM + " > get_verfsigs_rev", TOTAL),)),
    Row("(M_k) Verifying n BBS+ quasi-signatures/encryptions", "M",
        ((RSM + " > check_verfsigs_rev", TOTAL),)),
    *_mixing_rows(BLSR, BLSR_RE, "BBS+", BLSR_DECRYPT),
    Row("(M_k) Generating n DPK proofs for p_BBS+", "M",
        ((RSM + " > dpk_bbsplussig_nizkproofs", TOTAL),)),
    Row("(Q) Verifying n DPK proofs for p_BBS+", "Q",
        ((RSM + " > dpk_bbsplussig_nizkverifs", TOTAL),)),
)  # fmt: skip


# Honest-but-curious: the README drops the steps that verify signatures, prove or verify shuffles,
# prove or verify knowledge of blinding factors, and prove or verify decryption shares. Proof
# generation fused into the blinding and decryption timers cannot be separated, so the HBC
# figures are upper bounds (about 240 s and 1150 s in the paper's sample report).
def _signature_checks(check: str, bls: str, bls_re: str, sig: str, decrypt: str) -> tuple[Entry, ...]:
    """The malicious-security steps of a protocol's signatures (`sig`: BB or BBS+): the check of
    the verifier's signatures (timer `check`), the shuffle proofs (`bls_re`), and the checks of
    the blinding factors' PoKs and of the decryption shares (under `bls`)."""
    return (
        (check, "{p}: checking verifier's signatures and encryptions"),
        (bls_re, f"{{p}}: creating proof of shuffle of encrypted {sig} signatures"),
        (bls_re, f"{{p}}: verifying others' proofs of shuffle of encrypted {sig} signatures"),
        (f"{bls} > generate encrypted blinded {sig} signatures",
         "{p}: verifying others' proofs of knowledge of blinding factors"),
        (f"{bls} > {decrypt}", "{p}: verifying others' decryption shares"),
    )  # fmt: skip


HBC_DROP: dict[str, tuple[Entry, ...]] = {
    FSM: _signature_checks(FSM + " > check_verfsigs", BLS, BLS_RE, "BB", BLS_DECRYPT),
    RSM: (
        *_signature_checks(RSM + " > check_verfsigs_rev", BLSR, BLSR_RE, "BBS+", BLSR_DECRYPT),
        (RSM + " > dpk_bbsplussig_nizkproofs",
         "{p}: verifying others' proof of knowledge of openings of shares of z1"),
    ),
    MIX: (
        (MIX + " > re-encryption and permutation", "{p}: creating proof of correct shuffle"),
        (MIX + " > re-encryption and permutation", "{p}: verifying others' proofs of shuffle"),
        (MIX + " > decryption of output messages",
         "{p}: verifying others' decryption shares (batched)"),
    ),
}  # fmt: skip

HBC_NOTE = (
    "Honest-but-curious (HBC) figures: malicious-security steps dropped (signature checks, "
    "shuffle proofs and their verification, verification of blinding-factor PoKs and of "
    "decryption shares, z1 PoK verification). Proof generation fused into the blinding and "
    "decryption timers cannot be separated, so these are upper bounds."
)


def run_frame(df: pd.DataFrame, source: str, run: str) -> pd.DataFrame:
    sel = (df["experiment"] == DB) & (df["source"] == source) & (df["run"] == run)
    return df[sel & (df["metric"] == "time")]


@dataclass(frozen=True)
class DbGroup:
    """The repetitions of one db-sm-rsm parameter set; its figures are medians over them."""

    source: str
    n: int
    m: int
    threads: int | None
    curve: str | None
    mode: str | None
    security: str | None
    runs: tuple[str, ...]
    # The host that ran them, where the runs of one results directory come from several (a
    # cluster): figures of different machines are never pooled.
    host: str | None = None

    @property
    def name(self) -> str:
        s = f"{self.source} m={self.m} n={self.n}"
        if self.source != "paper":
            s += f" t={self.threads} {self.curve} {self.mode}"
            if self.security:
                s += f" sec={self.security}"
        if self.host:
            s += f" on {self.host}"
        if len(self.runs) > 1:
            s += f" ({len(self.runs)} reps)"
        return s

    @property
    def at_paper_setting(self) -> bool:
        """The paper's workload: n = 10000 entries, m = 4 mix-servers."""
        return (self.n, self.m) == (10000, 4)


def _opt_str(v: object) -> str | None:
    return None if v is None or pd.isna(v) else str(v)  # type: ignore[call-overload]


def _opt_int(v: object) -> int | None:
    return None if v is None or pd.isna(v) else int(v)  # type: ignore[call-overload]


def db_groups(df: pd.DataFrame) -> list[DbGroup]:
    """Every db-sm-rsm parameter set (paper first), with the runs that repeat it. Only runs in one
    process: a run over TLS (`variant` tls/<network>) times its steps with the waits for other
    processes in them, another quantity (analysis.experiments.db_sm_rsm.network compares it)."""
    d = df[df["experiment"] == DB]
    d = d[~d["variant"].fillna("").astype(str).str.startswith("tls/")]
    # Hosts are told apart only when the runs come from more than one.
    hosts = d[d["source"] == "ours"]["machine"].fillna("").str.split(":").str[0].unique()
    several = len(hosts) > 1
    keyed: dict[
        tuple[str, int, int, int | None, str | None, str | None, str | None], dict[str | None, list[str]]
    ]
    keyed = {}
    for (source, run), g in d.groupby(["source", "run"], sort=True):
        first = g.iloc[0]
        key = (str(source), int(first["n"]), int(first["m"]), _opt_int(first["threads"]),
               _opt_str(first["curve"]), _opt_str(first["mode"]), _opt_str(first["security"]))  # fmt: skip
        host = str(first["machine"]).split(":")[0] if several and source == "ours" else None
        keyed.setdefault(key, {}).setdefault(host, []).append(str(run))
    groups = [DbGroup(*k, tuple(v), h) for k, by_host in keyed.items() for h, v in by_host.items()]
    return sorted(groups, key=lambda g: (g.source != "paper", g.m, g.n, g.threads or 0, g.name))


def group_spread(df: pd.DataFrame, g: DbGroup, fn: Callable[[pd.DataFrame], float]) -> Spread:
    """fn(run) over the group's repetitions: median, min, max and count."""
    return Spread.of(fn(run_frame(df, g.source, r)) for r in g.runs)


def group_median(df: pd.DataFrame, g: DbGroup, fn: Callable[[pd.DataFrame], float]) -> float:
    """Median over the group's repetitions of fn(run); NaN if no repetition has a value."""
    return group_spread(df, g, fn).median


def group_ok(df: pd.DataFrame, g: DbGroup) -> bool:
    rows = df[(df["experiment"] == DB) & (df["source"] == g.source) & (df["run"].isin(list(g.runs)))]
    return bool(rows["run_ok"].all())


def _value(run: pd.DataFrame, section: str, label: str) -> float:
    hit = run[(run["section"] == section) & (run["label"] == label)]["value"]
    return float(hit.sum()) if len(hit) else float("nan")


def mixers(run: pd.DataFrame) -> list[str]:
    parties = run["party"].dropna().unique()
    ms = sorted((str(p) for p in parties if str(p).startswith("mixer ")), key=lambda s: int(s.split()[1]))
    return ms


def party_value(run: pd.DataFrame, entries: tuple[Entry, ...], party: str) -> float:
    """Sum of the mapped entries for one party; NaN if any entry is missing."""
    vals = [_value(run, sec, tmpl.format(p=party)) for sec, tmpl in entries]
    return float(np.sum(vals)) if not any(np.isnan(vals)) else float("nan")


def row_value(run: pd.DataFrame, row: Row) -> float:
    """Figure 10 value of a row: the verifier's, or the largest over mixers."""
    if row.party == "Q":
        return party_value(run, row.entries, "verifier")
    vals = [party_value(run, row.entries, p) for p in mixers(run)]
    vals = [v for v in vals if not np.isnan(v)]
    return max(vals) if vals else float("nan")


def section_total(run: pd.DataFrame, section: str, party_kind: str) -> float:
    return row_value(run, Row("", party_kind, ((section, TOTAL),)))


def hbc_total(run: pd.DataFrame, section: str) -> float:
    """Per-prover total of a section with the malicious-security steps removed (max over mixers)."""
    drop = HBC_DROP[section]
    vals = []
    for p in mixers(run):
        total = _value(run, section, f"{p} total")
        dropped = [_value(run, sec, tmpl.format(p=p)) for sec, tmpl in drop]
        if np.isnan(total):
            continue
        # A step our implementation does not time is not subtracted (NaN -> 0).
        vals.append(total - float(np.nansum(dropped)))
    return max(vals) if vals else float("nan")


def breakdown(run: pd.DataFrame, rows: tuple[Row, ...]) -> list[tuple[str, float]]:
    return [(r.label, row_value(run, r)) for r in rows]


def total_fn(section: str, party_kind: str) -> Callable[[pd.DataFrame], float]:
    """section_total as a one-argument function of a run, for group_median."""
    return lambda run: section_total(run, section, party_kind)


def row_fn(row: Row) -> Callable[[pd.DataFrame], float]:
    """row_value as a one-argument function of a run, for group_median."""
    return lambda run: row_value(run, row)


# ---- Figure 10's tables --------------------------------------------------------------------------

# The rows of Figure 10's top table that DB-SM, DB-RSM and the mixing give; a study sets the other
# systems' rows under them (analysis.experiments.db_sm_rsm.beside).
TOP_ROWS = (
    "DB-SM - M_k (per prover)",
    "DB-SM - Q (verifier)",
    "DB-RSM - M_k (per prover)",
    "DB-RSM - Q (verifier)",
    "Mixing - M_k (per mixer)",
    "DB-SM - M_k, HBC",
    "DB-RSM - M_k, HBC",
    "Mixing - M_k, HBC",
)
TOP_FNS: tuple[Callable[[pd.DataFrame], float], ...] = (
    total_fn(FSM, "M"),
    total_fn(FSM, "Q"),
    total_fn(RSM, "M"),
    total_fn(RSM, "Q"),
    total_fn(MIX, "M"),
    lambda f: hbc_total(f, FSM),
    lambda f: hbc_total(f, RSM),
    lambda f: hbc_total(f, MIX),
)


@dataclass
class TopTable:
    table: pd.DataFrame  # TOP_ROWS and the rows set beside them, one column per run; Spread or float cells
    failed: list[str]  # column names whose runs have a failed status


def figure10_top(
    df: pd.DataFrame, others: pd.DataFrame | None = None, others_failed: tuple[str, ...] = ()
) -> TopTable:
    """One column per db parameter set (paper first) with its TOP_ROWS; `others`, rows of other
    systems by column (a db parameter set's name, or a column of their own), go under them, and
    `others_failed` names their columns whose runs failed."""
    cols: dict[str, dict[str, object]] = {}
    failed = set(others_failed)
    for g in db_groups(df):
        cols[g.name] = {row: group_spread(df, g, fn) for row, fn in zip(TOP_ROWS, TOP_FNS, strict=True)}
        if not group_ok(df, g):
            failed.add(g.name)
    rows = list(TOP_ROWS)
    if others is not None:
        rows += [str(r) for r in others.index]
        for name, column in others.items():
            cols.setdefault(str(name), {}).update(column.to_dict())
    table = pd.DataFrame(cols, index=rows, dtype=object)
    return TopTable(table=table, failed=[c for c in table.columns if c in failed])


def breakdown_table(df: pd.DataFrame, rows: tuple[Row, ...]) -> pd.DataFrame:
    """One of the Figure 10 breakdown tables (README mapping), one column per db parameter set."""
    cols: dict[str, dict[str, Spread]] = {}
    for g in db_groups(df):
        cols[g.name] = {r.label: group_spread(df, g, row_fn(r)) for r in rows}
    return pd.DataFrame(cols, index=[r.label for r in rows], dtype=object)
