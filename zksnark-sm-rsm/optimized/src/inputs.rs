//! The input file the driver (`zksnark-sm-rsm/run.mjs`) writes for this circuit: one JSON
//! object of decimal strings, the same values the ZoKrates program gets.
//!
//! ```json
//! {"statement": "sm", "hash": "poseidon", "H": ["..", ".."], "C": ["..", ".."], "root": "..", "v": "..", "r": "..",
//!  "siblings": ["..", ...], "right": [true, ...]}
//! ```
//!
//! RSM has no `C` (the circuit computes it). `"hash"` is `"poseidon"` (tree nodes are decimal
//! field elements) or `"sha256"` (tree nodes are 64 hexadecimal digits, the digest's bytes).
//! `H` must be the suite's Pedersen H, which the circuit has built in: a file from another
//! derivation is refused rather than proven against the wrong generator.

use std::path::Path;
use std::str::FromStr;

use ark_bn254::Fr;
use serde_json::Value;
use zksnark_prover::Error;

use crate::primitives::babyjubjub::{pedersen_h, Point};
use crate::statement::{
    Assignment, Node, Public, Statement, TreeHash, Variant, Witness, MAX_DEPTH,
};

/// One input file, read and checked: which circuit it is for and the values to prove.
pub struct Inputs {
    /// SM or RSM (`"statement"`).
    pub statement: Statement,
    /// The circuit variant to build.
    pub variant: Variant,
    /// The tree's hash (`"hash"`).
    pub hash: TreeHash,
    /// The tree's depth: the number of siblings.
    pub depth: usize,
    /// The public inputs and the witness.
    pub assignment: Assignment,
}

struct Reader<'a> {
    path: &'a Path,
    obj: &'a serde_json::Map<String, Value>,
}

impl Reader<'_> {
    fn err(&self, msg: impl Into<String>) -> Error {
        Error::format(self.path, msg.into())
    }

    fn get(&self, key: &str) -> Result<&Value, Error> {
        self.obj
            .get(key)
            .ok_or_else(|| self.err(format!("missing key \"{key}\"")))
    }

    fn field_value(&self, what: &str, v: &Value) -> Result<Fr, Error> {
        let s = v
            .as_str()
            .ok_or_else(|| self.err(format!("{what} must be a decimal string, got {v}")))?;
        Fr::from_str(s)
            .ok()
            .filter(|x| zksnark_prover::snark::decimal(x) == s)
            .ok_or_else(|| {
                self.err(format!(
                    "{what} ({s:?}) is not a canonical decimal below the BN254 scalar field modulus"
                ))
            })
    }

    fn node(&self, what: &str, v: &Value, hash: TreeHash) -> Result<Node, Error> {
        if hash == TreeHash::Poseidon {
            return Ok(Node::Field(self.field_value(what, v)?));
        }
        let digest = v
            .as_str()
            .filter(|s| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|s| {
                (0..32)
                    .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
                    .collect::<Option<Vec<u8>>>()
            })
            .ok_or_else(|| {
                self.err(format!(
                    "{what} must be a SHA-256 digest (64 hex digits), got {v}"
                ))
            })?;
        Ok(Node::Digest(digest.try_into().expect("32 bytes")))
    }

    fn field(&self, key: &str) -> Result<Fr, Error> {
        self.field_value(&format!("\"{key}\""), self.get(key)?)
    }

    fn array(&self, key: &str) -> Result<&Vec<Value>, Error> {
        self.get(key)?
            .as_array()
            .ok_or_else(|| self.err(format!("\"{key}\" must be an array")))
    }

    fn point(&self, key: &str) -> Result<Point, Error> {
        let a = self.array(key)?;
        if a.len() != 2 {
            return Err(self.err(format!("\"{key}\" must be [x, y], got {} values", a.len())));
        }
        let p = Point {
            x: self.field_value(&format!("\"{key}\"[0]"), &a[0])?,
            y: self.field_value(&format!("\"{key}\"[1]"), &a[1])?,
        };
        if !p.is_on_curve() {
            return Err(self.err(format!("\"{key}\" is not a point of Baby Jubjub")));
        }
        Ok(p)
    }
}

/// Reads the input file for the circuit of `variant`, whose v has that variant's bit length.
pub fn read(path: &Path, variant: Variant) -> Result<Inputs, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(path, &text, variant)
}

/// Parses and checks the input file (`path` only names it in errors). A v outside the variant's
/// range is not refused here: the circuit's range check rejects it, naming its part.
pub fn parse(path: &Path, text: &str, variant: Variant) -> Result<Inputs, Error> {
    let json: Value =
        serde_json::from_str(text).map_err(|e| Error::format(path, format!("not JSON: {e}")))?;
    let obj = json
        .as_object()
        .ok_or_else(|| Error::format(path, "expected a JSON object".to_string()))?;
    let r = Reader { path, obj };
    let name = r.get("statement")?;
    let statement = name.as_str().and_then(Statement::parse).ok_or_else(|| {
        r.err(format!(
            "\"statement\" must be \"sm\" or \"rsm\", got {name}"
        ))
    })?;
    let hash_name = r.get("hash")?;
    let hash = hash_name
        .as_str()
        .and_then(TreeHash::parse)
        .ok_or_else(|| {
            r.err(format!(
                "\"hash\" must be \"poseidon\" or \"sha256\", got {hash_name}"
            ))
        })?;
    if r.point("H")? != pedersen_h() {
        return Err(r.err(
            "\"H\" is not the Pedersen generator this circuit is built for (the suite's \
             hash-to-curve H)",
        ));
    }
    let siblings = r.array("siblings")?;
    let depth = siblings.len();
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(r.err(format!(
            "the path has {depth} siblings; allowed 1..={MAX_DEPTH}"
        )));
    }
    let siblings = siblings
        .iter()
        .enumerate()
        .map(|(k, s)| r.node(&format!("\"siblings\"[{k}]"), s, hash))
        .collect::<Result<Vec<_>, _>>()?;
    let right = r.array("right")?;
    if right.len() != depth {
        return Err(r.err(format!(
            "{} direction bits in \"right\" for {depth} siblings",
            right.len()
        )));
    }
    let right = right
        .iter()
        .enumerate()
        .map(|(k, b)| {
            b.as_bool()
                .ok_or_else(|| r.err(format!("\"right\"[{k}] must be true or false, got {b}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (v, rand) = (r.field("v")?, r.field("r")?);
    let root = r.node("\"root\"", r.get("root")?, hash)?;
    let public = match statement {
        Statement::Sm => Public::Sm {
            c: r.point("C")?,
            root,
        },
        Statement::Rsm => Public::Rsm { v, root },
    };
    Ok(Inputs {
        statement,
        variant,
        hash,
        depth,
        assignment: Assignment {
            public,
            witness: Witness::honest(variant, &v, &rand, siblings, right),
        },
    })
}
