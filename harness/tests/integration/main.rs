mod gate;
mod replay;
mod util;
