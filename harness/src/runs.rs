//! How long a run of one value is at the start or end of a slice, compared a block of `B`
//! values at a time: screenshots are mostly long runs of one colour, and a whole-block
//! comparison vectorises where a value-by-value loop does not.

/// How many values at the start of `xs` equal `v`.
pub(crate) fn leading<T: Copy + PartialEq, const B: usize>(xs: &[T], v: T) -> usize {
    let blocks = xs
        .as_chunks::<B>()
        .0
        .iter()
        .take_while(|b| **b == [v; B])
        .count();
    let rest = &xs[blocks * B..];
    blocks * B + rest.iter().take_while(|&&x| x == v).count()
}

/// How many values at the end of `xs` equal `v`.
pub(crate) fn trailing<T: Copy + PartialEq, const B: usize>(xs: &[T], v: T) -> usize {
    let blocks = xs
        .as_rchunks::<B>()
        .1
        .iter()
        .rev()
        .take_while(|b| **b == [v; B])
        .count();
    let rest = &xs[..xs.len() - blocks * B];
    blocks * B + rest.iter().rev().take_while(|&&x| x == v).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_at_either_end_across_block_edges() {
        for len in 0..40 {
            for cut in 0..=len {
                // `cut` sevens, then ones: the leading run is `cut` long, the trailing run
                // of ones `len - cut`.
                let xs: Vec<u8> = (0..len).map(|i| if i < cut { 7 } else { 1 }).collect();
                assert_eq!(leading::<_, 16>(&xs, 7), cut, "{xs:?}");
                assert_eq!(trailing::<_, 16>(&xs, 1), len - cut, "{xs:?}");
                assert_eq!(
                    leading::<_, 4>(&xs, 1),
                    usize::from(cut == 0) * len,
                    "{xs:?}"
                );
            }
        }
    }
}
