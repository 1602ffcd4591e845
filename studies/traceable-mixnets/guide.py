"""How the report words the paper's comparison: the paragraph and the terms of "How to read this
report" (M_k, Q, HBC, Figure 10, the 2x rule, n proofs, reproduced), and the words around the
claims of the paper's README on page one, in the appendix and on the terminal."""

from __future__ import annotations

from analysis.derive.claims import REPRODUCED_FACTOR
from analysis.render.chapter import ClaimWords
from analysis.render.context import Context

INTRO = (
    "The paper (Traceable mixnets, PETS 2024) proposes DB-SM and DB-RSM: distributed proofs, made "
    "jointly by the m mix-servers of a mixnet, that an input is among the outputs (set membership) "
    "and that an output came from some input (reverse set membership). It compares them with a "
    "collaborative zkSNARK and with a cpSNARK. This report reruns those measurements with our "
    "implementations and puts the paper's published figures beside ours."
)


def terms(ctx: Context) -> list[str]:
    """The terms the paper's comparison uses, as bullets of the reading guide."""
    return [
        "<b>M_k</b>: the time of one mix-server (a prover). A protocol step is only as fast as its slowest "
        "mixer, so the report shows the largest of the m mixers' totals.",
        "<b>Q</b>: the verifier, who checks the mixers' proofs.",
        "<b>HBC</b> (honest-but-curious): if the mixers are trusted to follow the protocol, the steps that "
        "exist only to catch a cheating mixer (proofs of shuffle, checks of others' proofs) can be left "
        "out. The HBC rows subtract those steps; proof generation that shares a timer with other work "
        "cannot be separated, so HBC figures are upper bounds.",
        "<b>Figure 10</b>: the paper's table of per-prover and verifier times at n = 10000 entries and "
        "m = 4 mix-servers, with its per-step breakdowns.",
        f"<b>The 2x rule</b>: the paper estimates a collaborative zkSNARK (m provers proving jointly over "
        f"secret shares of the witness) as 2 x n x the time of one single-prover proof, per prover. This "
        f"factor is an assumption taken from the literature, not a measurement; this report uses "
        f"{float(ctx.setting('collab_factor')):g} for our columns (the config key collab_factor) and 2 "
        f"for the paper's.",
        "<b>n proofs</b>: the single-prover systems prove one membership per proof, so their totals are "
        "n x one measured proof (extrapolated, as the paper does); DB-SM and DB-RSM are measured at n.",
        f"<b>Reproduced</b>: our figure is of the paper's workload (n = 10000, m = 4), made the paper's "
        f"way (our DB-SM and DB-RSM in the paper's mode with its challenge lengths), and within "
        f"{REPRODUCED_FACTOR:g}x of the paper's figure. The machines differ (the paper: Intel Xeon W-1270 "
        f"at 3.4 GHz, one core; ours: on page 1), and so do the libraries. Figures of our fast "
        f"mode are improvements, not reproductions. At another n the report shows figures per entry "
        f"(total / n) and prints no ratio of two different workloads.",
    ]


CLAIM_WORDS = ClaimWords(
    claims="the paper claims",
    published="paper",
    stated="README",
    measured="ours, collaborative factor measured",
    caption="The paper's claims beside ours (the paper's figures recomputed from its sample reports; in "
    "full, with the README's rounding and how ours was made: appendix B).",
    none="No claim of the paper's README is covered by these runs",
    title="The paper's claims in full, recomputed, beside ours",
    ref="Appendix: the paper's claims in full",
    intro="Each row is a number the paper's README states. 'paper (exact)' recomputes it from the "
    "paper's own sample reports; 'paper (README rounding)' repeats the README's arithmetic (it cut "
    "one-proof times to the digits it quotes, 2.178 s to 2.17 s, and speed-ups to whole numbers). "
    "'ours' is the same quantity from our runs; the verdict says how the two compare.",
    note="Times in seconds, ratios with an x. The README's figures and the paper's recomputed ones are "
    "printed as stated, not rounded to three digits, so that the README's rounding shows.",
    table="The paper's claims, recomputed, beside ours",
    arithmetic="README rounding: one-proof times cut (not rounded) to the digits the README quotes "
    "(2.178 s -> 2.17 s from the PROVER real line; 225.77 ms -> 220 ms; 783.71 ms -> 783 ms),"
    "\nspeed-ups cut to whole numbers. Collaborative estimate = 2 x n x one proof (README).",
)
