//! One whole-scenario replay: the checked-in `browser-signup` scenario (a nine-step sign-up
//! form: fields labelled by the text beside them, a checkbox, crops for most steps), loaded
//! through the library's scenario, plan and recording loaders outside the timed loop.
//!
//! One iteration is what a suite run does for the scenario in one mode after loading it:
//! prepare the recording (frame indexes, grey screens, crop pictures — all built on first
//! use, so inside the loop) and replay the plan, resolving and checking every step. Decoded
//! screenshots are kept by the loaded recording itself, so they are decoded once, before
//! timing, as a suite run shares them across modes.

use std::path::Path;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use stepreplay::plan::load_plan;
use stepreplay::recording::load_recording;
use stepreplay::replay::{Mode, Prepared, replay};
use stepreplay::scenario::load_scenario;

const SCENARIO: &str = "browser-signup";

fn bench(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(format!("{SCENARIO}.json"));
    let scenario = load_scenario(&path).expect("bench scenario loads");
    let plan = load_plan(&scenario.plan_path).expect("bench plan loads");
    let rec = load_recording(&scenario.recording_dir).expect("bench recording loads");
    for frame in &rec.frames {
        // Decode every screenshot now: the recording keeps them (see the module docs).
        let _ = frame.pixels();
    }
    let mut group = c.benchmark_group("replay");
    // Tens of milliseconds an iteration: fewer samples keep a run under a minute.
    group.sample_size(20);
    for (name, mode) in [("chained", Mode::Chained), ("per-step", Mode::PerStep)] {
        let first = replay(&plan, &Prepared::new(&rec), &scenario.file, mode);
        assert!(!first.events.is_empty(), "the bench scenario replays steps");
        group.bench_function(BenchmarkId::new(SCENARIO, name), |b| {
            b.iter(|| {
                let prep = Prepared::new(&rec);
                replay(&plan, &prep, &scenario.file, mode)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
