mod bridge;
mod util;
