mod util;
