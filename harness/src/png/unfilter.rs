//! PNG scanline reconstruction ("unfiltering") for 8-bit RGB and RGBA rows, the main cost of
//! decoding a screenshot. [`unfilter_row`] is the entry point; Paeth, the filter encoders pick
//! for most rows of a screenshot, gets a branch-free form that keeps only the left pixel on
//! the serial dependency chain.

/// A filter type byte that is not one of PNG's five.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadFilter(pub u8);

/// Where a row's stored (filtered) bytes are read from: the row being reconstructed (in
/// place), or a separate slice. Reading them from the inflated stream where they lie spares
/// copying every row before reconstructing it; beside busy processes that copy was a sixth of
/// the decoding thread's time (benches/README.md, "Today's figures").
trait Stored: Copy {
    /// The stored byte at `i`, `out` being the row as reconstructed so far.
    fn byte(self, out: &[u8], i: usize) -> u8;
    /// The four stored bytes from `i`.
    fn four(self, out: &[u8], i: usize) -> [u8; 4];
}

/// The stored bytes are those of the row itself.
#[derive(Clone, Copy)]
struct InPlace;

impl Stored for InPlace {
    #[inline(always)]
    fn byte(self, out: &[u8], i: usize) -> u8 {
        out[i]
    }

    #[inline(always)]
    fn four(self, out: &[u8], i: usize) -> [u8; 4] {
        out[i..i + 4].try_into().expect("four bytes")
    }
}

impl Stored for &[u8] {
    #[inline(always)]
    fn byte(self, _: &[u8], i: usize) -> u8 {
        self[i]
    }

    #[inline(always)]
    fn four(self, _: &[u8], i: usize) -> [u8; 4] {
        self[i..i + 4].try_into().expect("four bytes")
    }
}

/// Reconstructs one row into `out` from its stored bytes (the row without its filter byte):
/// `stored`, or `out` itself when `None`, and `prev`, the reconstructed row above (all zeros
/// for the first row). `bpp` is 3 or 4.
pub(crate) fn unfilter_row(
    filter: u8,
    bpp: usize,
    prev: &[u8],
    stored: Option<&[u8]>,
    out: &mut [u8],
) -> Result<(), BadFilter> {
    debug_assert_eq!(prev.len(), out.len());
    match (filter, stored) {
        // None and Up have no chain from pixel to pixel: plain loops that vectorise.
        (0, Some(x)) => out.copy_from_slice(x),
        (0, None) => {}
        (2, Some(x)) => {
            for ((o, x), p) in out.iter_mut().zip(x).zip(prev) {
                *o = x.wrapping_add(*p);
            }
        }
        (2, None) => {
            for (o, p) in out.iter_mut().zip(prev) {
                *o = o.wrapping_add(*p);
            }
        }
        (_, Some(x)) => {
            debug_assert_eq!(x.len(), out.len());
            unfilter(filter, bpp, prev, x, out)?;
        }
        (_, None) => unfilter(filter, bpp, prev, InPlace, out)?,
    }
    Ok(())
}

/// Filters 1, 3 and 4 (the caller does 0 and 2).
#[inline(always)]
fn unfilter(
    filter: u8,
    bpp: usize,
    prev: &[u8],
    x: impl Stored,
    cur: &mut [u8],
) -> Result<(), BadFilter> {
    match filter {
        1 => match bpp {
            3 => sub::<3>(x, cur),
            _ => sub::<4>(x, cur),
        },
        3 => match bpp {
            3 => avg::<3>(prev, x, cur),
            _ => avg::<4>(prev, x, cur),
        },
        4 => match bpp {
            3 => paeth::<3>(prev, x, cur),
            _ => paeth::<4>(prev, x, cur),
        },
        other => return Err(BadFilter(other)),
    }
    Ok(())
}

fn sub<const N: usize>(x: impl Stored, cur: &mut [u8]) {
    let mut a = [0u8; N];
    for at in (0..cur.len() / N * N).step_by(N) {
        for (k, a) in a.iter_mut().enumerate() {
            *a = x.byte(cur, at + k).wrapping_add(*a);
        }
        cur[at..at + N].copy_from_slice(&a);
    }
}

