//! Prints the launch Kernel Tuner made of one measured configuration and
//! the exact source text it compiled.
//!
//! `cargo run -p validate --example instantiate -- EXPERIMENT.toml DATA [ROW]`
//! (ROW: index in the data file, default 0). Examples may print; the
//! library does not.

use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: instantiate EXPERIMENT.toml DATA [ROW]");
        std::process::exit(2);
    }
    if let Err(e) = run(&args) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let exp = validate::Experiment::load(Path::new(&args[0])).map_err(|e| e.to_string())?;
    let data = validate::import_dataset(Path::new(&args[1])).map_err(|e| e.to_string())?;
    let row_index: usize = match args.get(2) {
        Some(s) => s.parse().map_err(|_| format!("bad row index `{s}`"))?,
        None => 0,
    };
    let row = data
        .rows
        .get(row_index)
        .ok_or_else(|| format!("row {row_index} out of range ({} rows)", data.rows.len()))?;
    let launch = exp
        .launch(&data.named_values(row))
        .map_err(|e| e.to_string())?;
    println!(
        "// {} on {}: row {row_index}, measured {:?}",
        data.kernel, data.gpu, row.measured
    );
    println!("// grid {:?} block {:?}", launch.grid, launch.block);
    for a in &launch.args {
        println!("// arg {a:?}");
    }
    for c in &launch.constants {
        println!("// constant {} {} x {}", c.name, c.elem, c.len);
    }
    let text = launch
        .source
        .read()
        .map_err(|e| format!("{e} (run scripts/fetch-validation-kernels.sh)"))?;
    print!("{}", validate::instantiate_source(&text, &launch.defines));
    Ok(())
}
