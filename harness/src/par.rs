//! The one way the harness runs CPU work in parallel: scoped threads, no pool. The work is
//! coarse (a scenario, half a screenshot, a band of a diff), so a thread per piece costs
//! microseconds against milliseconds of work, and a one-shot `stepreplay diff` pays nothing
//! to start a pool it would use once.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvError, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

/// Locks `m`, going on past a panic of another thread that held it: what the harness keeps
/// behind a lock is a cache or a tally, whole after every step, and that panic is reported
/// where it happened.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A panic caught on a helper thread, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Panicked(pub String);

impl Panicked {
    fn of(payload: Box<dyn std::any::Any + Send>) -> Self {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        Panicked(text)
    }
}

/// Runs `a` here and `b` on a helper thread, and returns both results; a panic in `b` comes
/// back as [`Panicked`] for the caller to report.
pub(crate) fn try_join<A, B: Send>(
    a: impl FnOnce() -> A,
    b: impl FnOnce() -> B + Send,
) -> (A, Result<B, Panicked>) {
    thread::scope(|s| {
        let hb = s.spawn(b);
        let ra = a();
        (ra, hb.join().map_err(Panicked::of))
    })
}

/// Runs `f` on each part, each on its own thread (the last on this one), and returns the
/// results in part order. For splitting one big pass into disjoint pieces (`chunks_mut`).
/// A panic in any part is resumed here.
pub(crate) fn each<P: Send, R: Send>(parts: Vec<P>, f: impl Fn(usize, P) -> R + Sync) -> Vec<R> {
    let f = &f;
    thread::scope(|s| {
        let mut parts: Vec<(usize, P)> = parts.into_iter().enumerate().collect();
        let last = parts.pop();
        let handles: Vec<_> = parts
            .into_iter()
            .map(|(i, p)| s.spawn(move || f(i, p)))
            .collect();
        let here = last.map(|(i, p)| f(i, p));
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .chain(here)
            .collect()
    })
}

/// Runs `f` on every item on `workers` threads, each taking the next item when it is free
/// (items differ a lot in cost). `done` sees each result as it finishes, one at a time; the
/// results come back in item order whatever order they finished in. An item whose `f`
/// panicked is `Err`; the others still run.
pub(crate) fn map<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    f: impl Fn(&T) -> R + Sync,
    done: impl Fn(&R) + Sync,
) -> Vec<Result<R, Panicked>> {
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Result<R, Panicked>>>> =
        Mutex::new((0..items.len()).map(|_| None).collect());
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)))
                .map_err(Panicked::of);
            let mut slots = lock(&slots);
            if let Ok(r) = &r {
                done(r);
            }
            slots[i] = Some(r);
        }
    };
    thread::scope(|s| {
        for _ in 1..workers.clamp(1, items.len().max(1)) {
            s.spawn(work);
        }
        work();
    });
    slots
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Panicked("never ran".into()))))
        .collect()
}

/// The longest [`recv_soon`] keeps checking before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

thread_local! {
    /// This thread's spin budget: halved when a spin ran out and the thread slept anyway,
    /// doubled (up to [`SPIN`]) when an item came during a spin.
    static BUDGET: std::cell::Cell<Duration> = const { std::cell::Cell::new(SPIN) };
}

/// [`Receiver::recv`] for a pipeline's hand-offs, which come fast (41 bands in a 1440×900
/// diff of about 10 ms): it checks for the next item for a while before it sleeps. A thread
/// that sleeps must be woken by the sender through the kernel, which on a virtual machine
/// whose other CPU has gone idle is slow and uneven: on a quiet machine, spinning took a
/// 1440×900 diff's futex calls from 41 to 9. On a busy machine the sender is often not
/// running at all, and a spin only burns the share of CPU the scheduler would give this
/// thread later (a third of that diff's CPU time, under a CPU hog). So the budget adapts: it
/// shrinks while spins run out and grows back while they pay.
pub(crate) fn recv_soon<T>(rx: &Receiver<T>) -> Result<T, RecvError> {
    let budget = BUDGET.get();
    let start = Instant::now();
    let mut first = true;
    loop {
        for _ in 0..64 {
            match rx.try_recv() {
                Ok(item) => {
                    let came = if first { Came::AtOnce } else { Came::InSpin };
                    BUDGET.set(next_budget(budget, came));
                    return Ok(item);
                }
                Err(TryRecvError::Disconnected) => return Err(RecvError),
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
            }
            first = false;
        }
        if start.elapsed() > budget {
            BUDGET.set(next_budget(budget, Came::Slept));
            return rx.recv();
        }
    }
}

