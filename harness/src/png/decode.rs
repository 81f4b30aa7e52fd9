//! A direct PNG decoder for what screenshots are — 8-bit RGB or RGBA, not interlaced — so an
//! end-to-end diff is not dominated by decoding. The main type is [`Scanlines`]: the image
//! inflated into one buffer already sized for the final RGBA pixels, then reconstructed in
//! place row by row (no second buffer, no per-row copies through a reader, no zeroing pass).
//! Everything else (palettes, grey, 16-bit, interlacing, `tRNS` colour keys, APNG, unknown
//! critical chunks) is [`Parsed::Other`], which the caller hands to the image crate.

use std::path::Path;

use image::RgbaImage;

use super::unfilter::{BadFilter, paeth_pair, unfilter_row};
use crate::errors::{InputError, Reason};
use crate::limits::{DECODE_BYTES, PNG_SIDE};

/// Inflated bytes offered to the inflater per call (see [`parse`]).
const INFLATE_STEP: usize = 1 << 20;

/// What [`parse`] made of a PNG file.
pub(crate) enum Parsed {
    /// An 8-bit RGB or RGBA image, inflated, rows still filtered.
    Fast(Scanlines),
    /// A PNG of another kind, or an unusual structure, for the general decoder.
    Other,
}

/// An inflated, still filtered image: `height` rows of one filter byte and `stride()` bytes,
/// at the start of a buffer large enough for the RGBA result.
pub(crate) struct Scanlines {
    /// Width in pixels.
    pub(crate) width: u32,
    /// Height in pixels.
    pub(crate) height: u32,
    /// 3 (RGB) or 4 (RGBA).
    pub(crate) channels: usize,
    /// The buffer (see the type's doc).
    pub(crate) buf: Vec<u8>,
}

impl Scanlines {
    /// Bytes in one reconstructed row.
    pub(crate) fn stride(&self) -> usize {
        self.width as usize * self.channels
    }

    /// Reconstructs every row and widens RGB to RGBA, in place.
    pub(crate) fn into_rgba(mut self, path: &Path) -> Result<RgbaImage, InputError> {
        let (h, s, bpp) = (self.height as usize, self.stride(), self.channels);
        let zeros = vec![0u8; s];
        reconstruct(&mut self.buf, h, s, bpp, &zeros).map_err(|(e, y)| bad_filter(path, e, y))?;
        Ok(self.finish())
    }

    /// Turns reconstructed rows (at the start of the buffer) into the RGBA image.
    pub(crate) fn finish(mut self) -> RgbaImage {
        let pixels = self.width as usize * self.height as usize;
        if self.channels == 3 {
            // Backwards in blocks, each block's RGB bytes copied out first: the wider RGBA
            // pixels then never cover a triple not yet read (4·start ≥ 3·start), and the
            // expansion is a fixed-size loop the compiler vectorises (a pixel at a time, it was
            // a tenth of `run`'s time).
            const BLOCK: usize = 512;
            let mut rgb = [0u8; 3 * BLOCK];
            let mut end = pixels;
            while end > 0 {
                let start = end.saturating_sub(BLOCK);
                let n = end - start;
                rgb[..3 * n].copy_from_slice(&self.buf[3 * start..3 * end]);
                let src = rgb[..3 * n].as_chunks::<3>().0;
                let dst = self.buf[4 * start..4 * end].as_chunks_mut::<4>().0;
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = [s[0], s[1], s[2], 255];
                }
                end = start;
            }
        }
        self.buf.truncate(pixels * 4);
        RgbaImage::from_raw(self.width, self.height, self.buf)
            .expect("the buffer holds width × height RGBA pixels")
    }
}

/// The error for a row with an unknown filter type.
pub(crate) fn bad_filter(path: &Path, e: BadFilter, y: usize) -> InputError {
    InputError::new(
        path,
        Reason::InvalidImage,
        format!("cannot decode: unknown filter type {} in row {y}", e.0),
    )
}

