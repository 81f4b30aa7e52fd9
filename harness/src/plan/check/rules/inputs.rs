//! `undeclared-input`, `unknown-id` (in `reads`), `reads-used-by-mismatch`, `sensitive-example`,
//! `unused-input`
//!
//! What: templates and `reads` name declared inputs only; a step reads an input exactly when
//! that input's `used_by` lists the step's number; a template's inputs are among its `reads`;
//! a sensitive input carries no `example`; every input is used.
//! Why: a follower asks for inputs by `used_by` and fills templates from `reads`. When the two
//! disagree it either asks for nothing or types a hole. A sensitive example is a leaked secret:
//! the plan is shared with AIs.
//! Example: `"template": "{client-email}"` with no input `client-email` → `undeclared-input`.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{Ctx, step_path};
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::Step;
use crate::plan::lower::parse_template;

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let declared: HashMap<&str, usize> = ctx
        .fox
        .inputs
        .iter()
        .enumerate()
        .map(|(i, inp)| (inp.id.as_str(), i))
        .collect();

    // Lookups are hashed: a plan may hold thousands of steps and inputs, and every pairwise
    // scan here would be quadratic in the file's size.
    let read_anywhere: HashSet<&str> = ctx
        .fox
        .steps
        .iter()
        .flat_map(|s| s.reads.iter().map(String::as_str))
        .collect();
    let used_by: Vec<HashSet<u32>> = ctx
        .fox
        .inputs
        .iter()
        .map(|inp| inp.used_by.iter().copied().collect())
        .collect();
    let step_reads: Vec<HashSet<&str>> = ctx
        .fox
        .steps
        .iter()
        .map(|s| s.reads.iter().map(String::as_str).collect())
        .collect();
    let mut step_by_number: HashMap<u32, usize> = HashMap::new();
    for (i, s) in ctx.fox.steps.iter().enumerate() {
        step_by_number.entry(s.number).or_insert(i);
    }

    declared_inputs(ctx, &read_anywhere, out);
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        step_inputs(i, step, (&declared, &used_by, &step_reads[i]), out);
    }
    used_by_steps(ctx, &step_by_number, &step_reads, out);
}

/// Each input: no sensitive example, and some step uses it.
fn declared_inputs(ctx: &Ctx, read_anywhere: &HashSet<&str>, out: &mut Vec<Finding>) {
    let inputs_path = FieldPath::root().key("inputs");
    for (i, inp) in ctx.fox.inputs.iter().enumerate() {
        if inp.sensitive && inp.example.is_some() {
            // Never echo the value itself: it is the secret.
            out.push(
                Finding::new(
                    Severity::Error,
                    "sensitive-example",
                    inputs_path.index(i).key("example"),
                    format!("sensitive input `{}` carries an example value", inp.id),
                )
                .hint("remove `example`: a sensitive value must never be stored or shown"),
            );
        }
        if inp.used_by.is_empty() && !read_anywhere.contains(inp.id.as_str()) {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "unused-input",
                    inputs_path.index(i).key("used_by"),
                    format!("input `{}` is used by no step", inp.id),
                )
                .hint("remove the input, or list the steps that use it in `used_by`"),
            );
        }
    }
}

/// Step `i`'s template and `reads`: every input they name is declared, read, and lists the
/// step in its `used_by`.
fn step_inputs(
    i: usize,
    step: &Step,
    (declared, used_by, reads): (&HashMap<&str, usize>, &[HashSet<u32>], &HashSet<&str>),
    out: &mut Vec<Finding>,
) {
    let inputs_path = FieldPath::root().key("inputs");
    let path = step_path(i);
    let mut template_inputs = BTreeSet::new();
    for (field, text) in [("template", &step.template)] {
        let Some(t) = text else { continue };
        let mut ignored = Vec::new();
        if let Some(parsed) = parse_template(t, &path.key(field), &mut ignored) {
            template_inputs.extend(parsed.inputs().into_iter().map(str::to_string));
        }
    }
    for id in &template_inputs {
        if !declared.contains_key(id.as_str()) {
            out.push(
                Finding::new(
                    Severity::Error,
                    "undeclared-input",
                    path.key("template"),
                    format!("the template names `{{{id}}}`, which is not a declared input"),
                )
                .hint(format!("declare `{id}` in `inputs`, or fix the name")),
            );
        } else if !reads.contains(id.as_str()) {
            out.push(
                Finding::new(
                    Severity::Error,
                    "reads-used-by-mismatch",
                    path.key("reads"),
                    format!("the template uses `{id}` but `reads` does not list it"),
                )
                .hint(format!("add \"{id}\" to this step's `reads`")),
            );
        }
    }
    for (r, id) in step.reads.iter().enumerate() {
        match declared.get(id.as_str()) {
            None => out.push(
                Finding::new(
                    Severity::Error,
                    "unknown-id",
                    path.key("reads").index(r),
                    format!("`reads` names `{id}`, which is not a declared input"),
                )
                .hint("declare the input in `inputs`, or fix the name"),
            ),
            Some(&k) if !used_by[k].contains(&step.number) => out.push(
                Finding::new(
                    Severity::Error,
                    "reads-used-by-mismatch",
                    inputs_path.index(k).key("used_by"),
                    format!(
                        "step {} reads `{id}` but the input's `used_by` does not list {}",
                        step.number, step.number
                    ),
                )
                .hint(format!("add {} to `used_by`", step.number)),
            ),
            Some(_) => {}
        }
    }
}

/// Each input's `used_by`: the steps exist and read the input.
fn used_by_steps(
    ctx: &Ctx,
    step_by_number: &HashMap<u32, usize>,
    step_reads: &[HashSet<&str>],
    out: &mut Vec<Finding>,
) {
    let inputs_path = FieldPath::root().key("inputs");
    for (k, inp) in ctx.fox.inputs.iter().enumerate() {
        for (u, n) in inp.used_by.iter().enumerate() {
            let msg = match step_by_number.get(n) {
                None => format!("`used_by` lists step {n}, which does not exist"),
                Some(&i) if !step_reads[i].contains(inp.id.as_str()) => {
                    format!(
                        "`used_by` lists step {n}, whose `reads` does not name `{}`",
                        inp.id
                    )
                }
                Some(_) => continue,
            };
            out.push(
                Finding::new(
                    Severity::Error,
                    "reads-used-by-mismatch",
                    inputs_path.index(k).key("used_by").index(u),
                    msg,
                )
                .hint("make `used_by` and each step's `reads` name the same pairs"),
            );
        }
    }
}