/// When a [`recv_soon`] item came.
#[derive(Clone, Copy)]
enum Came {
    /// It was there at the first check: no evidence for or against spinning.
    AtOnce,
    /// During the spin: spinning paid.
    InSpin,
    /// The spin ran out and the thread slept: spinning was waste.
    Slept,
}

fn next_budget(budget: Duration, came: Came) -> Duration {
    match came {
        Came::AtOnce => budget,
        Came::InSpin => (budget * 2).clamp(Duration::from_micros(1), SPIN),
        Came::Slept => budget / 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_run_and_a_helper_panic_reaches_the_caller() {
        let data = [1, 2, 3, 4];
        let (lo, hi) = try_join(
            || data[..2].iter().sum::<i32>(),
            || data[2..].iter().sum::<i32>(),
        );
        assert_eq!((lo, hi), (3, Ok(7)));
        let (a, b) = try_join(|| 1, || -> i32 { panic!("decoder") });
        assert_eq!((a, b), (1, Err(Panicked("decoder".into()))));
    }

    #[test]
    fn recv_soon_takes_items_in_order_waits_past_its_spin_and_sees_a_hang_up() {
        let (tx, rx) = std::sync::mpsc::channel();
        let got = std::thread::scope(|s| {
            s.spawn(move || {
                tx.send(1).unwrap();
                // Longer than the spin: the receiver must fall back to sleeping.
                std::thread::sleep(SPIN * 5);
                tx.send(2).unwrap();
            });
            let got = [recv_soon(&rx), recv_soon(&rx)];
            (got, recv_soon(&rx))
        });
        assert_eq!(got, ([Ok(1), Ok(2)], Err(RecvError)));
    }

    #[test]
    fn the_spin_budget_shrinks_while_spins_run_out_and_grows_back_while_they_pay() {
        let mut b = SPIN;
        for _ in 0..20 {
            b = next_budget(b, Came::Slept);
        }
        assert!(b < Duration::from_micros(1), "{b:?}");
        assert_eq!(next_budget(b, Came::AtOnce), b);
        for _ in 0..20 {
            b = next_budget(b, Came::InSpin);
        }
        assert_eq!(b, SPIN);
    }

    #[test]
    fn each_part_is_worked_once_in_order() {
        let mut data = vec![0u32; 10];
        let sums = each(data.chunks_mut(3).collect(), |i, chunk| {
            chunk.fill(i as u32 + 1);
            chunk.len()
        });
        assert_eq!(sums, [3, 3, 3, 1]);
        assert_eq!(data, [1, 1, 1, 2, 2, 2, 3, 3, 3, 4]);
        assert!(each(Vec::<u8>::new(), |_, _| ()).is_empty());
    }

    #[test]
    fn map_keeps_item_order_sees_every_result_and_survives_a_panic() {
        let items: Vec<u64> = (0..40).collect();
        let seen = Mutex::new(Vec::new());
        let out = map(
            &items,
            3,
            |&n| {
                if n == 7 {
                    panic!("item seven");
                }
                // Later items finish first.
                std::thread::sleep(std::time::Duration::from_micros(40 - n));
                n * 2
            },
            |r| seen.lock().unwrap().push(*r),
        );
        assert_eq!(out[7], Err(Panicked("item seven".into())));
        let ok: Vec<u64> = out.iter().filter_map(|r| r.clone().ok()).collect();
        let want: Vec<u64> = (0..40).filter(|&n| n != 7).map(|n| n * 2).collect();
        assert_eq!(ok, want);
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, want);
        assert!(map(&[] as &[u8], 4, |_| (), |_| ()).is_empty());
    }
}
