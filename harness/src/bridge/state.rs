//! The app's state as the bridge exposes it: custom workouts, routines, plans and My Week,
//! each object with its own `updatedAt`, and the logical clock that stamps them.
//!
//! The main type is [`State`]. Key names follow the protocol (camelCase, `workoutID`,
//! `routineID`), because this is the part of `manifest.json` an agent reads before it
//! proposes changes.

use serde::{Deserialize, Serialize};

/// Everything an agent can change through the bridge.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct State {
    /// Ticks so far; the next change is stamped `ids::timestamp(logicalClock + 1)`.
    #[serde(default)]
    pub(crate) logical_clock: u64,
    /// The user's own workouts, in creation order.
    #[serde(default)]
    pub(crate) custom_workouts: Vec<CustomWorkout>,
    /// Routines, in creation order.
    #[serde(default)]
    pub routines: Vec<Routine>,
    /// Weekly plans, in creation order.
    #[serde(default)]
    pub plans: Vec<Plan>,
    /// The plan selected as My Week, if any.
    #[serde(default)]
    pub(crate) my_week: Option<MyWeek>,
}

/// A workout the user (or an agent) added beside the built-in catalog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct CustomWorkout {
    /// Its id, usable as a routine step's `workoutID`.
    pub(crate) id: String,
    /// Its name.
    pub(crate) name: String,
    /// Free-text instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) notes: Option<String>,
    /// When it last changed.
    pub(crate) updated_at: String,
}

/// An ordered list of timed workout steps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Routine {
    /// Its id, usable as a plan slot's `routineRef.id`.
    pub(crate) id: String,
    /// Its name.
    pub(crate) name: String,
    /// Its steps, in order.
    pub(crate) steps: Vec<RoutineStep>,
    /// When it last changed.
    pub(crate) updated_at: String,
}

/// One step of a routine, exactly as the protocol's `createRoutine` example spells it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RoutineStep {
    /// A built-in or custom workout id.
    #[serde(rename = "workoutID")]
    pub(crate) workout_id: String,
    /// Seconds of work per set.
    pub(crate) work_seconds: u32,
    /// How many sets.
    pub(crate) sets: u32,
    /// Rest between sets, in seconds.
    pub(crate) set_rest_seconds: u32,
    /// Rest after the last set, in seconds.
    pub(crate) rest_after_seconds: u32,
}

/// A repeating weekday schedule: seven buckets, 1 = Sunday … 7 = Saturday.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Plan {
    /// Its id, usable with `activatePlan`.
    pub(crate) id: String,
    /// Its name.
    pub(crate) name: String,
    /// Exactly seven days, in weekday order.
    pub(crate) days: Vec<PlanDay>,
    /// When it last changed.
    pub(crate) updated_at: String,
}

/// One weekday's ordered slots; no slots is a rest day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct PlanDay {
    /// 1 = Sunday … 7 = Saturday.
    pub(crate) weekday: u8,
    /// The routines of the day, in order.
    pub(crate) slots: Vec<PlanSlot>,
}

/// One slot: a routine, resolved to its id when the command was applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanSlot {
    /// The routine's id.
    #[serde(rename = "routineID")]
    pub(crate) routine_id: String,
}

/// The My Week selection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct MyWeek {
    /// The selected plan.
    #[serde(rename = "planID")]
    pub(crate) plan_id: String,
    /// When it was selected.
    pub(crate) updated_at: String,
}

impl State {
    /// Advances the logical clock and returns the new tick's timestamp.
    /// The name of the custom workout, routine or plan with `id` (in any letter case).
    pub(crate) fn name_of(&self, id: &str) -> Option<String> {
        let w = self.custom_workouts.iter().map(|o| (&o.id, &o.name));
        let r = self.routines.iter().map(|o| (&o.id, &o.name));
        let p = self.plans.iter().map(|o| (&o.id, &o.name));
        w.chain(r)
            .chain(p)
            .find(|(i, _)| i.eq_ignore_ascii_case(id))
            .map(|(_, n)| n.clone())
    }

    pub(crate) fn tick(&mut self) -> String {
        self.logical_clock = self.logical_clock.saturating_add(1);
        super::ids::timestamp(self.logical_clock)
    }
}
