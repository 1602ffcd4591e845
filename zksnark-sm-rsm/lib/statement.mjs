// COMPUTATION: the set, its Merkle tree, the authentication path of a random element, and the
// ZoKrates ABI arguments of the proof statement.
import { Pedersen, ZOKRATES_PARAMS } from "./babyjubjub.mjs";
import { padLeaf, treeHash } from "./hash.mjs";
import { MerkleTree, foldPath } from "./merkle.mjs";
import { zokratesProgram } from "./circuits.mjs";

const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

/**
 * Builds one instance. The set holds n independent values uniform in [0, L) (the paper used
 * consecutive ones; a commitment fixes its value only mod L, so each value has one class); for
 * RSM each is committed with its own randomness, uniform in [0, L). The tree is padded with
 * the variant's padding leaf.
 * @returns {{depth, index, root, program, args, steps, statement, commitment, v, r, H, path}}
 */
export async function buildInstance({ statement, hash, variant = "sound", n, rng, log = () => {}, inputs = null }) {
  const th = await treeHash(hash);
  const pedersen = new Pedersen();
  const steps = {};

  let t0 = process.hrtime.bigint();
  const values = Array.from({ length: n }, () => rng.belowL());
  const index = rng.index(n);
  const pad = padLeaf(th, statement, variant);
  let leaves;
  let r;
  let comm;
  let comms = null;
  if (statement === "sm") {
    // Only the proven element needs a commitment: the set itself is plaintexts.
    r = rng.belowL();
    comm = pedersen.commit(values[index], r);
    leaves = values.map(th.smLeaf);
  } else if (statement === "rsm") {
    const rands = Array.from({ length: n }, () => rng.belowL());
    comms = pedersen.commitMany(values, rands);
    r = rands[index];
    comm = comms[index];
    leaves = comms.map(th.rsmLeaf);
  } else {
    throw new Error(`unknown statement '${statement}' (allowed: sm, rsm)`);
  }
  steps.create_set = seconds(t0);
  log(`set of ${n} ${statement === "sm" ? "plaintexts" : "commitments"} created`);

  t0 = process.hrtime.bigint();
  const tree = new MerkleTree(leaves, pad, th.node);
  steps.build_tree = seconds(t0);
  log(`${hash} tree of depth ${tree.depth} built`);

  t0 = process.hrtime.bigint();
  const path = tree.path(index);
  steps.get_auth_path = seconds(t0);

  // The circuit recomputes this; checking here turns a JS bug into a clear error, not a
  // failed witness.
  const root = foldPath(leaves[index], path, th.node);
  if (th.show(root) !== th.show(tree.root)) throw new Error("internal error: path does not fold to the root");

  const v = values[index];
  const H = pedersen.H.map(String);
  // The generated inputs, for the report's digest: the set (and its commitments), the proven
  // index, r and C, the root.
  if (inputs !== null) {
    for (const x of values) inputs.add("set value", x.toString());
    if (statement === "rsm") for (const c of comms) inputs.add("set commitment", c.map(String).join(","));
    inputs.add("proven index", String(index));
    inputs.add("r", r.toString());
    inputs.add("commitment", comm.map(String).join(","));
    inputs.add("root", th.show(tree.root));
  }
  const siblings = path.siblings.map(th.abi);
  const pathArgs = [siblings, path.right];
  const args =
    statement === "sm"
      ? [ZOKRATES_PARAMS, comm.map(String), H, th.abi(tree.root), v.toString(), r.toString(), ...pathArgs]
      : [ZOKRATES_PARAMS, v.toString(), H, th.abi(tree.root), r.toString(), ...pathArgs];

  return {
    depth: tree.depth,
    index,
    root: th.show(tree.root),
    program: zokratesProgram({ statement, hash, depth: tree.depth, variant }),
    variant,
    args,
    steps,
    statement,
    hash,
    commitment: comm.map(String),
    v: v.toString(),
    // For the optimized circuit's input file (decimal strings and direction bits).
    r: r.toString(),
    H,
    path: { siblings: path.siblings.map(th.show), right: path.right },
  };
}
