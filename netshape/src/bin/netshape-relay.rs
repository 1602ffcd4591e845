//! `netshape-relay LISTEN TARGET DELAY_US`: forwards every TCP connection accepted on LISTEN to
//! TARGET, each direction delayed by DELAY_US microseconds (the delay half of an emulated link;
//! [`netshape::Lab`] starts one per host inside the hub namespace). Prints `ready` on its
//! standard output once it listens; ends when its standard input closes.

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    netshape::relay::main_with(&args)
}
