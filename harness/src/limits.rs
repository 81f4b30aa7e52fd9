//! Every limit on input, in one place: what a hostile or broken file can make the harness
//! read, decode, hold or write is bounded here, and each limit says what happens at it. The
//! table in `docs/limits.md` is [`table`]'s output (a test keeps them equal).

use crate::errors::Reason;

/// A plan file or `get_guide` response.
pub(crate) const PLAN_BYTES: u64 = 4 << 20;
/// The caps `check` holds a plan to, which its user may set (`--max-depth`, which `fmt`,
/// `run`, `agent` and `mutate` take too, and `--max-plan-bytes`): the devthink review surface leaves every bound it honours a user's
/// choice. The defaults are [`JSON_DEPTH`] and [`PLAN_BYTES`]; the depth may be raised to
/// [`JSON_DEPTH_MAX`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlanCaps {
    /// Nesting levels of the plan, and of each devthink step's options, counted apart.
    pub depth: usize,
    /// Bytes of the plan file.
    pub bytes: u64,
}

impl Default for PlanCaps {
    fn default() -> Self {
        PlanCaps {
            depth: JSON_DEPTH,
            bytes: PLAN_BYTES,
        }
    }
}

/// A scenario file, or the answers file of `run PLAN --recording`.
pub(crate) const SCENARIO_BYTES: u64 = 1 << 20;
/// A bridge scenario file.
pub(crate) const BRIDGE_SCENARIO_BYTES: u64 = 4 << 20;
/// A recording's `recording.json`.
pub(crate) const RECORDING_BYTES: u64 = 4 << 20;
/// One AX snapshot file.
pub(crate) const AX_BYTES: u64 = 32 << 20;
/// Elements in one AX snapshot.
pub(crate) const AX_ELEMENTS: usize = 500_000;
/// One screenshot file.
pub(crate) const PNG_BYTES: u64 = 64 << 20;
/// A screenshot's width or height, in pixels (an 8K screen is 7680).
pub(crate) const PNG_SIDE: u32 = 16_384;
/// Memory one screenshot's decoding may take: the decoder's buffer and the RGBA copy, counted
/// from the header before anything is allocated.
pub(crate) const DECODE_BYTES: u64 = 256 << 20;
/// Decoded screenshots kept in memory at once; past it the least recently used are dropped
/// and decoded again when needed (results never depend on it).
pub(crate) const FRAME_CACHE_BYTES: u64 = 256 << 20;
/// Nesting of any JSON document: serde_json's own limit (its recursion budget of 128 refuses
/// the 128th level), kept so deep input cannot overflow the stack. A test holds it to that.
pub(crate) const JSON_DEPTH: usize = 127;
/// The most nesting a user may allow (`--max-depth`): past [`JSON_DEPTH`] a document
/// is parsed on a thread of its own with [`JSON_DEEP_STACK`] of stack, which holds this many
/// levels of the parse and of every walk over the value with room to spare.
pub(crate) const JSON_DEPTH_MAX: usize = 10_000;
/// The stack of that thread (reserved, not committed, until a parse goes that deep).
pub(crate) const JSON_DEEP_STACK: usize = 256 << 20;
/// A `synth` or `record` script.
pub(crate) const SCRIPT_BYTES: u64 = 1 << 20;
/// A source file `import` reads (steps, trees, metadata).
pub(crate) const IMPORT_SOURCE_BYTES: u64 = 64 << 20;
/// A job file in `serve`'s inbox.
pub(crate) const JOB_BYTES: u64 = 1 << 20;
/// Scenarios one `serve` run job may name.
pub const JOB_SCENARIOS: usize = 1000;
/// The bridge's `manifest.json`.
pub(crate) const MANIFEST_BYTES: u64 = 64 << 20;
/// A state file given to `bridge init --state`.
pub(crate) const STATE_BYTES: u64 = 16 << 20;
/// Refused commands the bridge's ledger remembers; past it the oldest is forgotten (what
/// succeeded is always kept: later commands refer to it).
pub(crate) const LEDGER_REFUSED: usize = 10_000;
/// Characters of a command's own text (verb, message, field path) an outcome repeats.
pub(crate) const ECHO_CHARS: usize = 200;
/// One scenario's entry (or another top-level value) of a baseline file: the file is read an
/// entry at a time, so its size is not capped.
pub(crate) const BASELINE_ENTRY_BYTES: u64 = 1 << 20;
/// One scenario's entry (or another top-level value) of a `report.json` read back by `merge`
/// or `baseline accept`: the file is read an entry at a time, so its size is not capped.
pub(crate) const REPORT_ENTRY_BYTES: u64 = 16 << 20;
/// The `junit.xml` `run --durations` reads times from (streamed, never held).
pub(crate) const DURATIONS_BYTES: u64 = 1 << 30;
/// Nodes `record` reads from one live AT-SPI tree; past it the tree is marked incomplete.
pub(crate) const RECORD_NODES: usize = 20_000;
/// The longest line an agent under test may send.
pub(crate) const AGENT_LINE_BYTES: usize = 1 << 20;
/// The largest file an agent on the bridge may read through the protocol.
pub(crate) const AGENT_READ_BYTES: u64 = 1 << 20;
/// The most messages one agent-on-the-bridge episode takes.
pub(crate) const AGENT_BRIDGE_TURNS: usize = 200;

