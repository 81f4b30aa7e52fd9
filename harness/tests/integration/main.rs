mod util;
mod synth;
