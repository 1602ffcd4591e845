//! Repeated timing of one operation in CPU time (all threads of the process) and wall time.
//!
//! A repetition runs the operation as many times as it takes to last about `rep_seconds`, so
//! that the clocks' resolution and the call overhead vanish in the mean per call; the figure is
//! the median over repetitions, with min and max for the spread. An operation and its lower
//! bound run in alternation, repetition by repetition, so that both meet the same machine load.
//! Calibration (finding the calls per repetition) calls each at least once before the timed
//! repetitions, so it is also their warm-up.

use std::time::Instant;

use serde::Serialize;

use crate::clock::process_cpu_seconds;

/// Median, minimum and maximum of a sample, in seconds.
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
        assert!(!xs.is_empty(), "statistics of an empty sample");
        let mut s = xs.to_vec();
        s.sort_by(f64::total_cmp);
        let k = s.len();
        let median = if k % 2 == 1 {
            s[k / 2]
        } else {
            (s[k / 2 - 1] + s[k / 2]) / 2.0
        };
        Stats {
            median,
            min: s[0],
            max: s[k - 1],
        }
    }

    /// A sample of one.
    pub fn one(x: f64) -> Stats {
        Stats {
            median: x,
            min: x,
            max: x,
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

impl Timing {
    /// The timing of (CPU, wall) seconds per call, one pair per repetition.
    fn of(samples: &[(f64, f64)], iterations: usize) -> Timing {
        let cpu: Vec<f64> = samples.iter().map(|s| s.0).collect();
        let wall: Vec<f64> = samples.iter().map(|s| s.1).collect();
        Timing {
            cpu_s: Stats::of(&cpu),
            wall_s: Stats::of(&wall),
            repetitions: samples.len(),
            iterations,
        }
    }
}

/// How long and how often to time.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Repetitions (at least 1).
    pub repetitions: usize,
    /// Minimum length of a repetition, in seconds.
    pub rep_seconds: f64,
}

/// (CPU, wall) seconds per call of `iters` calls of `f`.
fn per_call(f: &mut dyn FnMut(), iters: usize) -> (f64, f64) {
    let c0 = process_cpu_seconds();
    let w0 = Instant::now();
    for _ in 0..iters {
        f();
    }
    let wall = w0.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds() - c0;
    (cpu / iters as f64, wall / iters as f64)
}

/// Calls per repetition for a repetition of about `rep_seconds`: times one call and, while
/// the batch is short, eight times as many, up to a quarter of a repetition.
fn calibrate(f: &mut dyn FnMut(), rep_seconds: f64) -> usize {
    let mut iters = 1usize;
    loop {
        let (_, wall) = per_call(f, iters);
        let total = wall * iters as f64;
        if total >= rep_seconds / 4.0 || iters >= 1 << 24 {
            let per = wall.max(1e-9);
            return ((rep_seconds / per).ceil() as usize).clamp(1, 1 << 26);
        }
        iters *= 8;
    }
}

/// Times `op` and, when given, its lower bound `bound` in alternation, repetition by
/// repetition. Returns the timing of each.
pub fn time_with_bound(
    plan: &Plan,
    op: &mut dyn FnMut(),
    mut bound: Option<&mut dyn FnMut()>,
) -> (Timing, Option<Timing>) {
    let reps = plan.repetitions.max(1);
    let it_op = calibrate(op, plan.rep_seconds);
    let it_bound = bound.as_mut().map(|b| calibrate(*b, plan.rep_seconds));
    let mut s_op = Vec::with_capacity(reps);
    let mut s_bound = Vec::with_capacity(reps);
    for _ in 0..reps {
        s_op.push(per_call(op, it_op));
        if let (Some(b), Some(it)) = (bound.as_mut(), it_bound) {
            s_bound.push(per_call(*b, it));
        }
    }
    let t_bound = it_bound.map(|it| Timing::of(&s_bound, it));
    (Timing::of(&s_op, it_op), t_bound)
}

/// Times one call of `f` (a set-up too slow to repeat) and returns its result too.
pub fn time_once<T>(f: impl FnOnce() -> T) -> (T, Timing) {
    let c0 = process_cpu_seconds();
    let w0 = Instant::now();
    let out = f();
    let wall = w0.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds() - c0;
    let t = Timing {
        cpu_s: Stats::one(cpu),
        wall_s: Stats::one(wall),
        repetitions: 1,
        iterations: 1,
    };
    (out, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_spreads() {
        let s = Stats::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        let s = Stats::of(&[3.0, 1.0, 2.0, 10.0]);
        assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 10.0));
        assert_eq!(Stats::of(&[4.0]), Stats::one(4.0));
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
        // Calibration (the operation's calls, then the bound's), then each repetition: the
        // operation's calls, then the bound's.
        let log = log.into_inner();
        let one = "o".repeat(t.iterations) + &"b".repeat(b.iterations);
        let calibration = log
            .strip_suffix(&one.repeat(4))
            .unwrap_or_else(|| panic!("not alternating: {log}"));
        let ops = calibration.trim_end_matches('b');
        assert!(!ops.is_empty() && ops.len() < calibration.len(), "{log}");
        assert!(ops.chars().all(|c| c == 'o'), "{log}");
        for s in [t.cpu_s, t.wall_s, b.cpu_s, b.wall_s] {
            assert!(
                0.0 <= s.min && s.min <= s.median && s.median <= s.max,
                "{s:?}"
            );
        }
        let (alone, none) = time_with_bound(&plan, &mut || (), None);
        assert!(none.is_none() && alone.repetitions == 4);
    }

    #[test]
    fn a_slow_operation_gets_fewer_calls_and_more_cpu_per_call() {
        let plan = Plan {
            repetitions: 3,
            rep_seconds: 0.002,
        };
        let mut x = 0u64;
        let mut slow = || {
            for i in 0..20_000u64 {
                x = x.wrapping_mul(31).wrapping_add(i);
            }
            std::hint::black_box(x);
        };
        let mut y = 0u64;
        let mut fast = || {
            y = std::hint::black_box(y.wrapping_add(1));
        };
        let (a, b) = time_with_bound(&plan, &mut slow, Some(&mut fast));
        let b = b.unwrap();
        assert!(a.iterations >= 1 && b.iterations > a.iterations);
        assert!(a.cpu_s.median > b.cpu_s.median);
    }

    #[test]
    fn one_timed_call_returns_its_result() {
        let (v, t) = time_once(|| (0..1_000u64).map(std::hint::black_box).sum::<u64>());
        assert_eq!(v, 499_500);
        assert_eq!((t.repetitions, t.iterations), (1, 1));
        assert!(t.cpu_s.median >= 0.0 && t.wall_s.median >= 0.0);
    }
}
