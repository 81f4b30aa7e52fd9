//! The app's built-in workout catalog.
//!
//! Routines name workouts by `workoutID`; a built-in id from here or a custom workout's id is
//! valid. The protocol's own example uses `bridge`, so it is here with the other everyday
//! bodyweight movements a coach composes from first. The catalog is read-only: no verb
//! changes it, and `updateCustomWorkout` on a built-in id is `unknown-id`.

use serde::{Deserialize, Serialize};

/// One built-in workout, as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogWorkout {
    /// The stable id routines use (`bridge`).
    pub(crate) id: String,
    /// The name the app shows.
    pub(crate) name: String,
}

/// `(id, name)` of every built-in workout, sorted by id.
const BUILT_IN: &[(&str, &str)] = &[
    ("bicycle-crunch", "Bicycle Crunch"),
    ("bird-dog", "Bird Dog"),
    ("bridge", "Bridge"),
    ("calf-raise", "Calf Raise"),
    ("dead-bug", "Dead Bug"),
    ("high-knees", "High Knees"),
    ("jumping-jacks", "Jumping Jacks"),
    ("lunge", "Lunge"),
    ("mountain-climber", "Mountain Climber"),
    ("plank", "Plank"),
    ("push-up", "Push-up"),
    ("side-plank", "Side Plank"),
    ("squat", "Squat"),
    ("superman", "Superman"),
    ("wall-sit", "Wall Sit"),
];

/// The built-in catalog, in id order.
pub(crate) fn built_in_catalog() -> Vec<CatalogWorkout> {
    BUILT_IN
        .iter()
        .map(|(id, name)| CatalogWorkout {
            id: (*id).to_string(),
            name: (*name).to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocols_example_workout_is_built_in_and_ids_are_sorted_and_unique() {
        let c = built_in_catalog();
        assert!(c.iter().any(|w| w.id == "bridge"));
        assert!(c.windows(2).all(|w| w[0].id < w[1].id));
    }
}