fn avg<const N: usize>(prev: &[u8], x: impl Stored, cur: &mut [u8]) {
    let mut a = [0u8; N];
    for at in (0..cur.len() / N * N).step_by(N) {
        for (k, a) in a.iter_mut().enumerate() {
            let mean = ((u16::from(*a) + u16::from(prev[at + k])) >> 1) as u8;
            *a = x.byte(cur, at + k).wrapping_add(mean);
        }
        cur[at..at + N].copy_from_slice(&a);
    }
}

/// Paeth in the form used by stb_image: `thresh = 3c - (a + b)` decides between the smaller
/// and larger of `a` and `b`, or `c`. The result equals the PNG specification's predictor for
/// all inputs (tested exhaustively below); it compiles to selects, not branches.
#[inline(always)]
fn predict(a: i16, b: i16, c: i16) -> u8 {
    let thresh = c * 3 - (a + b);
    let lo = a.min(b);
    let hi = a.max(b);
    let t0 = if hi <= thresh { lo } else { c };
    let t1 = if thresh <= lo { hi } else { t0 };
    t1 as u8
}

/// One Paeth pixel at byte `at` of `cur`: `a` and `c` carry the left and upper-left bytes
/// between pixels.
#[inline(always)]
fn paeth_pixel<const N: usize>(
    a: &mut [i16; N],
    c: &mut [i16; N],
    up: &[u8],
    x: impl Stored,
    cur: &mut [u8],
    at: usize,
) {
    for i in 0..N {
        let b = i16::from(up[i]);
        let px = x.byte(cur, at + i).wrapping_add(predict(a[i], b, c[i]));
        cur[at + i] = px;
        a[i] = i16::from(px);
        c[i] = b;
    }
}

fn paeth<const N: usize>(prev: &[u8], x: impl Stored, cur: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if N == 4 {
        return rgba::paeth(prev, x, cur);
    }
    let (mut a, mut c) = ([0i16; N], [0i16; N]);
    for at in (0..cur.len() / N * N).step_by(N) {
        paeth_pixel(&mut a, &mut c, &prev[at..at + N], x, cur, at);
    }
}

/// Reconstructs two consecutive Paeth rows at once (`r0` under `prev`, `r1` under `r0`), from
/// `stored` (both rows' stored bytes, each after its filter byte, as they lie in the image
/// data) or, when `None`, in place. Each pixel waits on the one to its left, so one row is a
/// serial chain; working on `r1` one pixel behind `r0` runs two independent chains side by
/// side, which the CPU overlaps (about a quarter faster over a whole screenshot, measured).
pub(crate) fn paeth_pair(
    bpp: usize,
    prev: &[u8],
    stored: Option<(&[u8], &[u8])>,
    r0: &mut [u8],
    r1: &mut [u8],
) {
    match (bpp, stored) {
        (3, Some((s0, s1))) => pair::<3, _>(prev, (s0, s1), r0, r1),
        (3, None) => pair::<3, _>(prev, (InPlace, InPlace), r0, r1),
        (_, Some((s0, s1))) => pair::<4, _>(prev, (s0, s1), r0, r1),
        (_, None) => pair::<4, _>(prev, (InPlace, InPlace), r0, r1),
    }
}

fn pair<const N: usize, X: Stored>(prev: &[u8], (x0, x1): (X, X), r0: &mut [u8], r1: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if N == 4 {
        return rgba::pair(prev, (x0, x1), r0, r1);
    }
    let n = r0.len() / N;
    if n == 0 {
        return;
    }
    let (mut a0, mut c0, mut a1, mut c1) = ([0i16; N], [0i16; N], [0i16; N], [0i16; N]);
    paeth_pixel(&mut a0, &mut c0, &prev[..N], x0, r0, 0);
    for x in 1..n {
        paeth_pixel(&mut a0, &mut c0, &prev[N * x..N * x + N], x0, r0, N * x);
        paeth_pixel(&mut a1, &mut c1, &r0[N * x - N..N * x], x1, r1, N * x - N);
    }
    paeth_pixel(&mut a1, &mut c1, &r0[N * n - N..N * n], x1, r1, N * n - N);
}

