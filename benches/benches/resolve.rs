//! Target resolution, the hot path: index an AX snapshot once, then resolve a step's target.
//! Snapshots have 100 … 100k elements laid out as real windows are (rows of labelled
//! buttons, fields labelled by the static text beside them, repeated "Delete" buttons in
//! other windows), built outside the timed loop.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use stepreplay::plan::Target;
use stepreplay::recording::AxSnapshot;
use stepreplay::resolve::{FrameIndex, ResolveContext, resolve};

/// `n` elements in windows of 200: per row a static text, the field it labels and a button.
fn snapshot(n: usize) -> AxSnapshot {
    let per_window = 200;
    let windows: Vec<_> = (0..n.div_ceil(per_window))
        .map(|w| {
            let elements: Vec<_> = (0..per_window.min(n - w * per_window))
                .map(|i| {
                    let (row, col) = (i / 3, i % 3);
                    let frame = json!({"x": 20 + col as i32 * 120, "y": 40 + row as i32 * 24, "width": 110, "height": 20});
                    match col {
                        0 => json!({"id": format!("w{w}-t{i}"), "ax_role": "AXStaticText", "value": format!("Field {w}.{row}"), "frame": frame}),
                        1 => json!({"id": format!("w{w}-f{i}"), "ax_role": "AXTextField", "value": "", "frame": frame}),
                        _ => json!({"id": format!("w{w}-b{i}"), "ax_role": "AXButton", "title": if row % 2 == 0 { "Delete".to_string() } else { format!("Open {w}.{row}") }, "frame": frame}),
                    }
                })
                .collect();
            json!({"id": format!("w{w}"), "title": format!("Window {w}"), "focused": w == 0,
                   "frame": {"x": 0, "y": 0, "width": 1440, "height": 900}, "elements": elements})
        })
        .collect();
    serde_json::from_value(json!({"schema": "stepreplay-ax/1",
        "apps": [{"name": "App", "bundle_id": "com.example.app", "frontmost": true, "windows": windows}]}))
    .expect("bench snapshot")
}

fn bench(c: &mut Criterion) {
    let mut index = c.benchmark_group("resolve/index");
    for n in [100usize, 1_000, 10_000, 100_000] {
        let ax = snapshot(n);
        index.throughput(Throughput::Elements(n as u64));
        index.bench_with_input(BenchmarkId::from_parameter(n), &ax, |b, ax| {
            b.iter(|| FrameIndex::new(ax))
        });
    }
    index.finish();

    let mut lookup = c.benchmark_group("resolve/step");
    for n in [100usize, 1_000, 10_000, 100_000] {
        let ax = snapshot(n);
        let ix = FrameIndex::new(&ax);
        let last = n.div_ceil(200) - 1;
        // A field found through the static text beside it, in the last window.
        let target = Target {
            app: Some("App".into()),
            window: Some(format!("Window {last}")),
            ax_role: Some("AXTextField".into()),
            label: Some(format!("Field {last}.1")),
            ..Target::default()
        };
        let ctx = ResolveContext {
            screen: (1440, 900),
            crop: None,
            anchors: &[],
        };
        assert!(
            resolve(&target, &ix, &ctx).element.is_some(),
            "bench target resolves"
        );
        lookup.throughput(Throughput::Elements(1));
        lookup.bench_with_input(BenchmarkId::from_parameter(n), &target, |b, t| {
            b.iter(|| resolve(t, &ix, &ctx))
        });
    }
    lookup.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