/// `len` zero bytes for `path`, or a clear error naming the input and the size when no
/// process could have that much; when this process's memory limit is what refuses it, the
/// run ends as [`out_of_memory`] says. Zeroed lazily, as `vec![0; len]` is.
pub(crate) fn zeroed(
    path: &std::path::Path,
    len: usize,
) -> Result<Vec<u8>, crate::errors::InputError> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let refused = || {
        crate::errors::InputError::new(
            path,
            Reason::LimitExceeded,
            format!("cannot get {len} bytes of memory to read it"),
        )
        .hint("the process's memory limit (ulimit -v, a container's) is lower; raise it")
    };
    let layout = std::alloc::Layout::array::<u8>(len).map_err(|_| refused())?;
    // SAFETY: `layout` has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        // The size was allowed; the process's memory is what ran out: a run error.
        out_of_memory(len);
    }
    // SAFETY: `p` was allocated by the global allocator with the layout of `len` bytes, which
    // is what a `Vec<u8>` of capacity `len` frees with, and all `len` bytes are initialized.
    Ok(unsafe { Vec::from_raw_parts(p, len, len) })
}

/// The exit code of a run stopped by a resource limit (memory: `ulimit -v`, a container's):
/// a run error, never a test result.
pub const LIMIT_EXIT: u8 = 4;

/// The global allocator of the `stepreplay` binary: the system's, except that an allocation
/// the process's memory limit refuses ends the run through [`out_of_memory`] instead of an
/// abort.
pub struct LimitAlloc;

// SAFETY: every call is passed to the system allocator unchanged; a null result never
// returns (`out_of_memory` exits).
unsafe impl std::alloc::GlobalAlloc for LimitAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        let p = unsafe { std::alloc::System.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { std::alloc::System.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: as `alloc`.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { std::alloc::System.realloc(ptr, layout, new) };
        if p.is_null() {
            out_of_memory(new);
        }
        p
    }
}

/// What marks the report folders a run claimed when memory runs out (set by the code that
/// claims them); it must not allocate.
static ON_OUT_OF_MEMORY: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets what [`out_of_memory`] calls to mark the run's report folders, once.
pub(crate) fn on_out_of_memory(mark: fn()) {
    let _ = ON_OUT_OF_MEMORY.set(mark);
}

/// Ends the run when memory runs out, without allocating: says so on standard error, marks
/// each report folder the run claimed incomplete, naming the limit (a manifest written when
/// the folder was claimed), and exits [`LIMIT_EXIT`].
pub(crate) fn out_of_memory(wanted: usize) -> ! {
    let mut msg = [0u8; 160];
    let mut n = 0;
    let mut buf = [0u8; 20];
    for part in [
        "error: limit-exceeded: out of memory: could not get ".as_bytes(),
        digits(wanted as u64, &mut buf),
        b" bytes under the process's memory limit; the run stopped (raise ulimit -v or the container's limit)\n",
    ] {
        let take = part.len().min(msg.len() - n);
        msg[n..n + take].copy_from_slice(&part[..take]);
        n += take;
    }
    #[cfg(unix)]
    // SAFETY: writes a stack buffer to standard error; no allocation.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), n);
    }
    if let Some(mark) = ON_OUT_OF_MEMORY.get() {
        mark();
    }
    #[cfg(unix)]
    // SAFETY: ends the process at once, as an abort would, with our own code.
    unsafe {
        libc::_exit(i32::from(LIMIT_EXIT))
    }
    #[cfg(not(unix))]
    std::process::abort()
}

