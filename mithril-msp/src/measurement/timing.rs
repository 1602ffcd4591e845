//! Repeated timing in CPU time (the whole process, all threads) and wall time.
//!
//! A repetition runs the operation as many times as it takes to last `rep_seconds`, so that the
//! clocks' resolution and the call overhead vanish in the mean per call; the figure is the
//! median over repetitions, with min and max for the spread. An operation and its lower bound
//! run in alternation, repetition by repetition, so that both meet the same machine load.

use std::time::Instant;

use measure::clock::process_cpu_seconds;
use serde::Serialize;

/// Median, minimum and maximum of a sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// Median (the mean of the middle two for an even count).
    pub median: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
}

impl Stats {
    /// The statistics of a non-empty sample.
    pub fn of(xs: &[f64]) -> Stats {
        assert!(!xs.is_empty(), "an empty sample");
        let mut s = xs.to_vec();
        s.sort_by(f64::total_cmp);
        let m = s.len();
        let median = if m % 2 == 1 {
            s[m / 2]
        } else {
            0.5 * (s[m / 2 - 1] + s[m / 2])
        };
        Stats {
            median,
            min: s[0],
            max: s[m - 1],
        }
    }
}

/// CPU and wall seconds per call, over the repetitions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Timing {
    /// CPU seconds per call.
    pub cpu_s: Stats,
    /// Wall seconds per call.
    pub wall_s: Stats,
    /// Repetitions.
    pub repetitions: usize,
    /// Calls per repetition.
    pub iterations: usize,
}

/// How long and how often to time.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Repetitions (at least 1).
    pub repetitions: usize,
    /// Minimum length of a repetition, in seconds.
    pub rep_seconds: f64,
}

/// (CPU, wall) seconds per call of `iters` calls.
fn per_call(f: &mut dyn FnMut(), iters: usize) -> (f64, f64) {
    let c = process_cpu_seconds();
    let w = Instant::now();
    for _ in 0..iters {
        f();
    }
    let wall = w.elapsed().as_secs_f64();
    (
        (process_cpu_seconds() - c) / iters as f64,
        wall / iters as f64,
    )
}

/// Calls per repetition for a repetition of about `rep_seconds` (after one warm-up call).
fn iterations_for(f: &mut dyn FnMut(), rep_seconds: f64) -> usize {
    f();
    let (_, one) = per_call(f, 1);
    if one >= rep_seconds || one <= 0.0 {
        return 1;
    }
    ((rep_seconds / one).ceil() as usize).clamp(1, 1_000_000)
}

fn timing(samples: &[(f64, f64)], iterations: usize) -> Timing {
    let cpu: Vec<f64> = samples.iter().map(|s| s.0).collect();
    let wall: Vec<f64> = samples.iter().map(|s| s.1).collect();
    Timing {
        cpu_s: Stats::of(&cpu),
        wall_s: Stats::of(&wall),
        repetitions: samples.len(),
        iterations,
    }
}

/// Times `op`, and `bound` in alternation with it when given.
pub fn time_with_bound(
    plan: &Plan,
    op: &mut dyn FnMut(),
    mut bound: Option<&mut dyn FnMut()>,
) -> (Timing, Option<Timing>) {
    let reps = plan.repetitions.max(1);
    let it_op = iterations_for(op, plan.rep_seconds);
    let it_bound = bound.as_mut().map(|b| iterations_for(*b, plan.rep_seconds));
    let mut s_op = Vec::with_capacity(reps);
    let mut s_bound = Vec::with_capacity(reps);
    for _ in 0..reps {
        s_op.push(per_call(op, it_op));
        if let (Some(b), Some(it)) = (bound.as_mut(), it_bound) {
            s_bound.push(per_call(*b, it));
        }
    }
    let t_bound = it_bound.map(|it| timing(&s_bound, it));
    (timing(&s_op, it_op), t_bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_spreads() {
        let s = Stats::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert_eq!(Stats::of(&[1.0, 2.0, 4.0, 3.0]).median, 2.5);
    }

    #[test]
    fn operation_and_bound_alternate_repetition_by_repetition() {
        let plan = Plan {
            repetitions: 4,
            rep_seconds: 1e-4,
        };
        let log = std::cell::RefCell::new(String::new());
        let spin = |k: u64| (0..k).fold(0u64, |a, b| std::hint::black_box(a.wrapping_mul(31) ^ b));
        let mut op = || {
            log.borrow_mut().push('o');
            std::hint::black_box(spin(2_000));
        };
        let mut bound = || {
            log.borrow_mut().push('b');
            std::hint::black_box(spin(1_000));
        };
        let (t, b) = time_with_bound(&plan, &mut op, Some(&mut bound));
        let b = b.expect("a bound was given");
        assert_eq!((t.repetitions, b.repetitions), (4, 4));
        assert!(t.iterations >= 1 && b.iterations >= 1);
        // Calibration (a warm-up and one timed call each), then each repetition: the
        // operation's calls, then the bound's.
        let one = "o".repeat(t.iterations) + &"b".repeat(b.iterations);
        assert_eq!(log.into_inner(), format!("oobb{}", one.repeat(4)));
        for s in [t.cpu_s, t.wall_s, b.cpu_s, b.wall_s] {
            assert!(
                0.0 <= s.min && s.min <= s.median && s.median <= s.max,
                "{s:?}"
            );
        }
        let (alone, none) = time_with_bound(&plan, &mut || (), None);
        assert!(none.is_none() && alone.repetitions == 4);
    }
}
