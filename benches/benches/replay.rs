//! One whole-scenario replay: the checked-in `browser-signup` scenario (a nine-step sign-up
//! form: fields labelled by the text beside them, a checkbox, crops for most steps), loaded
//! through the library's scenario, plan and recording loaders outside the timed loop. Then
//! `replay/real`: every scenario whose recording came from a real desktop (AT-SPI trees of
//! GTK, Qt, Chromium, LibreOffice), per step (each step on its own recorded screen: plan step
//! to chosen element, crop included, and its checks), with criterion's throughput in steps, so
//! that the time of one step reads off directly.
//!
//! One iteration is what a suite run does for the scenario in one mode after loading it:
//! prepare the recording (frame indexes, grey screens, crop pictures — all built on first
//! use, so inside the loop) and replay the plan, resolving and checking every step. Decoded
//! screenshots are kept by the loaded recording itself, so they are decoded once, before
//! timing, as a suite run shares them across modes.

use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use stepreplay::plan::load_plan;
use stepreplay::recording::format::SourceKind;
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

/// The bundled scenarios whose recording was imported from a real desktop, by file name.
fn real_scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the scenarios folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| {
            load_scenario(p).is_ok_and(|s| {
                load_recording(&s.recording_dir)
                    .is_ok_and(|r| r.file.source.kind == SourceKind::Import)
            })
        })
        .collect();
    out.sort();
    out
}

/// Each real scenario in per-step mode. `cold` prepares the recording inside the loop (frame
/// indexes, grey screens, pictures: what a run pays once per recording); `warm` reuses one
/// preparation, so it times resolution and checks alone.
fn bench_real(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay/real");
    group.sample_size(20);
    for path in real_scenarios() {
        let scenario = load_scenario(&path).expect("real scenario loads");
        let plan = load_plan(&scenario.plan_path).expect("real plan loads");
        let rec = load_recording(&scenario.recording_dir).expect("real recording loads");
        for frame in &rec.frames {
            let _ = frame.pixels();
        }
        let id = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        group.throughput(Throughput::Elements(plan.steps.len() as u64));
        group.bench_function(BenchmarkId::new("cold", &id), |b| {
            b.iter(|| replay(&plan, &Prepared::new(&rec), &scenario.file, Mode::PerStep))
        });
        let prep = Prepared::new(&rec);
        group.bench_function(BenchmarkId::new("warm", &id), |b| {
            b.iter(|| replay(&plan, &prep, &scenario.file, Mode::PerStep))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_real);
criterion_main!(benches);