/// `n` in decimal, written into `buf`, without allocating.
fn digits(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

/// The process's address-space limit (`ulimit -v`), in words, when there is one.
pub(crate) fn memory_limit() -> Option<String> {
    #[cfg(unix)]
    {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct we pass.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0
            && r.rlim_cur != libc::RLIM_INFINITY
        {
            return Some(format!("ulimit -v {} MiB", r.rlim_cur >> 20));
        }
    }
    None
}

/// What happens at a limit.
pub(crate) enum AtLimit {
    /// The input is refused with this reason code (exit 2, or the job's outcome).
    Refused(Reason),
    /// The input is kept, cut to the limit, and the cut is said.
    Cut(&'static str),
}

/// One row of the table.
pub struct Limit {
    /// What is limited.
    pub what: &'static str,
    /// The limit, in words (`4 MiB`).
    pub value: String,
    /// What happens past it.
    pub(crate) at_limit: AtLimit,
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

/// Every limit, for `docs/limits.md`.
pub fn limits() -> Vec<Limit> {
    use AtLimit::{Cut, Refused};
    // Files refused from their size before they are read.
    let files = [
        ("plan file, `get_guide` response", PLAN_BYTES),
        ("scenario file, answers file", SCENARIO_BYTES),
        (
            "bridge or agent-bridge scenario file",
            BRIDGE_SCENARIO_BYTES,
        ),
        ("`recording.json`", RECORDING_BYTES),
        ("AX snapshot file", AX_BYTES),
        ("screenshot file", PNG_BYTES),
        ("`synth` / `record` script", SCRIPT_BYTES),
        ("file read by `import`", IMPORT_SOURCE_BYTES),
        ("`serve` job file", JOB_BYTES),
        ("bridge `manifest.json`", MANIFEST_BYTES),
        ("`bridge init --state` file", STATE_BYTES),
        ("`run --durations` file", DURATIONS_BYTES),
    ];
    let over = [
        ("elements in one AX snapshot", AX_ELEMENTS.to_string()),
        ("screenshot width or height", format!("{PNG_SIDE} px")),
        ("memory to decode one screenshot", mib(DECODE_BYTES)),
        (
            "JSON nesting, any file (a plan: `--max-depth`, up to 10000)",
            format!("{JSON_DEPTH} levels"),
        ),
        (
            "one scenario entry of a `report.json` read back (the file itself is read an entry at a time)",
            mib(REPORT_ENTRY_BYTES),
        ),
        (
            "one scenario entry of a baseline file (the file itself is read an entry at a time)",
            mib(BASELINE_ENTRY_BYTES),
        ),
        (
            "scenarios in one `serve` run job",
            JOB_SCENARIOS.to_string(),
        ),
    ];
    let cut = [
        (
            "decoded screenshots held in memory",
            mib(FRAME_CACHE_BYTES),
            "the least recently used are dropped, decoded again if needed",
        ),
        (
            "refused commands in the bridge ledger",
            LEDGER_REFUSED.to_string(),
            "the oldest refused entry is forgotten",
        ),
        (
            "command text echoed in an outcome",
            format!("{ECHO_CHARS} characters"),
            "cut, ending in `…`",
        ),
        (
            "nodes `record` reads from one live tree",
            RECORD_NODES.to_string(),
            "the frame is marked incomplete",
        ),
        (
            "one line from an agent under test",
            mib(AGENT_LINE_BYTES as u64),
            "the scenario ends `agent-failed`",
        ),
        (
            "a file an agent reads on the bridge",
            mib(AGENT_READ_BYTES),
            "the read is refused",
        ),
        (
            "messages in one agent-on-the-bridge run",
            AGENT_BRIDGE_TURNS.to_string(),
            "the scenario ends `agent-failed`",
        ),
    ];
    let files = files.into_iter().map(|(what, bytes)| Limit {
        what,
        value: mib(bytes),
        at_limit: Refused(Reason::FileTooLarge),
    });
    let over = over.into_iter().map(|(what, value)| Limit {
        what,
        value,
        at_limit: Refused(Reason::LimitExceeded),
    });
    let cut = cut.into_iter().map(|(what, value, how)| Limit {
        what,
        value,
        at_limit: Cut(how),
    });
    files.chain(over).chain(cut).collect()
}

/// The limits as a Markdown table.
pub fn table() -> String {
    let mut out = String::from("| input | limit | past it |\n| --- | --- | --- |\n");
    for l in limits() {
        let past = match l.at_limit {
            AtLimit::Refused(r) => format!("refused, `{}`", r.code()),
            AtLimit::Cut(how) => how.to_string(),
        };
        out.push_str(&format!("| {} | {} | {past} |\n", l.what, l.value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_every_limit_once_with_a_value() {
        let t = table();
        assert_eq!(t.lines().count(), 2 + limits().len());
        assert!(
            t.contains("| screenshot width or height | 16384 px | refused, `limit-exceeded` |")
        );
        assert!(
            t.contains("| plan file, `get_guide` response | 4 MiB | refused, `file-too-large` |")
        );
    }

    #[test]
    fn memory_that_cannot_be_had_is_an_error_naming_the_input() {
        let path = std::path::Path::new("recordings/r/frames/f0.png");
        let v = zeroed(path, 4096).unwrap();
        assert!(v.len() == 4096 && v.iter().all(|&b| b == 0));
        // More than any allocation may be: refused with the input's name, not an abort.
        let e = zeroed(path, usize::MAX).unwrap_err();
        assert_eq!(e.reason, Reason::LimitExceeded);
        assert!(e.to_string().contains("f0.png"), "{e}");
    }

    /// Prints the table for `docs/limits.md` (`cargo test -p stepreplay --lib print_limits -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn print_limits() {
        print!("{}", table());
    }
}
