// Fast checks of the JS building blocks against independent implementations and known vectors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { buildBabyjub } from "circomlibjs";
import * as bj from "../lib/babyjubjub.mjs";
import { P } from "../lib/field.mjs";
import { padLeaf, poseidonHasher, treeHash, u32Words } from "../lib/hash.mjs";
import { MerkleTree, depthFor, foldPath } from "../lib/merkle.mjs";
import { Rng, parseSeed, streamKey } from "../lib/rng.mjs";
import { seedHex } from "./helpers.mjs";
import { zokratesProgram } from "../lib/circuits.mjs";

// Vectors from shared/specs/zksnark-sm-rsm.md §3 (circomlib's and ZoKrates's Poseidon).
const POSEIDON_VECTORS = [
  [[1n, 2n], 7853200120776062878684798364095072458815029376092732009249414926327459813530n],
  [[0n, 0n], 14744269619966411208579211824598458697587494354926760081771325075741142829156n],
  [[1n], 18586133768512220936620570745912940619677854269274689475585506675881198879027n],
];

test("circomlibjs Poseidon matches the spec's vectors", async () => {
  const h = await poseidonHasher();
  for (const [xs, want] of POSEIDON_VECTORS) assert.equal(h.hash(xs), want, `Poseidon(${xs})`);
});

test("Baby Jubjub: our arithmetic agrees with circomlibjs's babyjub", async () => {
  const cj = await buildBabyjub();
  const F = cj.F;
  const toCj = ([x, y]) => [F.e(x), F.e(y)];
  const fromCj = ([x, y]) => [F.toObject(x), F.toObject(y)];
  assert.ok(cj.inCurve(toCj(bj.G)));
  const rng = new Rng(seedHex(7));
  const pedersen = new bj.Pedersen();
  for (let i = 0; i < 3; i++) {
    const v = rng.fieldElement();
    const r = rng.fieldElement();
    const want = cj.addPoint(cj.mulPointEscalar(toCj(bj.G), v), cj.mulPointEscalar(toCj(pedersen.H), r));
    assert.deepEqual(pedersen.commit(v, r), fromCj(want));
    assert.deepEqual(bj.mul(bj.G, v), fromCj(cj.mulPointEscalar(toCj(bj.G), v)));
  }
  const a = bj.mul(bj.G, 5n);
  const b = bj.mul(pedersen.H, 9n);
  assert.deepEqual(bj.add(a, b), fromCj(cj.addPoint(toCj(a), toCj(b))));
  assert.deepEqual(pedersen.commit(0n, 0n), bj.IDENTITY);
});

test("Pedersen H is on the curve, in the prime-order subgroup, and not G", async () => {
  const cj = await buildBabyjub();
  const H = bj.derivePedersenH();
  assert.ok(bj.onCurve(H));
  assert.ok(cj.inSubgroup([cj.F.e(H[0]), cj.F.e(H[1])]));
  assert.notDeepEqual(H, bj.G);
  assert.deepEqual(bj.mul(H, bj.L), bj.IDENTITY);
});

test("batch commitments equal one-by-one commitments", () => {
  const rng = new Rng(seedHex(11));
  const pedersen = new bj.Pedersen();
  const vs = Array.from({ length: 20 }, () => rng.fieldElement());
  const rs = Array.from({ length: 20 }, () => rng.fieldElement());
  const many = pedersen.commitMany(vs, rs);
  vs.forEach((v, i) => assert.deepEqual(many[i], bj.add(bj.mul(bj.G, v), bj.mul(pedersen.H, rs[i]))));
});

test("tree depth is ceil(log2 n)", () => {
  assert.equal(depthFor(10000), 14);
  assert.equal(depthFor(16), 4);
  assert.equal(depthFor(17), 5);
  assert.equal(depthFor(2), 1);
  assert.throws(() => depthFor(1), RangeError);
});

test("Merkle paths fold to the root for every leaf, and a changed sibling does not", async () => {
  for (const name of ["poseidon", "sha256"]) {
    const th = await treeHash(name);
    const leaves = [1n, 2n, 3n, 4n, 5n].map(th.smLeaf);
    const tree = new MerkleTree(leaves, th.smLeaf(0n), th.node);
    assert.equal(tree.depth, 3);
    for (let i = 0; i < leaves.length; i++) {
      const path = tree.path(i);
      assert.equal(th.show(foldPath(leaves[i], path, th.node)), th.show(tree.root));
      const bad = { ...path, siblings: path.siblings.slice() };
      bad.siblings[1] = th.smLeaf(99n);
      assert.notEqual(th.show(foldPath(leaves[i], bad, th.node)), th.show(tree.root));
    }
    assert.throws(() => tree.path(5), RangeError);
  }
});

