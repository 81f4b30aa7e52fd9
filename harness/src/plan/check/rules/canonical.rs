//! `non-canonical`
//!
//! What: the file's bytes are exactly the canonical form (`stepreplay fmt`).
//! Why: a guide's revision is a hash of its bytes; the same plan must always give the same
//! bytes or every re-save looks like a new revision that needs review again.
//! Optional lists with nothing in them (`"reads": []`, `"modifiers": []`) are left out, as
//! the format says optional fields are.
//! Example: keys out of order → finding at the first line that differs. Only a plan file is
//! checked: the plan inside an MCP `get_guide` response is not saved as it stands.
//! A protocolv2 plan is held to the same layout; its `options` strings are left as written
//! (they are the reviewed text, and `fmt` does not rewrite what a reviewer approved).

use super::{Ctx, DevCtx};
use crate::errors::FieldPath;
use crate::json::Source;
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::canonical_plan_text;

/// The reason code, which `check` sorts after every other finding.
pub(crate) const NON_CANONICAL: &str = "non-canonical";

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    // A get_guide response is transport, not a plan file anyone saves or hashes.
    if !ctx.bare {
        return;
    }
    differs(ctx.src, &canonical_plan_text(ctx.value), out);
}

pub(crate) fn check_devthink(ctx: &DevCtx, out: &mut Vec<Finding>) {
    differs(ctx.src, &crate::json::to_canonical(ctx.value), out);
}

/// A finding at the first line where `src` is not `canonical`.
fn differs(src: &Source, canonical: &str, out: &mut Vec<Finding>) {
    if canonical == src.text {
        return;
    }
    let line = src
        .text
        .split_inclusive('\n')
        .zip(canonical.split_inclusive('\n'))
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| canonical.lines().count().min(src.text.lines().count()))
        + 1;
    // A warning: layout is not correctness (`run` replays the plan all the same), and a
    // hand-written plan should not fail `check` until `fmt` has run.
    let mut f = Finding::new(
        Severity::Warning,
        NON_CANONICAL,
        FieldPath::root(),
        format!("the bytes are not in canonical form (first difference on line {line})"),
    )
    .hint(format!("run `stepreplay fmt {}`", src.path.display()));
    f.line = Some(line);
    f.column = Some(1);
    out.push(f);
}
