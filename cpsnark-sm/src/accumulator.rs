//! RSA accumulator over the hidden-order group: A = G^{∏ e_i} for primes e_i, and membership
//! witnesses W = G^{∏_{j≠i} e_j}, so that W^{e_i} = A.

use rug::Integer;

use crate::{
    rsa_group::{GroupElem, RsaGroup},
    Error,
};

/// Product of many integers by a balanced tree: multiplying numbers of similar size lets GMP use
/// its subquadratic algorithms (a left-to-right loop multiplies a huge number by a small one
/// n times).
pub fn product(values: &[Integer]) -> Integer {
    match values.len() {
        0 => Integer::from(1),
        1 => values[0].clone(),
        n => {
            let (l, r) = values.split_at(n / 2);
            product(l) * product(r)
        }
    }
}

/// An RSA accumulator: the value A = G^(product of the accumulated primes) in the hidden-order
/// group, kept with the group and G so that members' witnesses can be computed.
#[derive(Clone, Debug)]
pub struct RsaAccumulator {
    group: RsaGroup,
    generator: GroupElem,
    value: GroupElem,
}

impl RsaAccumulator {
    /// The empty accumulator: A = G = 2.
    pub fn new(group: RsaGroup) -> Self {
        let generator = group.elem(Integer::from(2));
        RsaAccumulator {
            value: generator.clone(),
            generator,
            group,
        }
    }

    /// The group the accumulator lives in.
    pub fn group(&self) -> &RsaGroup {
        &self.group
    }

    /// The current value A, which statements name.
    pub fn value(&self) -> &GroupElem {
        &self.value
    }

    /// G, the value of the empty accumulator.
    pub fn generator(&self) -> &GroupElem {
        &self.generator
    }

    /// Accumulate more primes (the caller hashes elements to primes first).
    pub fn add(&mut self, primes: &[Integer]) -> Result<(), Error> {
        self.value = self.group.exp(&self.value, &product(primes))?;
        Ok(())
    }

    /// Add one prime and return its membership witness: the accumulator before the addition.
    pub fn add_with_witness(&mut self, prime: &Integer) -> Result<GroupElem, Error> {
        let witness = self.value.clone();
        self.add(std::slice::from_ref(prime))?;
        Ok(witness)
    }

    /// W^e = A?
    pub fn verify_membership(&self, witness: &GroupElem, prime: &Integer) -> Result<bool, Error> {
        Ok(self.group.exp(witness, prime)? == self.value)
    }
}

/// The membership witness of `set[index]` recomputed from scratch, as a holder without update
/// information must: G^{∏_{j≠index} set[j]}.
pub fn membership_witness(
    group: &RsaGroup,
    set: &[Integer],
    index: usize,
) -> Result<GroupElem, Error> {
    if index >= set.len() {
        return Err(Error::InvalidInput(format!(
            "index {index} outside a set of {}",
            set.len()
        )));
    }
    let others = product(&set[..index]) * product(&set[index + 1..]);
    group.exp(&group.elem(Integer::from(2)), &others)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn witnesses_open_the_accumulator() {
        let group = RsaGroup::rsa2048();
        let set: Vec<Integer> = [101u32, 103, 107, 109, 113]
            .iter()
            .map(|&p| Integer::from(p))
            .collect();
        let mut acc = RsaAccumulator::new(group.clone());
        acc.add(&set).unwrap();
        for i in 0..set.len() {
            let w = membership_witness(&group, &set, i).unwrap();
            assert!(acc.verify_membership(&w, &set[i]).unwrap());
        }
        // 127 is not in the set: the witness computed as if it were does not verify.
        let w = membership_witness(&group, &set, 0).unwrap();
        assert!(!acc.verify_membership(&w, &Integer::from(127)).unwrap());
        assert_eq!(product(&set), 101u64 * 103 * 107 * 109 * 113u64);
        assert!(membership_witness(&group, &set, 5).is_err());

        let mut acc2 = RsaAccumulator::new(group);
        acc2.add(&set[1..]).unwrap();
        let w = acc2.add_with_witness(&set[0]).unwrap();
        assert_eq!(acc2.value(), acc.value());
        assert!(acc2.verify_membership(&w, &set[0]).unwrap());
    }
}