/// Reconstructs the `h` rows of `buf` in place, each moved down to where its reconstructed
/// row belongs (`y × s`, just before its filtered bytes) and unfiltered against the row above
/// (`zeros` above the first). Two Paeth rows in a row (the common case) are reconstructed
/// together. Returns the error of the first bad row.
fn reconstruct(
    buf: &mut [u8],
    h: usize,
    s: usize,
    bpp: usize,
    zeros: &[u8],
) -> Result<(), (BadFilter, usize)> {
    let mut y = 0;
    while y < h {
        let (at, out) = (y * (s + 1), y * s);
        if y + 1 < h && buf[at] == 4 && buf[at + s + 1] == 4 {
            buf.copy_within(at + 1..at + 1 + s, out);
            buf.copy_within(at + s + 2..at + 2 * s + 2, out + s);
            let (head, rest) = buf.split_at_mut(out);
            let prev = if out == 0 { zeros } else { &head[out - s..] };
            let (r0, r1) = rest[..2 * s].split_at_mut(s);
            paeth_pair(bpp, prev, None, r0, r1);
            y += 2;
            continue;
        }
        let filter = buf[at];
        buf.copy_within(at + 1..at + 1 + s, out);
        let (head, tail) = buf.split_at_mut(out);
        let prev = if out == 0 { zeros } else { &head[out - s..] };
        unfilter_row(filter, bpp, prev, None, &mut tail[..s]).map_err(|e| (e, y))?;
        y += 1;
    }
    Ok(())
}

/// Asks Linux to back a large fresh buffer with 2 MiB pages where transparent huge pages are
/// on request (`madvise` mode): a screenshot buffer is tens of MB, and faulting it in 4 KiB at a
/// time cost more than inflating into it. Elsewhere, or if refused, nothing changes.
fn advise_huge_pages(buf: &mut [u8]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buf.as_mut_ptr() as usize;
        let (from, to) = (
            start.next_multiple_of(HUGE),
            (start + buf.len()) / HUGE * HUGE,
        );
        if to > from {
            // SAFETY: the range lies inside `buf`, which is ours; MADV_HUGEPAGE only changes how
            // the kernel backs those pages, never what they hold.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// Reads the chunks of a PNG file (the signature already checked) and inflates its image data
/// when it is 8-bit RGB or RGBA and not interlaced ([`walk`], then [`inflate`]).
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<Parsed, InputError> {
    match walk(path, bytes)? {
        Some(chunks) => inflate(path, &chunks).map(Parsed::Fast),
        None => Ok(Parsed::Other),
    }
}

/// The image data of an 8-bit RGB or RGBA PNG, not interlaced, still compressed.
pub(crate) struct Chunks<'a> {
    /// Width in pixels.
    pub(crate) width: u32,
    /// Height in pixels.
    pub(crate) height: u32,
    /// 3 (RGB) or 4 (RGBA).
    pub(crate) channels: usize,
    /// The IDAT chunks' data, in order: one zlib stream.
    pub(crate) idat: Vec<&'a [u8]>,
}

impl Chunks<'_> {
    /// Bytes in one reconstructed row.
    pub(crate) fn stride(&self) -> usize {
        self.width as usize * self.channels
    }

    /// Bytes of the inflated image: each row's filter byte and its filtered bytes.
    pub(crate) fn filtered_len(&self) -> usize {
        self.height as usize * (self.stride() + 1)
    }
}

