//! `point-out-of-range`, `point-outside-bounds`
//!
//! What: `point` and `bounds` are shares of the screenshot, inside 0..1 (bounds wholly so),
//! and the point lies inside the bounds.
//! Why: they are the only way to find a nameless control; a point off the screen or outside
//! its own control's frame clicks something else.
//! Example: `"point": { "x": 1.3, "y": 0.5 }` → finding at `steps[0].target.point.x`.

use super::{Ctx, step_path};
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};

/// Rounding slack: exported shares carry 3 decimals.
const EPS: f64 = 1e-9;

fn in_range(v: f64) -> bool {
    (-EPS..=1.0 + EPS).contains(&v)
}

fn range(out: &mut Vec<Finding>, path: FieldPath, v: f64) {
    if !in_range(v) {
        out.push(
            Finding::new(
                Severity::Error,
                "point-out-of-range",
                path,
                format!("{v} is outside 0..1"),
            )
            .hint("points and bounds are shares of the screenshot, from 0 to 1"),
        );
    }
}

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let Some(t) = &step.target else { continue };
        let tp = step_path(i).key("target");
        if let Some(p) = t.point {
            range(out, tp.key("point").key("x"), p.x);
            range(out, tp.key("point").key("y"), p.y);
        }
        if let Some(b) = t.bounds {
            let bp = tp.key("bounds");
            range(out, bp.key("x"), b.x);
            range(out, bp.key("y"), b.y);
            range(out, bp.key("width"), b.width);
            range(out, bp.key("height"), b.height);
            // Bounds already out of range say all there is to say about this target.
            if ![b.x, b.y, b.width, b.height].into_iter().all(in_range) {
                continue;
            }
            if !in_range(b.x + b.width) || !in_range(b.y + b.height) {
                out.push(
                    Finding::new(
                        Severity::Error,
                        "point-out-of-range",
                        bp.clone(),
                        "the bounds reach past the edge of the screenshot".into(),
                    )
                    .hint("x + width and y + height must be at most 1"),
                );
            }
            // A point off the screenshot is already an error; "outside its bounds" would only
            // repeat it.
            if let Some(p) = t.point.filter(|p| in_range(p.x) && in_range(p.y)) {
                let inside = p.x >= b.x - EPS
                    && p.x <= b.x + b.width + EPS
                    && p.y >= b.y - EPS
                    && p.y <= b.y + b.height + EPS;
                if !inside {
                    out.push(
                        Finding::new(
                            Severity::Error,
                            "point-outside-bounds",
                            tp.key("point"),
                            format!(
                                "the point ({}, {}) lies outside the control's bounds",
                                p.x, p.y
                            ),
                        )
                        .hint("re-record the step: the click landed outside its own control"),
                    );
                }
            }
        }
    }
}
