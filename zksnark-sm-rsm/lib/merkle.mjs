// Merkle tree built outside the circuit: leaves padded to 2^depth, node = H(left, right).

/** depth = ceil(log2 n), the paper's tree depth (14 for n = 10000). */
export function depthFor(n) {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`n must be an integer >= 2, got ${n}`);
  let d = 0;
  while (2 ** d < n) d++;
  return d;
}

export class MerkleTree {
  /**
   * @param leaves the n leaf values
   * @param pad the leaf value that fills positions n .. 2^depth - 1
   * @param node (left, right) -> parent
   */
  constructor(leaves, pad, node) {
    this.n = leaves.length;
    this.depth = depthFor(this.n);
    const width = 2 ** this.depth;
    const level0 = leaves.slice();
    while (level0.length < width) level0.push(pad);
    this.levels = [level0];
    for (let k = 0; k < this.depth; k++) {
      const below = this.levels[k];
      const above = new Array(below.length / 2);
      for (let i = 0; i < above.length; i++) above[i] = node(below[2 * i], below[2 * i + 1]);
      this.levels.push(above);
    }
  }

  get root() {
    return this.levels[this.depth][0];
  }

  /**
   * The authentication path of leaf `index`, from the leaf up: siblings and direction bits.
   * right[k] = true means the sibling is on the right at level k, so the parent is H(node, sib).
   */
  path(index) {
    if (!Number.isInteger(index) || index < 0 || index >= this.n) {
      throw new RangeError(`index ${index} outside 0..${this.n - 1}`);
    }
    const siblings = [];
    const right = [];
    let i = index;
    for (let k = 0; k < this.depth; k++) {
      siblings.push(this.levels[k][i ^ 1]);
      right.push((i & 1) === 0);
      i >>= 1;
    }
    return { siblings, right };
  }
}

/** Fold a path from a leaf to the root it implies (the circuit's computation, in JS). */
export function foldPath(leaf, { siblings, right }, node) {
  let acc = leaf;
  for (let k = 0; k < siblings.length; k++) {
    acc = right[k] ? node(acc, siblings[k]) : node(siblings[k], acc);
  }
  return acc;
}