test("SHA-256 tree hash is plain SHA-256 of two big-endian words", async () => {
  const th = await treeHash("sha256");
  const want = createHash("sha256").update(Buffer.alloc(32 + 31)).update(Buffer.from([5])).digest();
  assert.deepEqual(th.smLeaf(5n), want);
  assert.deepEqual(u32Words(Buffer.from("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "hex")).slice(0, 2), [
    "0x00010203",
    "0x04050607",
  ]);
});

test("seeded RNG is reproducible and separated by domain; values below p and below L; indices in range", () => {
  const a = new Rng(seedHex(42));
  const b = new Rng(seedHex(42));
  const c = new Rng(seedHex(43));
  const d = new Rng(seedHex(42), "zksnark-sm-rsm/other");
  const xa = [a.fieldElement(), a.fieldElement()];
  assert.deepEqual(xa, [b.fieldElement(), b.fieldElement()]);
  assert.notDeepEqual(xa, [c.fieldElement(), c.fieldElement()]);
  assert.notDeepEqual(xa, [d.fieldElement(), d.fieldElement()]);
  const os = new Rng();
  let high = 0;
  for (let i = 0; i < 200; i++) {
    const x = os.fieldElement();
    assert.ok(x >= 0n && x < P);
    const y = os.belowL();
    assert.ok(y >= 0n && y < bj.L);
    if (y >= bj.L / 2n) high++;
    const k = os.index(7);
    assert.ok(k >= 0 && k < 7);
  }
  assert.ok(high > 50, "values below L are spread over [0, L)");
  // The stream key is measure::seed's: SHA-256(len(domain) as 8 bytes BE || domain || seed).
  const seed = seedHex(1);
  const len = Buffer.alloc(8);
  len.writeBigUInt64BE(3n);
  const want = createHash("sha256").update(len).update("abc").update(Buffer.from(seed, "hex")).digest();
  assert.deepEqual(streamKey(seed, "abc"), want);
  for (const bad of ["42", "x".repeat(64), seedHex(1).slice(1)]) assert.throws(() => parseSeed(bad), /64 hexadecimal digits/);
});

test("padding leaves: the sound one is the hashed domain constant, the as-published ones open to 0", async () => {
  const th = await treeHash("poseidon");
  const digest = createHash("sha256").update("traceable-mixnets/zksnark-sm-rsm/padding-leaf").digest();
  assert.equal(padLeaf(th, "sm", "sound"), BigInt(`0x${digest.toString("hex")}`) % P);
  assert.equal(padLeaf(th, "rsm", "sound"), padLeaf(th, "sm", "sound"));
  assert.equal(padLeaf(th, "sm", "as-published"), th.smLeaf(0n));
  assert.equal(padLeaf(th, "rsm", "as-published"), th.rsmLeaf(bj.IDENTITY));
  const sha = await treeHash("sha256");
  assert.deepEqual(padLeaf(sha, "sm", "sound"), digest);
  assert.throws(() => padLeaf(th, "sm", "other"));
});

test("generated programs: depth, public inputs and hash-specific path", () => {
  const sm = zokratesProgram({ statement: "sm", hash: "poseidon", depth: 14 });
  assert.match(sm, /const u32 DEPTH = 14;/);
  assert.match(sm, /def main\(BabyJubJubParams params, field\[2\] C, field\[2\] H, field root, private field v, private field r/);
  assert.match(sm, /poseidon\(\[node, siblings\[i\]\]\) : poseidon\(\[siblings\[i\], node\]\)/);
  const rsm = zokratesProgram({ statement: "rsm", hash: "sha256", depth: 3 });
  assert.match(rsm, /def main\(BabyJubJubParams params, field v, field\[2\] H, u32\[8\] root, private field r, private u32\[DEPTH\]\[8\] siblings/);
  assert.throws(() => zokratesProgram({ statement: "xx", hash: "poseidon", depth: 3 }));
  assert.throws(() => zokratesProgram({ statement: "sm", hash: "md5", depth: 3 }));
  assert.throws(() => zokratesProgram({ statement: "sm", hash: "poseidon", depth: 3, variant: "other" }));
  // The sound variant bounds v below L and unpacks it strictly; the paper's does neither.
  const sound = zokratesProgram({ statement: "rsm", hash: "poseidon", depth: 3 });
  assert.match(sound, /assert\(v < 2736030358979909402780800718157159386076813972158567259200215660948447373041\);/);
  assert.match(sound, /bool\[256\] vbits = \[\.\.\.\[false; 5\], \.\.\.unpackBits::<251>\(v\)\];/);
  const published = zokratesProgram({ statement: "rsm", hash: "poseidon", depth: 3, variant: "as-published" });
  assert.match(published, /bool\[256\] vbits = bits254\(v\);/);
  assert.doesNotMatch(published, /assert\(v </);
});

test("the ZoKrates stdlib Poseidon gives the same vectors (so JS trees match the circuit)", async () => {
  const zok = await import("../lib/zokrates.mjs");
  for (const arity of [1, 2]) {
    const src = `import "hashes/poseidon/poseidon" as poseidon;\ndef main(private field[${arity}] x) -> field {\n    return poseidon(x);\n}\n`;
    const artifacts = await zok.compile(src);
    for (const [xs, want] of POSEIDON_VECTORS.filter(([xs]) => xs.length === arity)) {
      const { output } = await zok.computeWitness(artifacts, [xs.map(String)]);
      assert.equal(JSON.parse(output), want.toString(), `ZoKrates Poseidon(${xs})`);
    }
  }
});

test("every fix code a report prints has its row in docs/fixes.md, and both circuits print the same", async () => {
  const { readFileSync } = await import("node:fs");
  const { fixes } = await import("../lib/driver.mjs");
  const doc = readFileSync(new URL("../docs/fixes.md", import.meta.url), "utf8");
  assert.deepEqual(fixes("as-published"), []);
  for (const line of fixes("sound")) {
    const code = line.split(":")[0];
    assert.ok(doc.includes(`\n| ${code} |`), `${code} has no row in docs/fixes.md`);
  }
  // The optimized circuit's Variant::fixes prints the same lines (zksnark-optimized's report).
  const rust = readFileSync(new URL("../optimized/src/statement.rs", import.meta.url), "utf8").replace(/\\\n\s*/g, "");
  for (const line of fixes("sound")) assert.ok(rust.includes(line), `optimized/src/statement.rs lacks "${line}"`);
});