/// Paeth on RGBA rows in SSE2 (every x86-64 has it), a pixel's four bytes as 16-bit lanes
/// of one register. The left pixel is the only serial dependency, so what counts is the chain
/// from it to the next: here it stays in 16-bit lanes (no pack and unpack on the chain), and
/// `3c - b`, which needs no left pixel, is taken off it. A profile of the diff put Paeth at a
/// quarter of the decoding thread's time; this form took 4–6% off the 1440×900 diff cases
/// (`benches/peers/run.sh`).
#[cfg(target_arch = "x86_64")]
mod rgba {
    use super::Stored;
    use std::arch::x86_64::{
        __m128i, _mm_add_epi16, _mm_and_si128, _mm_andnot_si128, _mm_blendv_epi8, _mm_cmpgt_epi16,
        _mm_cvtsi32_si128, _mm_cvtsi128_si32, _mm_max_epi16, _mm_min_epi16, _mm_or_si128,
        _mm_packus_epi16, _mm_set1_epi16, _mm_setzero_si128, _mm_sub_epi16, _mm_unpacklo_epi8,
    };

    /// A pixel's four bytes as 16-bit lanes.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn load(px: &[u8]) -> __m128i {
        let v = _mm_cvtsi32_si128(i32::from_le_bytes([px[0], px[1], px[2], px[3]]));
        _mm_unpacklo_epi8(v, _mm_setzero_si128())
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn store(v: __m128i, px: &mut [u8]) {
        px[..4].copy_from_slice(&_mm_cvtsi128_si32(_mm_packus_epi16(v, v)).to_le_bytes());
    }

    /// `3c - b`, the part of the threshold that does not wait for the left pixel.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn ahead(b: __m128i, c: __m128i) -> __m128i {
        _mm_sub_epi16(_mm_add_epi16(_mm_add_epi16(c, c), c), b)
    }

    /// `yes` in the lanes `mask` sets, `no` in the others: one SSE4.1 blend (`BLEND`), or
    /// three SSE2 operations, two of them one after the other on the chain.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn pick<const BLEND: bool>(mask: __m128i, yes: __m128i, no: __m128i) -> __m128i {
        if BLEND {
            // SAFETY: `BLEND` is only set in functions built for SSE4.1 (into which this is
            // inlined), which are only called once the CPU is known to have it.
            unsafe { _mm_blendv_epi8(no, yes, mask) }
        } else {
            _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no))
        }
    }

    /// The reconstructed pixel from its stored bytes `x`, left `a`, up `b`, upper left `c`
    /// and `k` = [`ahead`]`(b, c)`: [`super::predict`] in lanes.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn step<const BLEND: bool>(
        x: __m128i,
        a: __m128i,
        b: __m128i,
        c: __m128i,
        k: __m128i,
    ) -> __m128i {
        let thresh = _mm_sub_epi16(k, a);
        let (lo, hi) = (_mm_min_epi16(a, b), _mm_max_epi16(a, b));
        let t0 = pick::<BLEND>(_mm_cmpgt_epi16(hi, thresh), c, lo);
        let pred = pick::<BLEND>(_mm_cmpgt_epi16(thresh, lo), t0, hi);
        _mm_and_si128(_mm_add_epi16(x, pred), _mm_set1_epi16(0xFF))
    }

    /// Whether this CPU has SSE4.1's blend, which takes two steps off each pixel's chain:
    /// Paeth rows were a third of the decoding thread's samples (perf, 1440×900, beside a hog).
    pub(super) fn blend() -> bool {
        std::is_x86_feature_detected!("sse4.1")
    }

    /// One Paeth row, [`super::paeth`] for four bytes a pixel.
    pub(super) fn paeth(prev: &[u8], x: impl Stored, cur: &mut [u8]) {
        if blend() {
            // SAFETY: the CPU has SSE4.1, checked just above.
            unsafe { paeth_blend(prev, x, cur) }
        } else {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { paeth_in::<false>(prev, x, cur) }
        }
    }

    #[target_feature(enable = "sse4.1")]
    fn paeth_blend(prev: &[u8], x: impl Stored, cur: &mut [u8]) {
        paeth_in::<true>(prev, x, cur)
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn paeth_in<const BLEND: bool>(prev: &[u8], x: impl Stored, cur: &mut [u8]) {
        let (mut a, mut c) = (_mm_setzero_si128(), _mm_setzero_si128());
        for (at, up) in (0..cur.len() / 4 * 4).step_by(4).zip(prev.chunks_exact(4)) {
            let b = load(&up[..4]);
            a = step::<BLEND>(load(&x.four(cur, at)), a, b, c, ahead(b, c));
            store(a, &mut cur[at..]);
            c = b;
        }
    }

    /// [`super::paeth_pair`] for four bytes a pixel.
    pub(super) fn pair<X: Stored>(prev: &[u8], x: (X, X), r0: &mut [u8], r1: &mut [u8]) {
        if blend() {
            // SAFETY: the CPU has SSE4.1, checked just above.
            unsafe { pair_blend(prev, x, r0, r1) }
        } else {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { pair_in::<false, X>(prev, x, r0, r1) }
        }
    }

    #[target_feature(enable = "sse4.1")]
    fn pair_blend<X: Stored>(prev: &[u8], x: (X, X), r0: &mut [u8], r1: &mut [u8]) {
        pair_in::<true, X>(prev, x, r0, r1)
    }

    /// `r1` one pixel behind `r0`, its upper pixel the one `r0` just made, still in a
    /// register.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn pair_in<const BLEND: bool, X: Stored>(
        prev: &[u8],
        (x0, x1): (X, X),
        r0: &mut [u8],
        r1: &mut [u8],
    ) {
        let zero = _mm_setzero_si128();
        let (mut a0, mut c0, mut a1, mut c1) = (zero, zero, zero, zero);
        let n = r0.len().min(r1.len()).min(prev.len()) / 4;
        if n == 0 {
            return;
        }
        let b = load(&prev[..4]);
        a0 = step::<BLEND>(load(&x0.four(r0, 0)), a0, b, c0, ahead(b, c0));
        store(a0, &mut r0[..4]);
        c0 = b;
        // `a0` is r1's upper pixel until the next of r0 is made.
        for at in (4..4 * n).step_by(4) {
            let (b0, b1) = (load(&prev[at..at + 4]), a0);
            a0 = step::<BLEND>(load(&x0.four(r0, at)), a0, b0, c0, ahead(b0, c0));
            a1 = step::<BLEND>(load(&x1.four(r1, at - 4)), a1, b1, c1, ahead(b1, c1));
            store(a0, &mut r0[at..]);
            store(a1, &mut r1[at - 4..]);
            (c0, c1) = (b0, b1);
        }
        let b1 = a0;
        let last = 4 * n - 4;
        store(
            step::<BLEND>(load(&x1.four(r1, last)), a1, b1, c1, ahead(b1, c1)),
            &mut r1[last..],
        );
    }
}

