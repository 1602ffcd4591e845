// Generates the ZoKrates programs (ZoKrates 0.8.x syntax, stdlib gadgets) for the two
// statements, any tree depth, and either tree hash.
//
// The Poseidon programs follow the paper's circuit structure so that they compile to the same
// R1CS size (35091 SM / 35092 RSM constraints at depth 14):
//   * both scalars are split with nonStrictUnpack256 (254 bits, not range-checked) and
//     multiplied with the 256-step variable-base edwardsScalarMult, G taken from the params;
//   * the Baby Jubjub parameter struct is a public input;
//   * each tree level is a conditional on a private bool, and ZoKrates 0.8 evaluates both
//     branches, so a level costs two Poseidon hashes.
// The SHA-256 programs keep the same commitment part but select (left, right) first and hash
// once per level: a SHA-256 costs ~49k constraints, so doubling it would only inflate the circuit.
//
// Two variants of each program:
//   * as-published: exactly the paper's statement, which has two holes. v is split with
//     nonStrictUnpack256 and nothing bounds it, while the commitment v*G + r*H fixes v only mod
//     L (the subgroup order; p is about 8L), so RSM also proves v + kL, and even v + p's bits
//     pass; and the tree's padding leaves are the leaf of v = 0 / of the identity, which
//     anybody opens (the padding is the driver's, see lib/hash.mjs).
//   * sound (the default): v < L asserted and v unpacked into exactly 251 bits (a unique
//     encoding: 2^251 < p), padded with five constant zero bits for the 256-step
//     multiplication; r keeps the paper's unpacking (its range does not matter: any opening
//     of C will do); padding leaves nobody can open.

export const STATEMENTS = ["sm", "rsm"];
export const HASHES = ["poseidon", "sha256"];
export const VARIANTS = ["sound", "as-published"];

/** L, the order of Baby Jubjub's prime subgroup (lib/babyjubjub.mjs has it too). */
const SUBGROUP_ORDER = "2736030358979909402780800718157159386076813972158567259200215660948447373041";

const COMMON_IMPORTS = [
  'import "ecc/edwardsScalarMult" as scalarMult;',
  'import "ecc/edwardsAdd" as add;',
  'import "utils/pack/bool/nonStrictUnpack256" as bits254;',
  'from "ecc/babyjubjubParams" import BabyJubJubParams;',
];

const HASH_IMPORTS = {
  poseidon: ['import "hashes/poseidon/poseidon" as poseidon;'],
  sha256: [
    'import "hashes/sha256/512bitPadded" as sha256;',
    // Strict (range-checked) unpacking: a leaf's SHA-256 input must be the unique encoding.
    'import "utils/pack/bool/unpack256" as strictBits256;',
    'import "utils/casts/bool_256_to_u32_8" as toWords;',
  ],
};

// The type of a tree node and of the array of DEPTH siblings (ZoKrates writes the outer
// dimension first: u32[DEPTH][8] is DEPTH words-of-8).
const NODE_TYPE = { poseidon: "field", sha256: "u32[8]" };
const SIBLINGS_TYPE = { poseidon: "field[DEPTH]", sha256: "u32[DEPTH][8]" };

/**
 * Pedersen commitment v*G + r*H on Baby Jubjub: as the paper computes it, or (sound) with v
 * asserted below L and unpacked strictly.
 */
function commitmentLines(v, r, out, variant) {
  const vBits =
    variant === "sound"
      ? [
          `    assert(${v} < ${SUBGROUP_ORDER});`,
          `    bool[256] vbits = [...[false; 5], ...unpackBits::<251>(${v})];`,
        ]
      : [`    bool[256] vbits = bits254(${v});`];
  return [
    "    field[2] G = [params.Gu, params.Gv];",
    ...vBits,
    "    field[2] vG = scalarMult(vbits, G, params);",
    `    field[2] rH = scalarMult(bits254(${r}), H, params);`,
    `    field[2] ${out} = add(vG, rH, params);`,
  ];
}

function leafLines(statement, hash) {
  if (hash === "poseidon") {
    return statement === "sm"
      ? ["    field mut node = poseidon([0, v]);"]
      : ["    field mut node = poseidon([comm[0], comm[1]]);"];
  }
  return statement === "sm"
    ? ["    u32[8] mut node = sha256([0; 8], toWords(strictBits256(v)));"]
    : ["    u32[8] mut node = sha256(toWords(strictBits256(comm[0])), toWords(strictBits256(comm[1])));"];
}

function pathLines(hash) {
  if (hash === "poseidon") {
    return [
      "    for u32 i in 0..DEPTH {",
      "        node = right[i] ? poseidon([node, siblings[i]]) : poseidon([siblings[i], node]);",
      "    }",
    ];
  }
  return [
    "    for u32 i in 0..DEPTH {",
    "        u32[8] left = right[i] ? node : siblings[i];",
    "        u32[8] rightNode = right[i] ? siblings[i] : node;",
    "        node = sha256(left, rightNode);",
    "    }",
  ];
}

/**
 * The ZoKrates source of one statement.
 * SM  public: params, C, H, root;  private: v, r, path.
 * RSM public: params, v, H, root;  private: r, path.
 */
export function zokratesProgram({ statement, hash, depth, variant = "sound" }) {
  if (!STATEMENTS.includes(statement)) throw new Error(`unknown statement '${statement}'`);
  if (!HASHES.includes(hash)) throw new Error(`unknown hash '${hash}'`);
  if (!VARIANTS.includes(variant)) throw new Error(`unknown variant '${variant}'`);
  if (!Number.isInteger(depth) || depth < 1 || depth > 32) throw new RangeError(`bad depth ${depth}`);

  const node = NODE_TYPE[hash];
  const pathParams = `private ${SIBLINGS_TYPE[hash]} siblings, private bool[DEPTH] right`;
  const lines = [
    `// ${statement.toUpperCase()} with a ${hash} Merkle tree of depth ${depth}, variant ${variant}; generated by zksnark-sm-rsm/lib/circuits.mjs.`,
    ...COMMON_IMPORTS,
    ...(variant === "sound" ? ['import "utils/pack/bool/unpack" as unpackBits;'] : []),
    ...HASH_IMPORTS[hash],
    "",
    `const u32 DEPTH = ${depth};`,
    "",
  ];
  if (statement === "sm") {
    lines.push(
      `def main(BabyJubJubParams params, field[2] C, field[2] H, ${node} root, private field v, private field r, ${pathParams}) {`,
      ...commitmentLines("v", "r", "comm", variant),
      "    assert(comm[0] == C[0] && comm[1] == C[1]);",
    );
  } else {
    lines.push(
      `def main(BabyJubJubParams params, field v, field[2] H, ${node} root, private field r, ${pathParams}) {`,
      ...commitmentLines("v", "r", "comm", variant),
    );
  }
  lines.push(...leafLines(statement, hash), ...pathLines(hash), "    assert(node == root);", "    return;", "}", "");
  return lines.join("\n");
}