/// Walks the chunks of a PNG file (the signature already checked): its image data when it is
/// 8-bit RGB or RGBA and not interlaced, `None` for another kind or an unusual structure. Size
/// and memory limits are checked here, before anything is allocated; chunk CRCs are checked
/// like the general decoder does.
pub(crate) fn walk<'a>(path: &Path, bytes: &'a [u8]) -> Result<Option<Chunks<'a>>, InputError> {
    let mut p = 8;
    let mut header: Option<(u32, u32, usize)> = None;
    let mut idat: Vec<&[u8]> = Vec::new();
    let mut idat_ended = false;
    loop {
        let Some(head) = bytes.get(p..p + 8) else {
            return Ok(None);
        };
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let kind: [u8; 4] = [head[4], head[5], head[6], head[7]];
        let Some(data) = bytes.get(p + 8..p + 8 + len) else {
            return Ok(None);
        };
        let Some(crc) = bytes.get(p + 8 + len..p + 12 + len) else {
            return Ok(None);
        };
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&kind);
        hasher.update(data);
        if hasher.finalize() != u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]) {
            return Ok(None);
        }
        p += 12 + len;
        match &kind {
            b"IHDR" => {
                if header.is_some() || len != 13 {
                    return Ok(None);
                }
                let w = u32::from_be_bytes([data[0], data[1], data[2], data[3]]);
                let h = u32::from_be_bytes([data[4], data[5], data[6], data[7]]);
                let [depth, colour, compression, filter, interlace] =
                    [data[8], data[9], data[10], data[11], data[12]];
                if w == 0 || h == 0 {
                    return Ok(None);
                }
                if w > PNG_SIDE || h > PNG_SIDE {
                    return Err(InputError::new(
                        path,
                        Reason::LimitExceeded,
                        format!(
                            "cannot decode: {w}×{h} is over the limit of {PNG_SIDE} pixels a side"
                        ),
                    ));
                }
                let channels = match colour {
                    2 => 3,
                    6 => 4,
                    _ => return Ok(None),
                };
                if depth != 8 || compression != 0 || filter != 0 || interlace != 0 {
                    return Ok(None);
                }
                header = Some((w, h, channels));
            }
            b"IDAT" => {
                if header.is_none() || idat_ended {
                    return Ok(None);
                }
                idat.push(data);
            }
            b"IEND" => break,
            // Colour keys, animation: the general decoder knows what they mean.
            b"tRNS" | b"acTL" | b"fcTL" | b"fdAT" => return Ok(None),
            // A suggested palette for an RGB image changes nothing.
            b"PLTE" => {}
            _ if kind[0].is_ascii_uppercase() => return Ok(None),
            _ => idat_ended |= !idat.is_empty(),
        }
    }
    let (Some((width, height, channels)), false) = (header, idat.is_empty()) else {
        return Ok(None);
    };
    let (w, h) = (width as u64, height as u64);
    let filtered = h * (w * channels as u64 + 1);
    let size = filtered.max(w * h * 4);
    if size > DECODE_BYTES {
        return Err(InputError::new(
            path,
            Reason::LimitExceeded,
            format!(
                "cannot decode: {width}×{height} needs {size} bytes, over the limit of {DECODE_BYTES}"
            ),
        ));
    }
    Ok(Some(Chunks {
        width,
        height,
        channels,
        idat,
    }))
}

/// Inflates a walked image into a buffer sized for its RGBA pixels.
fn inflate(path: &Path, chunks: &Chunks<'_>) -> Result<Scanlines, InputError> {
    let (width, height, channels) = (chunks.width, chunks.height, chunks.channels);
    let filtered = chunks.filtered_len();
    let size = filtered.max(width as usize * height as usize * 4);
    let mut buf = crate::limits::zeroed(path, size)?;
    advise_huge_pages(&mut buf);
    let mut inflater = inflater();
    let mut made = 0;
    let mut chunks = chunks.idat.iter().peekable();
    let mut input: &[u8] = &[];
    loop {
        if input.is_empty() {
            match chunks.next() {
                Some(chunk) => input = chunk,
                None => break,
            }
        }
        // fdeflate checksums the output of the call that reaches the end of the stream even
        // when told not to; offering the output a step at a time keeps that to the last step.
        let limit = (made + INFLATE_STEP).min(filtered);
        let (used, n) = inflater
            .read(input, &mut buf[..limit], made, chunks.peek().is_none())
            .map_err(|e| inflate_error(path, Some(e)))?;
        made += n;
        input = &input[used..];
        if made == filtered || inflater.is_done() {
            break;
        }
    }
    if made < filtered {
        return Err(inflate_error(path, None));
    }
    Ok(Scanlines {
        width,
        height,
        channels,
        buf,
    })
}