/// Whether `raw`, a reconstructed row under `prev`, filtered with `filter` gives `stored`:
/// that is, whether `stored` reconstructs to `raw` (filtering is a function of the row and the
/// row above, so this is exact). It is the forward filter, which has no chain from pixel to
/// pixel and vectorises, unlike reconstruction: checking that a row of one screenshot comes
/// out the same as the other screenshot's costs a fraction of reconstructing it.
pub(crate) fn filters_to(filter: u8, bpp: usize, prev: &[u8], raw: &[u8], stored: &[u8]) -> bool {
    debug_assert!(prev.len() == raw.len() && raw.len() == stored.len());
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above (the answer is cached).
        return unsafe { filters_to_avx2(filter, bpp, prev, raw, stored) };
    }
    filters_to_in(filter, bpp, prev, raw, stored)
}

/// [`filters_to`] compiled for AVX2, twice the lanes of the SSE2 every x86-64 has: the check
/// is a third of the time of the thread that compares (perf, 1440×900).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn filters_to_avx2(filter: u8, bpp: usize, prev: &[u8], raw: &[u8], stored: &[u8]) -> bool {
    filters_to_in(filter, bpp, prev, raw, stored)
}

#[inline(always)]
fn filters_to_in(filter: u8, bpp: usize, prev: &[u8], raw: &[u8], stored: &[u8]) -> bool {
    match filter {
        0 => raw == stored,
        1 => filtered_equal(bpp, prev, raw, stored, |a, _, _| a),
        2 => filtered_equal(bpp, prev, raw, stored, |_, b, _| b),
        3 => filtered_equal(bpp, prev, raw, stored, |a, b, _| {
            ((u16::from(a) + u16::from(b)) >> 1) as u8
        }),
        4 => filtered_equal(bpp, prev, raw, stored, |a, b, c| {
            predict(i16::from(a), i16::from(b), i16::from(c))
        }),
        _ => false,
    }
}

