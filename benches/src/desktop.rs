//! The bench screens: a desktop described as an AX snapshot and drawn by the harness's own
//! painter (`stepreplay::paint::render`), so the benches measure the screens replay sees.
//!
//! Benchmarks on noise or flat colour measure the wrong thing: a real screen is mostly flat
//! runs with anti-aliased text edges and many repeated controls. The scene has a menu bar with
//! a clock, a dock, a notes window behind a file manager whose table rows each end in an
//! identical "Delete" button, and a unique "Export…" toolbar button. [`Variant::After`] is the
//! same screen one step later (clock ticked, a button hovered, a row renamed, a toast shown),
//! so a pair differs the way before/after captures of a step do: in a few small places.

use image::{DynamicImage, RgbaImage};
use stepreplay::paint::render;
use stepreplay::recording::ax::{AX_SCHEMA, App, AxSnapshot, Element, Rect, Window};
use stepreplay::recording::format::Screen;

/// Which capture of the pair to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The screen before the step.
    Before,
    /// The screen after it.
    After,
}

/// The benchmark sizes and UI scales: a 1x laptop, the same at 2x, and 4K at 2x.
pub const SIZES: [(u32, u32, u32); 3] = [(1440, 900, 1), (2880, 1800, 2), (3840, 2160, 2)];

/// A painted screen and the places of interest on it, in pixels.
pub struct Desktop {
    /// The screen.
    pub image: RgbaImage,
    /// Top-left corners of the table's "Delete" buttons, top to bottom.
    pub delete_buttons: Vec<(u32, u32)>,
    /// Size of one "Delete" button.
    pub button_size: (u32, u32),
    /// Top-left corner and size of the one "Export…" button.
    pub export: (u32, u32, u32, u32),
    ax: AxSnapshot,
}

impl Desktop {
    /// Paints a `width × height` desktop at UI `scale` (1 or 2).
    pub fn paint(width: u32, height: u32, scale: u32, variant: Variant) -> Desktop {
        let ax = snapshot(width / scale, height / scale, scale, variant);
        let screen = Screen {
            width,
            height,
            scale,
        };
        let image = DynamicImage::ImageRgb8(render(&ax, &screen)).into_rgba8();
        let buttons: Vec<_> = (0..)
            .map(|i| format!("delete-{i}"))
            .take_while(|id| ax.find(id).is_some())
            .map(|id| place(&ax, &id))
            .collect();
        Desktop {
            image,
            delete_buttons: buttons.iter().map(|b| (b.0, b.1)).collect(),
            button_size: (buttons[0].2, buttons[0].3),
            export: place(&ax, "export"),
            ax,
        }
    }

    /// Top-left corner and size of the element `id` of the scene (see [`snapshot`]).
    pub fn place(&self, id: &str) -> (u32, u32, u32, u32) {
        place(&self.ax, id)
    }
}

fn place(ax: &AxSnapshot, id: &str) -> (u32, u32, u32, u32) {
    let f = ax.find(id).expect("the scene has it").2.frame;
    (f.x as u32, f.y as u32, f.width as u32, f.height as u32)
}

/// Frames are laid out in points and stored in pixels.
struct Layout(i32);

impl Layout {
    fn rect(&self, x: i32, y: i32, w: i32, h: i32) -> Rect {
        let s = self.0;
        Rect {
            x: x * s,
            y: y * s,
            width: w * s,
            height: h * s,
        }
    }
}

fn named(id: impl Into<String>, role: &str, frame: Rect, title: &str) -> Element {
    Element {
        title: Some(title.into()),
        ..Element::new(id, role, frame)
    }
}

fn words(id: impl Into<String>, frame: Rect, text: &str) -> Element {
    Element {
        value: Some(text.into()),
        ..Element::new(id, "AXStaticText", frame)
    }
}

fn window(id: &str, title: &str, kind: &str, frame: Rect, elements: Vec<Element>) -> Window {
    Window {
        id: id.into(),
        title: title.into(),
        kind: Some(kind.into()),
        frame,
        focused: id == "invoices",
        elements,
    }
}

