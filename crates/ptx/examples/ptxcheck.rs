//! Parses PTX files, prints their diagnostics and checks that printing and
//! reparsing gives the same IR (a development aid):
//! `cargo run -p ptx --example ptxcheck -- FILE...`.

fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: error: {e}");
                failed = true;
                continue;
            }
        };
        match ptx::parse(&path, &text) {
            Ok(m) => {
                let printed = m.to_string();
                let same = match ptx::parse("printed.ptx", &printed) {
                    Ok(again) => again == m,
                    Err(d) => {
                        eprint!("{}", d.render("printed.ptx", &printed));
                        false
                    }
                };
                if !same {
                    failed = true;
                    let _ = std::fs::write("/tmp/ptxcheck-printed.ptx", &printed);
                }
                println!(
                    "{path}: ok, {} functions, {} instructions, round trip {}",
                    m.functions.len(),
                    m.instruction_count(),
                    if same {
                        "ok"
                    } else {
                        "FAILED (see /tmp/ptxcheck-printed.ptx)"
                    }
                );
            }
            Err(d) => {
                failed = true;
                eprint!("{}", d.render(&path, &text));
            }
        }
    }
    std::process::exit(i32::from(failed));
}
