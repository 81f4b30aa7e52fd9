mod synth;
mod util;