/// The menu bar's items, and its clock (a minute later after the step).
fn menu_bar(l: &Layout, w: i32, after: bool) -> Vec<Element> {
    let mut bar = Vec::new();
    let mut x = 36;
    for item in ["Finder", "File", "Edit", "View", "Go", "Window", "Help"] {
        let iw = 9 * item.len() as i32 + 14;
        bar.push(named(item, "AXMenuBarItem", l.rect(x, 0, iw, 24), item));
        x += iw + 4;
    }
    let clock = if after { "Tue 10:42" } else { "Tue 10:41" };
    bar.push(Element {
        subrole: Some("AXMenuExtra".into()),
        ..named("clock", "AXMenuBarItem", l.rect(w - 100, 0, 90, 24), clock)
    });
    bar
}

/// The file table: its header and one row per invoice the window's height has room for.
fn file_rows(l: &Layout, h: i32, after: bool) -> Vec<Element> {
    let mut table = vec![
        words("h-name", l.rect(464, 194, 200, 20), "Name"),
        words("h-size", l.rect(860, 194, 90, 20), "Size"),
        words("h-date", l.rect(960, 194, 150, 20), "Modified"),
    ];
    let mut y = 220;
    for i in 0..(h - 312) / 34 {
        let name = if after && i == 3 {
            "INV-2024-0004 (paid).pdf".to_string()
        } else {
            format!("INV-2024-{:04}.pdf", i + 1)
        };
        let size = format!("{} KB", 40 + (i * 37) % 300);
        let date = format!("Mar {}, 2024", 1 + i % 28);
        let delete = Element {
            selected: after && i == 6,
            ..named(
                format!("delete-{i}"),
                "AXButton",
                l.rect(1160, y + 5, 76, 24),
                "Delete",
            )
        };
        table.push(Element {
            children: vec![
                words(format!("size-{i}"), l.rect(860, y + 7, 90, 20), &size),
                words(format!("date-{i}"), l.rect(960, y + 7, 150, 20), &date),
                delete,
            ],
            ..named(format!("row-{i}"), "AXRow", l.rect(453, y, 794, 34), &name)
        });
        y += 34;
    }
    table
}

/// The scene on a `w × h` point screen.
pub fn snapshot(w: u32, h: u32, scale: u32, variant: Variant) -> AxSnapshot {
    let (w, h) = (w as i32, h as i32);
    let l = Layout(scale as i32);
    let after = variant == Variant::After;

    let bar = menu_bar(&l, w, after);
    let note = "Call the accountant about the March invoices and check the totals against \
                the bank statement before Friday. ";
    let notes = window(
        "notes",
        "Notes",
        "window",
        l.rect(60, 70, 700, 420),
        vec![words("note", l.rect(80, 110, 660, 370), &note.repeat(16))],
    );

    let places = [
        "Recents",
        "Desktop",
        "Documents",
        "Downloads",
        "Invoices",
        "Bin",
    ];
    let sidebar = places
        .iter()
        .enumerate()
        .map(|(i, p)| Element {
            selected: *p == "Invoices",
            ..named(*p, "AXRow", l.rect(266, 156 + 26 * i as i32, 170, 24), p)
        })
        .collect();
    let table = file_rows(&l, h, after);
    let invoices = window(
        "invoices",
        "Invoices",
        "window",
        l.rect(260, 120, 1000, h - 200),
        vec![
            Element {
                children: sidebar,
                ..Element::new("sidebar", "AXOutline", l.rect(261, 149, 180, h - 230))
            },
            named("new", "AXButton", l.rect(456, 156, 96, 24), "New Folder"),
            named("export", "AXButton", l.rect(560, 156, 84, 24), "Export…"),
            named("share", "AXButton", l.rect(652, 156, 70, 24), "Share"),
            Element {
                children: table,
                ..Element::new("files", "AXTable", l.rect(452, 190, 796, h - 280))
            },
        ],
    );
    let mut finder = vec![window("menubar", "", "menubar", l.rect(0, 0, w, 24), bar)];
    if after {
        finder.push(window(
            "toast",
            "",
            "notification",
            l.rect(w - 340, 34, 320, 70),
            vec![
                words(
                    "toast-title",
                    l.rect(w - 324, 44, 290, 20),
                    "Invoice deleted",
                ),
                words(
                    "toast-body",
                    l.rect(w - 324, 70, 290, 20),
                    "INV-2024-0007.pdf was moved to the Bin.",
                ),
            ],
        ));
    }
    finder.push(invoices);
    let app = |name: &str, frontmost, windows| App {
        name: name.into(),
        bundle_id: None,
        frontmost,
        windows,
    };
    AxSnapshot {
        schema: AX_SCHEMA.into(),
        apps: vec![
            app("Finder", true, finder),
            app("Notes", false, vec![notes]),
        ],
    }
}
