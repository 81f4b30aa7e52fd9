//! Plans: dialects in, the normalized [`Plan`] out; strict parsing, canonical bytes and the
//! pre-approval lint (`check`).

pub mod check;
pub mod devthink;
mod fill;
pub mod foxstep;
pub(crate) mod keys;
mod load;
pub(crate) mod lower;
mod model;
mod redact;

pub(crate) use fill::{fill_known, selected_all_before};
pub(crate) use load::{SKILL_PLAN, parse_handed};
pub(crate) use load::{
    is_plan, is_plan_file, no_plans_under, plan_files_under, read_plan_source_capped,
};
pub use load::{load_plan, plan_from_source, read_plan_source};
pub use model::*;
pub(crate) use redact::sensitive_values;
#[cfg(test)]
pub(crate) use {load::parse_foxstep, lower::lower_foxstep};
