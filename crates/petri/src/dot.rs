//! Export of a [`Net`] to Graphviz DOT: places as circles labelled with their
//! name and tokens, transitions as boxes, arcs labelled with weights above 1,
//! inhibitor arcs drawn with a small circle as arrowhead (the usual notation,
//! seed 003 §3: "arcs with small circles as arrowheads represent inhibition").

use crate::net::{ArcKind, Net};
use std::fmt::Write;

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The whole net as a DOT digraph.
pub fn to_dot(net: &Net) -> String {
    let mut s = String::new();
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(s, "digraph \"{}\" {{", dot_escape(net.name()));
    let _ = writeln!(s, "  rankdir=LR;");
    for (i, p) in net.places().iter().enumerate() {
        let tokens = if p.initial > 0 {
            format!("\\n{}", p.initial)
        } else {
            String::new()
        };
        let cap = p
            .capacity
            .map(|c| format!(" (cap {c})"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  p{i} [shape=circle, label=\"{}{tokens}{cap}\"];",
            dot_escape(&p.name)
        );
    }
    for (i, t) in net.transitions().iter().enumerate() {
        let _ = writeln!(s, "  t{i} [shape=box, label=\"{}\"];", dot_escape(&t.name));
    }
    for a in net.arcs() {
        let (p, t) = (a.place.index(), a.transition.index());
        let label = if a.weight > 1 {
            format!(" label=\"{}\"", a.weight)
        } else {
            String::new()
        };
        match a.kind {
            ArcKind::Input => {
                let _ = writeln!(s, "  p{p} -> t{t} [{}];", label.trim_start());
            }
            ArcKind::Output => {
                let _ = writeln!(s, "  t{t} -> p{p} [{}];", label.trim_start());
            }
            ArcKind::Inhibitor => {
                let _ = writeln!(s, "  p{p} -> t{t} [arrowhead=odot];");
            }
        }
    }
    let _ = writeln!(s, "}}");
    s
}