/// An inflater for image data.
pub(crate) fn inflater() -> fdeflate::Decompressor {
    let mut inflater = fdeflate::Decompressor::new();
    // Like the png crate by default: the chunk CRCs already guard the data, and the Adler-32
    // of the whole inflated image costs as much as a tenth of decoding it.
    inflater.ignore_adler32();
    inflater
}

/// The error for image data that does not inflate: corrupt, or (`None`) ending early.
pub(crate) fn inflate_error(path: &Path, e: Option<fdeflate::DecompressionError>) -> InputError {
    let message = match e {
        None | Some(fdeflate::DecompressionError::InsufficientInput) => {
            "cannot decode: the image data ends early".to_string()
        }
        Some(e) => format!("cannot decode: corrupt image data ({e:?})"),
    };
    InputError::new(path, Reason::InvalidImage, message)
}

/// A PNG file of these chunks, lengths and CRCs filled in: for tests that craft files.
#[cfg(test)]
pub(crate) fn png_of_chunks(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in chunks {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        out.extend_from_slice(*kind);
        out.extend_from_slice(data);
        let mut crc = crc32fast::Hasher::new();
        crc.update(*kind);
        crc.update(data);
        out.extend_from_slice(&crc.finalize().to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG file with a header, one empty IDAT chunk and IEND: enough for the checks made
    /// before anything is allocated.
    fn header_only(w: u32, h: u32, depth: u8, colour: u8) -> Vec<u8> {
        let mut ihdr = w.to_be_bytes().to_vec();
        ihdr.extend_from_slice(&h.to_be_bytes());
        ihdr.extend_from_slice(&[depth, colour, 0, 0, 0]);
        png_of_chunks(&[(b"IHDR", &ihdr), (b"IDAT", &[]), (b"IEND", &[])])
    }

    fn reason(bytes: &[u8]) -> Option<Reason> {
        parse(Path::new("x.png"), bytes).err().map(|e| e.reason)
    }

    #[test]
    fn limits_are_checked_before_allocating() {
        // Within the side limit, but 16000 × 16000 RGBA needs ~1 GB, over the memory limit.
        let e = parse(Path::new("x.png"), &header_only(16_000, 16_000, 8, 6))
            .err()
            .expect("over the memory limit");
        assert_eq!(e.reason, Reason::LimitExceeded);
        assert!(e.message.contains("over the limit of"), "{}", e.message);
        assert_eq!(
            reason(&header_only(PNG_SIDE + 1, 10, 8, 6)),
            Some(Reason::LimitExceeded)
        );
        // At the side limit the header is fine (the empty image data is what fails it here).
        assert_ne!(
            reason(&header_only(PNG_SIDE, 10, 8, 6)),
            Some(Reason::LimitExceeded)
        );
    }

    #[test]
    fn other_kinds_go_to_the_general_decoder() {
        // 16-bit RGBA, grey, palette: not the fast path (and no image data is needed to say so).
        for (depth, colour) in [(16, 6), (8, 0), (8, 3)] {
            let parsed = parse(Path::new("x.png"), &header_only(4, 4, depth, colour)).unwrap();
            assert!(
                matches!(parsed, Parsed::Other),
                "depth {depth} colour {colour}"
            );
        }
        // A bad CRC is left to the general decoder, which reports it.
        let mut bytes = header_only(4, 4, 8, 6);
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert!(matches!(
            parse(Path::new("x.png"), &bytes).unwrap(),
            Parsed::Other
        ));
    }
}
