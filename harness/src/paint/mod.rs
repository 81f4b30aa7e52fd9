//! The painter: [`render`] draws the desktop an AX snapshot describes, control by control
//! (`widgets`), on an RGB [`canvas::Canvas`] with text from a bundled font (`font`). Pure and
//! machine-independent, so a synthetic desktop, a perturbed snapshot, a bench screen and a
//! recorded step's crop all come out the same everywhere.

pub(crate) mod canvas;
pub(crate) mod font;
pub(crate) mod mask;
mod render;
mod widgets;

pub use render::render;