/// [`filters_to`] for one predictor of the left (`a`), upper (`b`) and upper-left (`c`)
/// bytes, instantiated per filter so each loop is branch-free and vectorises.
#[inline(always)]
fn filtered_equal(
    bpp: usize,
    prev: &[u8],
    raw: &[u8],
    stored: &[u8],
    predictor: impl Fn(u8, u8, u8) -> u8,
) -> bool {
    let n = raw.len().min(bpp);
    // The first pixel has nothing to its left (or upper left).
    for i in 0..n {
        if stored[i] != raw[i].wrapping_sub(predictor(0, prev[i], 0)) {
            return false;
        }
    }
    // The rest in blocks, the first differing block ending the check.
    const BLOCK: usize = 128;
    let mut i = n;
    while i < raw.len() {
        let end = (i + BLOCK).min(raw.len());
        let diff = raw[i..end]
            .iter()
            .zip(&raw[i - bpp..end - bpp])
            .zip(prev[i..end].iter().zip(&prev[i - bpp..end - bpp]))
            .zip(&stored[i..end])
            .fold(0u8, |acc, (((&x, &a), (&b, &c)), &st)| {
                acc | (st ^ x.wrapping_sub(predictor(a, b, c)))
            });
        if diff != 0 {
            return false;
        }
        i = end;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The PNG specification's Paeth predictor, written as the specification gives it.
    fn spec_paeth(a: u8, b: u8, c: u8) -> u8 {
        let p = i16::from(a) + i16::from(b) - i16::from(c);
        let (pa, pb, pc) = (
            (p - i16::from(a)).abs(),
            (p - i16::from(b)).abs(),
            (p - i16::from(c)).abs(),
        );
        if pa <= pb && pa <= pc {
            a
        } else if pb <= pc {
            b
        } else {
            c
        }
    }

    #[test]
    fn predictor_matches_the_specification_for_every_input() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                for c in 0..=255u8 {
                    let got = predict(i16::from(a), i16::from(b), i16::from(c));
                    assert_eq!(got, spec_paeth(a, b, c), "a={a} b={b} c={c}");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_rgba_step_matches_the_specification_for_every_input() {
        use std::arch::x86_64::{_mm_cvtsi128_si64, _mm_set_epi16, _mm_setzero_si128};
        #[target_feature(enable = "sse2")]
        fn check<const BLEND: bool>(b: i16, c: i16) {
            // Four `a` at once, one per lane, and a stored byte of 0: the result is the
            // prediction.
            let lanes = |v: [i16; 4]| _mm_set_epi16(0, 0, 0, 0, v[3], v[2], v[1], v[0]);
            let (bv, cv) = (lanes([b; 4]), lanes([c; 4]));
            for a in (0..=255i16).step_by(4) {
                let av = lanes([a, a + 1, a + 2, a + 3]);
                let k = rgba::ahead(bv, cv);
                let got = rgba::step::<BLEND>(_mm_setzero_si128(), av, bv, cv, k);
                let got = _mm_cvtsi128_si64(got);
                for (i, a) in (a..a + 4).enumerate() {
                    let want = spec_paeth(a as u8, b as u8, c as u8);
                    assert_eq!((got >> (16 * i)) as u8, want, "a={a} b={b} c={c} {BLEND}");
                }
            }
        }
        #[target_feature(enable = "sse4.1")]
        fn check_blend(b: i16, c: i16) {
            check::<true>(b, c)
        }
        for b in 0..=255 {
            for c in 0..=255 {
                // SAFETY: SSE2 is part of every x86-64 target.
                unsafe { check::<false>(b, c) };
                if rgba::blend() {
                    // SAFETY: the CPU has SSE4.1, checked just above.
                    unsafe { check_blend(b, c) };
                }
            }
        }
        assert!(
            rgba::blend(),
            "this test should run on a CPU with SSE4.1 too"
        );
    }

    /// Reconstructs with the specification's formulas, byte by byte.
    fn reference(filter: u8, bpp: usize, prev: &[u8], cur: &[u8]) -> Vec<u8> {
        let mut out = cur.to_vec();
        for i in 0..out.len() {
            let a = if i >= bpp { out[i - bpp] } else { 0 };
            let b = prev[i];
            let c = if i >= bpp { prev[i - bpp] } else { 0 };
            let pred = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                _ => spec_paeth(a, b, c),
            };
            out[i] = out[i].wrapping_add(pred);
        }
        out
    }

    /// Seeded bytes: they only need to cover many combinations.
    fn bytes(seed: u64) -> impl FnMut() -> u8 {
        let mut rng = crate::rng::Rng::new(seed);
        move || rng.byte()
    }

    #[test]
    fn a_row_filters_to_what_reconstructs_to_it_and_to_nothing_else() {
        let mut next = bytes(1);
        for bpp in [3, 4] {
            for filter in 0..=4u8 {
                for len in [bpp, bpp * 5, bpp * 100] {
                    let prev: Vec<u8> = (0..len).map(|_| next()).collect();
                    let stored: Vec<u8> = (0..len).map(|_| next()).collect();
                    let raw = reference(filter, bpp, &prev, &stored);
                    assert!(
                        filters_to(filter, bpp, &prev, &raw, &stored),
                        "{filter} {bpp} {len}"
                    );
                    // One byte off anywhere, in the row or the row above, is a different row.
                    for at in [0, len / 2, len - 1] {
                        let mut other = raw.clone();
                        other[at] ^= 1;
                        assert!(!filters_to(filter, bpp, &prev, &other, &stored), "raw {at}");
                        let mut above = prev.clone();
                        above[at] ^= 0x80;
                        let still = reference(filter, bpp, &above, &stored) == raw;
                        assert_eq!(filters_to(filter, bpp, &above, &raw, &stored), still);
                    }
                }
            }
            assert!(!filters_to(5, bpp, &[0; 8], &[0; 8], &[0; 8]));
        }
    }

    #[test]
    fn every_filter_matches_the_specification() {
        let mut next = bytes(2);
        for bpp in [3, 4] {
            for filter in 0..=4u8 {
                for _ in 0..50 {
                    let len = bpp * 37;
                    let prev: Vec<u8> = (0..len).map(|_| next()).collect();
                    let cur: Vec<u8> = (0..len).map(|_| next()).collect();
                    let want = reference(filter, bpp, &prev, &cur);
                    let mut got = cur.clone();
                    unfilter_row(filter, bpp, &prev, None, &mut got).unwrap();
                    assert_eq!(got, want, "filter {filter}, in place");
                    let mut got = vec![0xA5; len];
                    unfilter_row(filter, bpp, &prev, Some(&cur), &mut got).unwrap();
                    assert_eq!(got, want, "filter {filter}, from the stored bytes");
                }
            }
        }
    }

    #[test]
    fn a_paeth_pair_equals_two_single_rows() {
        let mut next = bytes(3);
        for bpp in [3, 4] {
            for pixels in [1, 2, 5, 64] {
                let len = bpp * pixels;
                let prev: Vec<u8> = (0..len).map(|_| next()).collect();
                let r0: Vec<u8> = (0..len).map(|_| next()).collect();
                let r1: Vec<u8> = (0..len).map(|_| next()).collect();
                let want0 = reference(4, bpp, &prev, &r0);
                let want1 = reference(4, bpp, &want0, &r1);
                let (mut p0, mut p1) = (r0.clone(), r1.clone());
                paeth_pair(bpp, &prev, None, &mut p0, &mut p1);
                assert_eq!((&p0, &p1), (&want0, &want1), "{bpp} {pixels}, in place");
                let (mut p0, mut p1) = (vec![0x5A; len], vec![0xA5; len]);
                paeth_pair(bpp, &prev, Some((&r0, &r1)), &mut p0, &mut p1);
                assert_eq!((&p0, &p1), (&want0, &want1), "{bpp} {pixels}, from stored");
                // The SSE2 form too, which a CPU with SSE4.1 never picks.
                #[cfg(target_arch = "x86_64")]
                if bpp == 4 {
                    let (mut p0, mut p1) = (vec![0; len], vec![0; len]);
                    let (mut single, mut p) = (r0.clone(), vec![0; len]);
                    // SAFETY: SSE2 is part of every x86-64 target.
                    unsafe {
                        rgba::pair_in::<false, _>(&prev, (&r0[..], &r1[..]), &mut p0, &mut p1);
                        rgba::paeth_in::<false>(&prev, super::InPlace, &mut single);
                        rgba::paeth_in::<false>(&prev, &r0[..], &mut p);
                    }
                    assert_eq!((&p0, &p1), (&want0, &want1), "{pixels}, SSE2");
                    assert_eq!((&single, &p), (&want0, &want0), "{pixels}, SSE2 single");
                }
            }
        }
    }

    #[test]
    fn an_unknown_filter_type_is_an_error() {
        let mut row = [0u8; 8];
        assert_eq!(
            unfilter_row(5, 4, &[0; 8], None, &mut row),
            Err(BadFilter(5))
        );
    }
}
