//! Times space expansion with restrictions on a large space and prints the
//! rate. Run: `cargo bench -p tune --bench expand`.

use std::time::Instant;

use tune::{Space, parse_param_arg};

fn main() {
    let mut space = Space::default();
    for arg in [
        "block_size_x=1,2,4,8,16,32,64,128,256,512,1024",
        "block_size_y=1,2,4,8,16,32,64,128,256,512,1024",
        "tile_size_x=1,2,3,4,5,6,7,8",
        "tile_size_y=1,2,3,4,5,6,7,8",
        "use_shmem=0,1",
        "variant=a,b,c",
    ] {
        match parse_param_arg(arg).and_then(|p| space.add_param(p)) {
            Ok(()) => {}
            Err(e) => {
                eprintln!("{e}");
                return;
            }
        }
    }
    for r in [
        "32 <= block_size_x*block_size_y <= 1024",
        "tile_size_x*tile_size_y <= 16 and (use_shmem == 1 or tile_size_x == 1)",
    ] {
        if let Err(e) = space.add_restriction(r) {
            eprintln!("{e}");
            return;
        }
    }
    let start = Instant::now();
    match space.expand() {
        Ok(e) => {
            let secs = start.elapsed().as_secs_f64();
            println!(
                "expand: {} configurations, {} kept, {:.3} s, {:.2} M configurations/s",
                e.total,
                e.kept.len(),
                secs,
                e.total as f64 / secs / 1e6
            );
        }
        Err(e) => eprintln!("{e}"),
    }
}
