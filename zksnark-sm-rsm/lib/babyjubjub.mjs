// Baby Jubjub in the form the ZoKrates stdlib uses (ecc/babyjubjubParams): twisted Edwards
// a*x^2 + y^2 = 1 + d*x^2*y^2 over the BN254 scalar field, ethsnarks generator G.
//
// circomlibjs has the same curve, but its mulPointEscalar (affine, one field division per
// addition) costs ~40 ms here; the RSM set needs 2n of them (n = 10000), so commitments are
// computed with extended coordinates and fixed-base window tables instead. The tests check this
// code against circomlibjs's babyjub.
import { createHash } from "node:crypto";
import { P, mod, inv, batchInv } from "./field.mjs";

export const A = 168700n;
export const D = 168696n;
// Order of the whole group (cofactor 8 times the prime subgroup order L).
export const ORDER = 21888242871839275222246405745257275088614511777268538073601725287587578984328n;
export const L = ORDER / 8n;
export const IDENTITY = [0n, 1n];
export const G = [
  16540640123574156134436876038791482806971768689494387082833631921987005038935n,
  20819045374670962167435360035096875258406992893633759881276124905556507972311n,
];

/** The stdlib's BabyJubJubParams struct, as ZoKrates ABI JSON (decimal strings). */
export const ZOKRATES_PARAMS = {
  JUBJUB_C: "8",
  JUBJUB_A: A.toString(),
  JUBJUB_D: D.toString(),
  MONT_A: "168698",
  MONT_B: "1",
  INFINITY: ["0", "1"],
  Gu: G[0].toString(),
  Gv: G[1].toString(),
};

export function onCurve([x, y]) {
  const xx = (x * x) % P;
  const yy = (y * y) % P;
  return mod(A * xx + yy - 1n - D * ((xx * yy) % P)) === 0n;
}

/** Affine addition, the same formula as the stdlib's edwardsAdd. */
export function add([x1, y1], [x2, y2]) {
  const t = (D * ((((x1 * x2) % P) * ((y1 * y2) % P)) % P)) % P;
  const x3 = mod((x1 * y2 + y1 * x2) * inv(1n + t));
  const y3 = mod((y1 * y2 - A * ((x1 * x2) % P)) * inv(1n - t + P));
  return [x3, y3];
}

// Extended coordinates (X:Y:T:Z), x = X/Z, y = Y/Z, T = XY/Z. The addition law
// (Hisil-Wong-Carter-Dawson 2008) is complete on Baby Jubjub (a square, d non-square).
const toExt = ([x, y]) => [x, y, (x * y) % P, 1n];

function addExt([X1, Y1, T1, Z1], [X2, Y2, T2, Z2]) {
  const a = (X1 * X2) % P;
  const b = (Y1 * Y2) % P;
  const c = (((D * T1) % P) * T2) % P;
  const d = Z2 === 1n ? Z1 : (Z1 * Z2) % P;
  const e = mod((X1 + Y1) * (X2 + Y2) - a - b);
  const f = mod(d - c);
  const g = (d + c) % P;
  const h = mod(b - A * a);
  return [(e * f) % P, (g * h) % P, (e * h) % P, (f * g) % P];
}

function normalizeMany(points) {
  const zInv = batchInv(points.map((p) => p[3]));
  return points.map(([X, Y], i) => [(X * zInv[i]) % P, (Y * zInv[i]) % P]);
}

/** Variable-base double-and-add (used once per run, for the proven element). */
export function mul(pt, k) {
  if (k < 0n) throw new RangeError("negative scalar");
  let acc = toExt(IDENTITY);
  let base = toExt(pt);
  for (let e = k; e > 0n; e >>= 1n) {
    if (e & 1n) acc = addExt(acc, base);
    base = addExt(base, base);
  }
  return normalizeMany([acc])[0];
}

const WINDOW = 8;
const WINDOWS = 256 / WINDOW;

