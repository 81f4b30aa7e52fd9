mod replay;
mod util;
