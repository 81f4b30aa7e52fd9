//! Two pieces of work at once: on the calling thread and on one scoped helper. The decode
//! and diff stages split their big passes in two this way; a one-shot `stepreplay diff`
//! would pay more to start a thread pool than it saves.

/// Runs `a` here and `b` on a helper thread, and returns both results. A panic in `b` is
/// resumed here once `a` is done.
pub(crate) fn join<A, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B) {
    std::thread::scope(|s| {
        let hb = s.spawn(b);
        let ra = a();
        (
            ra,
            hb.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_run_and_a_helper_panic_reaches_the_caller() {
        let data = [1, 2, 3, 4];
        let (lo, hi) = join(
            || data[..2].iter().sum::<i32>(),
            || data[2..].iter().sum::<i32>(),
        );
        assert_eq!((lo, hi), (3, 7));
        let caught = std::panic::catch_unwind(|| join(|| 1, || -> i32 { panic!("helper") }));
        assert!(caught.is_err());
    }
}