/** Tables j * 2^(8i) * B for the fixed bases of many commitments. */
export class FixedBase {
  constructor(base) {
    const rows = [];
    let start = toExt(base);
    for (let i = 0; i < WINDOWS; i++) {
      const row = [toExt(IDENTITY)];
      for (let j = 1; j < 1 << WINDOW; j++) row.push(addExt(row[j - 1], start));
      start = addExt(row[(1 << WINDOW) - 1], start);
      rows.push(row);
    }
    // Affine entries (Z = 1) make every later addition a cheaper mixed one.
    const flat = normalizeMany(rows.flat()).map(toExt);
    this.rows = [];
    for (let i = 0; i < WINDOWS; i++) this.rows.push(flat.slice(i << WINDOW, (i + 1) << WINDOW));
  }

  /** k * B in extended coordinates, for 0 <= k < 2^256. */
  mulExt(k, acc = toExt(IDENTITY)) {
    if (k < 0n || k >> 256n) throw new RangeError("scalar out of range");
    for (let i = 0; i < WINDOWS; i++) {
      const digit = Number((k >> BigInt(i * WINDOW)) & 0xffn);
      if (digit) acc = addExt(acc, this.rows[i][digit]);
    }
    return acc;
  }
}

/**
 * Pedersen's second generator H: hashed to the curve (try-and-increment on y) and multiplied
 * by the cofactor, so nobody knows log_G(H) and H lies in the prime-order subgroup.
 */
export function derivePedersenH() {
  for (let ctr = 0; ; ctr++) {
    const digest = createHash("sha256").update(`traceable-mixnets/zksnark-sm-rsm/pedersen-H/${ctr}`).digest();
    const y = mod(BigInt(`0x${digest.toString("hex")}`));
    const yy = (y * y) % P;
    const den = mod(A - D * yy);
    if (den === 0n) continue;
    const xx = mod((1n - yy) * inv(den));
    const x = sqrt(xx);
    if (x === null) continue;
    const h = mul([x < P - x ? x : P - x, y], 8n);
    if (h[0] !== 0n) return h;
  }
}

/** Square root mod P (Tonelli-Shanks), or null for a non-residue. */
export function sqrt(n) {
  n = mod(n);
  if (n === 0n) return 0n;
  const pow = (b, e) => {
    let r = 1n;
    b %= P;
    for (; e > 0n; e >>= 1n) {
      if (e & 1n) r = (r * b) % P;
      b = (b * b) % P;
    }
    return r;
  };
  if (pow(n, (P - 1n) / 2n) !== 1n) return null;
  let q = P - 1n;
  let s = 0n;
  while ((q & 1n) === 0n) {
    q >>= 1n;
    s++;
  }
  let z = 2n;
  while (pow(z, (P - 1n) / 2n) !== P - 1n) z++;
  let m = s;
  let c = pow(z, q);
  let t = pow(n, q);
  let r = pow(n, (q + 1n) / 2n);
  while (t !== 1n) {
    let i = 0n;
    let t2 = t;
    while (t2 !== 1n) {
      t2 = (t2 * t2) % P;
      i++;
    }
    const b = pow(c, 1n << (m - i - 1n));
    m = i;
    c = (b * b) % P;
    t = (t * c) % P;
    r = (r * b) % P;
  }
  return r;
}

/** Pedersen commitments v_i*G + r_i*H for many (v_i, r_i), affine. */
export class Pedersen {
  constructor(h = derivePedersenH()) {
    this.H = h;
    this.tableG = new FixedBase(G);
    this.tableH = new FixedBase(h);
  }

  commitMany(vs, rs) {
    const ext = vs.map((v, i) => this.tableH.mulExt(rs[i], this.tableG.mulExt(v)));
    return normalizeMany(ext);
  }

  commit(v, r) {
    return this.commitMany([v], [r])[0];
  }
}
