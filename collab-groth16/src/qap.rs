//! The R1CS-to-QAP witness map, split into its linear parts (which parties run on shares) and
//! the one product (which needs the parties together).
//!
//! ark-groth16 (its `LibsnarkReduction`) proves with the quotient `h = (a b - c) / Z`, where, on
//! the evaluation domain `D` of size `N >= constraints + public inputs + 1`:
//!
//! - `a_i = <A_i, w>`, `b_i = <B_i, w>`, `c_i = <C_i, w>` for each constraint `i`, and the extra
//!   rows `a_{constraints + k} = w_k` for each instance variable `k` (the constant wire and the
//!   public inputs), which make the public inputs' polynomials independent;
//! - `a`, `b`, `c` are interpolated (inverse FFT on `D`) and evaluated on the coset `g D` (FFT),
//!   where `Z(X) = X^N - 1` is the constant `g^N - 1` and never zero;
//! - `h = coset-IFFT((a b - c) / Z(g))`, of degree at most `N - 2`.
//!
//! Every step except `a b` is linear in `w`: a party that runs them on its share of `w` holds a
//! share of the result. [`Qap::a_rows`] (and `b_rows`, `c_rows`), [`Qap::to_coset`] and
//! [`Qap::quotient`] are those steps; the
//! coset product is the Beaver multiplication in [`crate::party`]. With `w` itself they compute
//! exactly ark-groth16's `h` ([`crate::plain`] and the tests check this).

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain};
use rayon::prelude::*;

use zksnark_prover::{Constraint, LinComb, R1cs};

use crate::Error;

/// The evaluation domain and its coset for one constraint system.
pub struct Qap<F: FftField> {
    domain: GeneralEvaluationDomain<F>,
    coset: GeneralEvaluationDomain<F>,
    /// `1 / Z(g)`: the vanishing polynomial is the same constant at every coset point.
    z_inverse: F,
    constraints: usize,
    /// Instance variables: the constant wire and the public inputs.
    inputs: usize,
}

impl<F: PrimeField> Qap<F> {
    /// The domains for `r1cs`: the smallest FFT domain that holds a point per constraint and per
    /// instance variable (each instance variable's value also fills one extra row of `a`, as in
    /// ark-groth16, so that the public inputs' polynomials are linearly independent), and its
    /// coset. Too large a system is an error.
    pub fn new(r1cs: &R1cs<F>) -> Result<Self, Error> {
        let constraints = r1cs.constraints.len();
        let inputs = 1 + r1cs.num_public();
        let domain = GeneralEvaluationDomain::<F>::new(constraints + inputs).ok_or_else(|| {
            Error::Invalid(format!(
                "{constraints} constraints and {inputs} instance variables exceed the largest \
                 FFT domain of the scalar field"
            ))
        })?;
        let coset = domain
            .get_coset(F::GENERATOR)
            .expect("the field's generator is a valid coset offset");
        let z_inverse = domain
            .evaluate_vanishing_polynomial(F::GENERATOR)
            .inverse()
            .expect("the generator lies outside the domain, so Z(g) is not zero");
        Ok(Qap {
            domain,
            coset,
            z_inverse,
            constraints,
            inputs,
        })
    }

    /// `N`, the domain size: the number of coset products, and of `h`'s coefficients.
    pub fn size(&self) -> usize {
        self.domain.size()
    }

    /// The instance variables (constant wire and public inputs), which come first in `w`.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The `a` rows: `<A_i, w>` per constraint, then the instance variables, zero-padded to `N`.
    pub fn a_rows(&self, r1cs: &R1cs<F>, w: &[F]) -> Vec<F> {
        let mut a = rows(r1cs, w, |c| &c.a, self.size());
        a[self.constraints..self.constraints + self.inputs].copy_from_slice(&w[..self.inputs]);
        a
    }

    /// The `b` rows: `<B_i, w>` per constraint, zero-padded to `N`.
    pub fn b_rows(&self, r1cs: &R1cs<F>, w: &[F]) -> Vec<F> {
        rows(r1cs, w, |c| &c.b, self.size())
    }

    /// The `c` rows: `<C_i, w>` per constraint, zero-padded to `N`. (ark-groth16 takes
    /// `c_i = a_i b_i` for a satisfying `w`; that is the same vector, but only the linear form
    /// can be computed on shares.)
    pub fn c_rows(&self, r1cs: &R1cs<F>, w: &[F]) -> Vec<F> {
        rows(r1cs, w, |c| &c.c, self.size())
    }

    /// Evaluations on `D` to evaluations on the coset `g D`: inverse FFT, then coset FFT.
    pub fn to_coset(&self, v: &mut Vec<F>) {
        self.domain.ifft_in_place(v);
        self.coset.fft_in_place(v);
    }

    /// `h`'s coefficients from `a b` and `c` on the coset: `(ab - c) / Z(g)`, coset IFFT.
    pub fn quotient(&self, mut ab: Vec<F>, c: &[F]) -> Vec<F> {
        let z_inverse = self.z_inverse;
        ab.par_iter_mut().zip(c.par_iter()).for_each(|(x, c)| {
            *x -= c;
            *x *= z_inverse;
        });
        self.coset.ifft_in_place(&mut ab);
        ab
    }
}

/// One linear combination per constraint, evaluated at `w`, zero-padded to `n`.
fn rows<F: PrimeField>(
    r1cs: &R1cs<F>,
    w: &[F],
    pick: impl Fn(&Constraint<F>) -> &LinComb<F> + Sync,
    n: usize,
) -> Vec<F> {
    let mut out = vec![F::zero(); n];
    out[..r1cs.constraints.len()]
        .par_iter_mut()
        .zip(r1cs.constraints.par_iter())
        .for_each(|(o, c)| *o = evaluate(pick(c), w));
    out
}

/// `<lc, w>`. Most coefficients of compiled circuits are 1: skip those multiplications.
pub fn evaluate<F: PrimeField>(lc: &LinComb<F>, w: &[F]) -> F {
    let mut sum = F::zero();
    for (wire, coeff) in lc {
        let x = w[*wire as usize];
        if coeff.is_one() {
            sum += x;
        } else {
            sum += x * coeff;
        }
    }
    sum
}
